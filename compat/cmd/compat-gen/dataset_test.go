package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/lakeformat"
)

func TestCombos(t *testing.T) {
	cs := combos()
	if len(cs) != 20 {
		t.Fatalf("%d lakes, want 20", len(cs))
	}
	sinkName := regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
	seen := map[string]bool{}
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
		info := c.info("/x/s3", 1)
		wantTail := "/dt=*/hour=*/*"
		if c.Align == "day" {
			wantTail = "/dt=*/*"
		}
		if !strings.HasSuffix(info.FilesGlob, wantTail) || !strings.HasPrefix(info.S3Glob, "s3://lake/"+c.ID()+"/tenant=*/queue=*/") ||
			!strings.HasPrefix(info.FilesGlob, "/x/s3/lake/"+c.ID()+"/tenant=*/") {
			t.Errorf("%s: globs %s and %s", c.ID(), info.FilesGlob, info.S3Glob)
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
	rows, err := expectations(recs)
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].Partition != "eu west/1" || rows[0].Dt != "2026-12-01" || rows[0].Hour != "00" || rows[0].Ts != "2026-12-01T00:00:00.000000Z" ||
		rows[1].Dt != "2026-11-30" || rows[1].Hour != "23" || rows[1].TsUs != 1796083199999999 || *rows[1].PayloadParquet != "1" {
		t.Errorf("rows %+v", rows)
	}
}
