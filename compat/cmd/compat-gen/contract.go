package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/queen-mq/queen-go/lakeformat"
)

// partOff names a record within a queue.
type partOff struct {
	partition string
	offset    int64
}

// combo is one lake: a combination of the sink's format settings, written
// by the environment's sink (the default tenant's) or, with CP, by the sink
// of the control-plane tenant cpTenant, PUT through /api/cp.
type combo struct {
	Format, Codec, Layout, Align string
	CP                           bool
}

// ID names the lake, its prefix and its sink (QUEEN_S3_SINK or the
// document's sink, so that each lake's KV documents start from nothing on
// the same node). A control-plane tenant's lake starts with "cp-".
func (c combo) ID() string {
	id := c.Format + "-" + c.Codec + "-" + c.Layout + "-" + c.Align
	if c.CP {
		return "cp-" + id
	}
	return id
}

// tenant is the broker tenant whose records the lake holds.
func (c combo) tenant() string {
	if c.CP {
		return cpTenant
	}
	return defaultTenant
}

// sourceOf is the source of tenant's sink, as GET /status names it: "env"
// for the default tenant, "cp" for the control plane's.
func sourceOf(tenant string) string {
	if tenant == defaultTenant {
		return "env"
	}
	return "cp"
}

// setting is one of a lake's sink settings by its two names
// (SINK-CONFIG.md §2b): the environment's variable and the control
// plane's document field.
type setting struct {
	env, doc string
	value    any // a string, a bool or an int
}

// settings are the lake's sink settings against the S3 server at endpoint.
// The node-wide ones (nodeSinkEnv) are the environment's for every lake.
func (c combo) settings(endpoint string) []setting {
	s := []setting{{"QUEEN_S3_QUEUES", "queues", "*"}, {"QUEEN_S3_ENDPOINT", "endpoint", endpoint},
		{"QUEEN_S3_REGION", "region", s3Region}, {"QUEEN_S3_PATH_STYLE", "pathStyle", true},
		{"QUEEN_S3_BUCKET", "bucket", s3Bucket}, {"QUEEN_S3_ACCESS_KEY", "accessKey", s3Access},
		{"QUEEN_S3_SECRET_KEY", "secretKey", s3Secret}, {"QUEEN_S3_START", "start", "earliest"},
		{"QUEEN_S3_MAX_WINDOW_MS", "maxWindowMs", 2000}, {"QUEEN_S3_FORMAT", "format", c.Format},
		{"QUEEN_S3_LAYOUT", "layout", c.Layout}, {"QUEEN_S3_ALIGN", "align", c.Align},
		{"QUEEN_S3_PREFIX", "prefix", c.ID()}, {"QUEEN_S3_SINK", "sink", c.ID()}}
	if c.Format == "parquet" {
		return append(s, setting{"QUEEN_S3_PARQUET_CODEC", "parquetCodec", c.Codec})
	}
	return append(s, setting{"QUEEN_S3_COMPRESSION", "compression", c.Codec})
}

// env is the environment's sink for the lake, beside nodeSinkEnv.
func (c combo) env(endpoint string) []string {
	var env []string
	for _, s := range c.settings(endpoint) {
		env = append(env, fmt.Sprintf("%s=%v", s.env, s.value))
	}
	return env
}

// cpBody is the body of PUT /api/cp/clusters/<cpCluster>/s3 for the lake:
// the settings by their document names, the secret key beside them.
func (c combo) cpBody(endpoint string) []byte {
	doc := map[string]any{}
	for _, s := range c.settings(endpoint) {
		doc[s.doc] = s.value
	}
	b, _ := json.Marshal(doc) // strings, bools and ints only
	return b
}

// combos are the 22 lakes: JSONL (zstd, gzip, none) and Parquet (zstd,
// snappy), each merged and per-partition, aligned on the hour and the day,
// of the default tenant; then two of the control-plane tenant, one JSONL
// and one Parquet, so that both encoders run under a control-plane sink.
// They are merged (few objects, so the readers take little time over
// them), JSONL gzip so that the lane's own test reader (readers/_example.py)
// reads one, and one on each alignment.
func combos() []combo {
	var out []combo
	for _, fc := range [][2]string{{"jsonl", "zstd"}, {"jsonl", "gzip"}, {"jsonl", "none"}, {"parquet", "zstd"}, {"parquet", "snappy"}} {
		for _, layout := range []string{"merged", "per-partition"} {
			for _, align := range []string{"hour", "day"} {
				out = append(out, combo{Format: fc[0], Codec: fc[1], Layout: layout, Align: align})
			}
		}
	}
	return append(out, combo{Format: "jsonl", Codec: "gzip", Layout: "merged", Align: "hour", CP: true},
		combo{Format: "parquet", Codec: "zstd", Layout: "merged", Align: "day", CP: true})
}

// lakesFile is lakes.json, the contract the readers and the runner read.
// dt_values and hour_boundary hold for every lake: both tenants are pushed
// in the same rounds around the same midnight.
type lakesFile struct {
	GeneratedAt  string       `json:"generatedAt"`
	S3Dir        string       `json:"s3dir"`
	Bucket       string       `json:"bucket"`
	AccessKey    string       `json:"access_key"`
	SecretKey    string       `json:"secret_key"`
	Region       string       `json:"region"`
	Tenants      []tenantInfo `json:"tenants"`
	Lakes        []lakeInfo   `json:"lakes"`
	Queues       []string     `json:"queues"`
	DtValues     []string     `json:"dt_values"`
	HourBoundary string       `json:"hour_boundary"`
}

// tenantInfo is one tenant of lakes.json: where its sink came from, and
// its records.
type tenantInfo struct {
	ID       string `json:"id"`
	Source   string `json:"source"`            // "env" or "cp", as GET /status names a sink's
	Cluster  string `json:"cluster,omitempty"` // the control plane's cluster of a "cp" tenant
	Expected string `json:"expected"`          // its expected*.jsonl
	Records  int    `json:"records"`
}

// lakeInfo is one lake of lakes.json.
type lakeInfo struct {
	ID        string `json:"id"`
	Tenant    string `json:"tenant"`
	Source    string `json:"source"`
	Expected  string `json:"expected"` // the tenant's expected records, the only ones the lake holds
	Format    string `json:"format"`
	Codec     string `json:"codec"`
	Layout    string `json:"layout"`
	Align     string `json:"align"`
	Prefix    string `json:"prefix"`
	Ext       string `json:"ext"`
	FilesGlob string `json:"files_glob"`
	S3Glob    string `json:"s3_glob"`
	Objects   int    `json:"objects"`
}

// newTenantInfo is tenant's entry of lakes.json, for records records
// whose expectations go to out.
func newTenantInfo(out, tenant string, records int) tenantInfo {
	ti := tenantInfo{ID: tenant, Source: sourceOf(tenant), Expected: filepath.Join(out, expectedFile(tenant)), Records: records}
	if tenant != defaultTenant {
		ti.Cluster = cpCluster
	}
	return ti
}

// expectedFile is the name of a tenant's expected records in -out:
// expected.jsonl for the default tenant, expected-<tenant>.jsonl for another.
func expectedFile(tenant string) string {
	if tenant == defaultTenant {
		return "expected.jsonl"
	}
	return "expected-" + tenant + ".jsonl"
}

// globTail is the Hive glob of a lake's data objects below its prefix: it
// never reaches the _queen/ sidecars.
func (c combo) globTail() string {
	if c.Align == "day" {
		return "tenant=*/queue=*/dt=*/*"
	}
	return "tenant=*/queue=*/dt=*/hour=*/*"
}

// info is the lake's entry of lakes.json, with expected its tenant's
// expected records.
func (c combo) info(s3dir, expected string, objects int) lakeInfo {
	ext := ".parquet"
	if c.Format == "jsonl" {
		ext = map[string]string{"zstd": ".jsonl.zst", "gzip": ".jsonl.gz", "none": ".jsonl"}[c.Codec]
	}
	return lakeInfo{ID: c.ID(), Tenant: c.tenant(), Source: sourceOf(c.tenant()), Expected: expected, Format: c.Format,
		Codec: c.Codec, Layout: c.Layout, Align: c.Align, Prefix: c.ID(), Ext: ext,
		FilesGlob: filepath.Join(s3dir, s3Bucket, c.ID(), c.globTail()),
		S3Glob:    "s3://" + s3Bucket + "/" + c.ID() + "/" + c.globTail(), Objects: objects}
}

// expectedRow is one line of a tenant's expected*.jsonl.
type expectedRow struct {
	Tenant         string  `json:"tenant"`
	Queue          string  `json:"queue"`
	Partition      string  `json:"partition"`
	Offset         int64   `json:"offset"`
	TransactionID  string  `json:"transactionId"`
	Ts             string  `json:"ts"`
	TsUs           int64   `json:"ts_us"`
	Dt             string  `json:"dt"`
	Hour           string  `json:"hour"`
	PayloadRaw     string  `json:"payload_raw"`
	PayloadJSONL   *string `json:"payload_jsonl"`
	PayloadParquet *string `json:"payload_parquet"`
}

// jsonlPayload is the payload text of r's JSONL line, by lakeformat's own
// rendering (AppendLine): the stored text with raw line breaks as spaces,
// a JSON string for a payload that is not valid JSON; nil when the stored
// payload is empty (the line holds null).
func jsonlPayload(r *lakeformat.Record) (*string, error) {
	line := lakeformat.AppendLine(nil, r)
	if _, err := lakeformat.ParseLine(line); err != nil {
		return nil, err
	}
	if len(r.Payload) == 0 {
		return nil, nil
	}
	bare := *r
	bare.Payload = nil
	head := len(lakeformat.AppendLine(nil, &bare)) - len("null}\n")
	s := string(line[head : len(line)-len("}\n")])
	return &s, nil
}

// parquetPayloads are the payload column values of recs (one queue's, in
// any order) as lakeformat's Parquet encoder writes them, read back with
// its decoder: the stored text for valid JSON, line breaks kept; nil for
// an empty payload (a null value).
func parquetPayloads(tenant, queue string, recs []lakeformat.Record) (map[partOff]*string, error) {
	sorted := slices.Clone(recs)
	slices.SortFunc(sorted, func(a, b lakeformat.Record) int {
		if lakeformat.Less(&a, &b) {
			return -1
		}
		return 1
	})
	var buf bytes.Buffer
	enc, err := lakeformat.NewEncoder(&buf, lakeformat.Options{Format: lakeformat.Parquet, Codec: lakeformat.Zstd, Tenant: tenant, Queue: queue})
	if err != nil {
		return nil, err
	}
	for i := range sorted {
		if err := enc.Add(&sorted[i]); err != nil {
			return nil, err
		}
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	pf, err := lakeformat.DecodeParquet(buf.Bytes())
	if err != nil {
		return nil, err
	}
	out := map[partOff]*string{}
	for _, r := range pf.Records {
		if len(r.Payload) == 0 {
			out[partOff{r.Partition, r.Offset}] = nil
			continue
		}
		s := string(r.Payload)
		out[partOff{r.Partition, r.Offset}] = &s
	}
	return out, nil
}

// expectations computes a tenant's expected rows from its records fetched
// back from the broker, sorted by queue, partition and offset.
func expectations(tenant string, recs []record) ([]expectedRow, error) {
	byQueue := map[string][]lakeformat.Record{}
	for _, r := range recs {
		byQueue[r.Queue] = append(byQueue[r.Queue], r.Record)
	}
	pq := map[string]map[partOff]*string{}
	for q, rs := range byQueue {
		m, err := parquetPayloads(tenant, q, rs)
		if err != nil {
			return nil, fmt.Errorf("queue %s: parquet payloads: %w", q, err)
		}
		pq[q] = m
	}
	rows := make([]expectedRow, 0, len(recs))
	for i := range recs {
		r := &recs[i]
		jp, err := jsonlPayload(&r.Record)
		if err != nil {
			return nil, err
		}
		t := time.UnixMicro(r.Ts).UTC()
		rows = append(rows, expectedRow{Tenant: tenant, Queue: r.Queue, Partition: r.Partition, Offset: r.Offset,
			TransactionID: r.TransactionID, Ts: lakeformat.FormatTs(r.Ts), TsUs: r.Ts, Dt: t.Format("2006-01-02"),
			Hour: t.Format("15"), PayloadRaw: string(r.Payload), PayloadJSONL: jp, PayloadParquet: pq[r.Queue][partOff{r.Partition, r.Offset}]})
	}
	slices.SortFunc(rows, func(a, b expectedRow) int {
		switch {
		case a.Queue != b.Queue:
			return cmpStr(a.Queue, b.Queue)
		case a.Partition != b.Partition:
			return cmpStr(a.Partition, b.Partition)
		}
		return int(a.Offset - b.Offset)
	})
	return rows, nil
}

// lastStamps is each queue's last stamp in rows.
func lastStamps(rows []expectedRow) map[string]int64 {
	last := map[string]int64{}
	for _, w := range rows {
		last[w.Queue] = max(last[w.Queue], w.TsUs)
	}
	return last
}

// dtsOf is the dt values of rows, sorted.
func dtsOf(rows []expectedRow) []string {
	var dts []string
	for _, w := range rows {
		if !slices.Contains(dts, w.Dt) {
			dts = append(dts, w.Dt)
		}
	}
	slices.Sort(dts)
	return dts
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// writeJSONL writes rows, one JSON object a line, without HTML escaping.
func writeJSONL(path string, rows []expectedRow) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range rows {
		if err := enc.Encode(&rows[i]); err != nil {
			return err
		}
	}
	return writeAtomic(path, buf.Bytes())
}

func writeJSON(path string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return writeAtomic(path, buf.Bytes())
}

// writeAtomic writes a file whole or not at all: the runner takes a
// lakes.json as the sign of a finished generation.
func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
