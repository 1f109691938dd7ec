package main

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/lakeformat"
)

func TestCombos(t *testing.T) {
	cs := combos()
	if len(cs) != 22 {
		t.Fatalf("%d lakes, want 22", len(cs))
	}
	sinkName := regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
	seen := map[string]bool{}
	cpFormats := map[string]bool{}
	for _, c := range cs {
		if seen[c.ID()] || !sinkName.MatchString(c.ID()) {
			t.Errorf("lake id %q is a repeat or not a sink name", c.ID())
		}
		seen[c.ID()] = true
		f, _ := lakeformat.ParseFormat(c.Format)
		k, _ := lakeformat.ParseCodec(c.Codec)
		if err := (lakeformat.Options{Format: f, Codec: k}).Validate(); err != nil {
			t.Errorf("%s: %v", c.ID(), err)
		}
		info := c.info("/x/s3", "/x/"+expectedFile(c.tenant()), 1)
		wantTail := "/dt=*/hour=*/*"
		if c.Align == "day" {
			wantTail = "/dt=*/*"
		}
		if !strings.HasSuffix(info.FilesGlob, wantTail) || !strings.HasPrefix(info.S3Glob, "s3://lake/"+c.ID()+"/tenant=*/queue=*/") ||
			!strings.HasPrefix(info.FilesGlob, "/x/s3/lake/"+c.ID()+"/tenant=*/") {
			t.Errorf("%s: globs %s and %s", c.ID(), info.FilesGlob, info.S3Glob)
		}
		wantTenant, wantSource := defaultTenant, "env"
		if c.CP {
			wantTenant, wantSource = cpTenant, "cp"
			cpFormats[c.Format] = true
			if !strings.HasPrefix(c.ID(), "cp-") {
				t.Errorf("control-plane lake %s: its id does not say so", c.ID())
			}
		}
		if info.Tenant != wantTenant || info.Source != wantSource || info.Expected != "/x/"+expectedFile(wantTenant) {
			t.Errorf("%s: tenant %s source %s expected %s", c.ID(), info.Tenant, info.Source, info.Expected)
		}
	}
	if !cpFormats["jsonl"] || !cpFormats["parquet"] {
		t.Errorf("the control-plane tenant's lakes cover %v, want jsonl and parquet", cpFormats)
	}
}

// TestTenants pins the two tenants: the control plane's is a canonical
// UUID of its own, pushed with the tenancy header, and each tenant's
// expectations have a file of their own.
func TestTenants(t *testing.T) {
	canonical := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	if !canonical.MatchString(cpTenant) || cpTenant == defaultTenant || cpTenant == "00000000-0000-0000-0000-000000000000" {
		t.Errorf("cpTenant %s is not a broker tenant of its own", cpTenant)
	}
	if len(tenantHeader(defaultTenant)) != 0 || !slices.Equal(tenantHeader(cpTenant), []string{"x-queen-tenant", cpTenant}) {
		t.Errorf("headers %q and %q", tenantHeader(defaultTenant), tenantHeader(cpTenant))
	}
	if expectedFile(defaultTenant) != "expected.jsonl" || expectedFile(cpTenant) != "expected-"+cpTenant+".jsonl" {
		t.Errorf("expected files %s and %s", expectedFile(defaultTenant), expectedFile(cpTenant))
	}
	if len(cpToken) < 16 || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(cpKeyHex) {
		t.Errorf("cp token %q or key %q is out of range", cpToken, cpKeyHex)
	}
}

// TestLakeSettings: an environment lake and a control-plane lake get the
// same settings, the one as QUEEN_S3_* variables, the other as the
// document of PUT /api/cp/clusters/:slug/s3 (typed: pathStyle a boolean,
// maxWindowMs a number), and a control-plane lake's node has no sink of
// the environment.
func TestLakeSettings(t *testing.T) {
	for _, c := range combos() {
		env := c.env("http://127.0.0.1:9")
		var doc map[string]any
		if err := json.Unmarshal(c.cpBody("http://127.0.0.1:9"), &doc); err != nil {
			t.Fatalf("%s: %v", c.ID(), err)
		}
		if len(doc) != len(env) || len(doc) != len(c.settings("")) {
			t.Errorf("%s: %d variables, %d document fields", c.ID(), len(env), len(doc))
		}
		vars := map[string]string{}
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			if _, dup := vars[k]; dup || !strings.HasPrefix(k, "QUEEN_S3_") {
				t.Errorf("%s: variable %s", c.ID(), kv)
			}
			vars[k] = v
		}
		codec := map[bool]string{true: "parquetCodec", false: "compression"}[c.Format == "parquet"]
		if vars["QUEEN_S3_SINK"] != c.ID() || vars["QUEEN_S3_PREFIX"] != c.ID() || vars["QUEEN_S3_PATH_STYLE"] != "true" ||
			doc["sink"] != c.ID() || doc["prefix"] != c.ID() || doc["pathStyle"] != true || doc["maxWindowMs"] != 2000.0 ||
			doc["secretKey"] != s3Secret || doc["queues"] != "*" || doc[codec] != c.Codec || doc["format"] != c.Format {
			t.Errorf("%s: env %v, document %v", c.ID(), vars, doc)
		}
	}
	for _, kv := range append(nodeSinkEnv(), cpNodeEnv()...) {
		if strings.HasPrefix(kv, "QUEEN_S3_QUEUES=") {
			t.Errorf("a control-plane lake's node gets %s: it would run the environment's sink too", kv)
		}
	}
}

// TestDataSet checks that every push is valid JSON, that each side of the
// boundary holds every payload kind, and that each partition gets several.
func TestDataSet(t *testing.T) {
	for side, pushes := range [][][]item{batch(0, roundsBefore), batch(roundsBefore, roundsBefore+roundsAfter)} {
		kinds := map[string]bool{}
		perPartition := map[string]map[string]bool{}
		for _, push := range pushes {
			if !json.Valid(pushBody(push)) {
				t.Fatalf("push body is not JSON: %s", pushBody(push))
			}
			for _, it := range push {
				if !json.Valid([]byte(it.Payload)) {
					t.Errorf("payload %q is not JSON", it.Payload)
				}
				for _, tpl := range payloads {
					if tpl == it.Payload || strings.Contains(tpl, "%d") && strings.HasPrefix(it.Payload, tpl[:strings.Index(tpl, "%d")]) {
						kinds[tpl] = true
						if perPartition[it.Partition] == nil {
							perPartition[it.Partition] = map[string]bool{}
						}
						perPartition[it.Partition][tpl] = true
					}
				}
			}
		}
		if len(kinds) != len(payloads) {
			t.Errorf("side %d holds %d payload kinds of %d", side, len(kinds), len(payloads))
		}
		for p, k := range perPartition {
			if len(k) < 2 {
				t.Errorf("side %d: partition %q gets one payload kind", side, p)
			}
		}
	}
}

// TestPayloadRendering pins the expectation to lakeformat's rules: JSONL
// turns raw line breaks into spaces, Parquet keeps them, and an empty
// payload is null in both.
func TestPayloadRendering(t *testing.T) {
	for _, c := range []struct {
		stored, jsonl, parquet string // "<nil>" for null
	}{
		{"{\n  \"pretty\": true,\n  \"n\": 1.50\n}", "{   \"pretty\": true,   \"n\": 1.50 }", "{\n  \"pretty\": true,\n  \"n\": 1.50\n}"},
		{"{\r\n \"crlf\": 1\r\n}", "{   \"crlf\": 1  }", "{\r\n \"crlf\": 1\r\n}"},
		{`{"order":1,"total":42.00}`, `{"order":1,"total":42.00}`, `{"order":1,"total":42.00}`},
		{`null`, `null`, `null`},
		{`"é \"q\""`, `"é \"q\""`, `"é \"q\""`},
		{"", "<nil>", "<nil>"},
	} {
		r := lakeformat.Record{Partition: "eu west/1", Offset: 3, TransactionID: "tx-ü", Ts: 1796083200000001, Payload: []byte(c.stored)}
		j, err := jsonlPayload(&r)
		if err != nil {
			t.Fatal(err)
		}
		pq, err := parquetPayloads(defaultTenant, "orders", []lakeformat.Record{r})
		if err != nil {
			t.Fatal(err)
		}
		p := pq[partOff{r.Partition, r.Offset}]
		if deref(j) != deref(strPtr(c.jsonl)) || deref(p) != deref(strPtr(c.parquet)) {
			t.Errorf("%q: jsonl %s parquet %s, want %q and %q", c.stored, deref(j), deref(p), c.jsonl, c.parquet)
		}
	}
}

func strPtr(s string) *string {
	if s == "<nil>" {
		return nil
	}
	return &s
}

func TestExpectations(t *testing.T) {
	recs := []record{
		{Queue: "orders", Record: lakeformat.Record{Partition: "zürich", Offset: 0, TransactionID: "a", Ts: 1796083199999999, Payload: []byte(`1`)}},
		{Queue: "orders", Record: lakeformat.Record{Partition: "eu west/1", Offset: 0, TransactionID: "b", Ts: 1796083200000000, Payload: []byte(`2`)}},
	}
	rows, err := expectations(defaultTenant, recs)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := expectations(cpTenant, recs)
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].Tenant != defaultTenant || cp[0].Tenant != cpTenant || cp[1].Tenant != cpTenant || *cp[1].PayloadParquet != "1" {
		t.Errorf("tenants of the rows: %+v and %+v", rows[0], cp)
	}
	if rows[0].Partition != "eu west/1" || rows[0].Dt != "2026-12-01" || rows[0].Hour != "00" || rows[0].Ts != "2026-12-01T00:00:00.000000Z" ||
		rows[1].Dt != "2026-11-30" || rows[1].Hour != "23" || rows[1].TsUs != 1796083199999999 || *rows[1].PayloadParquet != "1" {
		t.Errorf("rows %+v", rows)
	}
}
