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

// combo is one lake: a combination of the sink's format settings.
type combo struct {
	Format, Codec, Layout, Align string
}

// ID names the lake, its prefix and its sink (QUEEN_S3_SINK, so that each
// lake's KV documents start from nothing on the same node).
func (c combo) ID() string { return c.Format + "-" + c.Codec + "-" + c.Layout + "-" + c.Align }

// env is the sink's environment for the lake, beside the common one.
func (c combo) env() []string {
	env := []string{"QUEEN_S3_FORMAT=" + c.Format, "QUEEN_S3_LAYOUT=" + c.Layout, "QUEEN_S3_ALIGN=" + c.Align,
		"QUEEN_S3_PREFIX=" + c.ID(), "QUEEN_S3_SINK=" + c.ID()}
	if c.Format == "parquet" {
		return append(env, "QUEEN_S3_PARQUET_CODEC="+c.Codec)
	}
	return append(env, "QUEEN_S3_COMPRESSION="+c.Codec)
}

// combos are the 20 lakes: JSONL (zstd, gzip, none) and Parquet (zstd,
// snappy), each merged and per-partition, aligned on the hour and the day.
func combos() []combo {
	var out []combo
	for _, fc := range [][2]string{{"jsonl", "zstd"}, {"jsonl", "gzip"}, {"jsonl", "none"}, {"parquet", "zstd"}, {"parquet", "snappy"}} {
		for _, layout := range []string{"merged", "per-partition"} {
			for _, align := range []string{"hour", "day"} {
				out = append(out, combo{fc[0], fc[1], layout, align})
			}
		}
	}
	return out
}

// lakesFile is lakes.json, the contract the readers and the runner read.
type lakesFile struct {
	GeneratedAt  string     `json:"generatedAt"`
	S3Dir        string     `json:"s3dir"`
	Bucket       string     `json:"bucket"`
	AccessKey    string     `json:"access_key"`
	SecretKey    string     `json:"secret_key"`
	Region       string     `json:"region"`
	Tenant       string     `json:"tenant"`
	Lakes        []lakeInfo `json:"lakes"`
	Expected     string     `json:"expected"`
	Records      int        `json:"records"`
	Queues       []string   `json:"queues"`
	DtValues     []string   `json:"dt_values"`
	HourBoundary string     `json:"hour_boundary"`
}

// lakeInfo is one lake of lakes.json.
type lakeInfo struct {
	ID        string `json:"id"`
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

// globTail is the Hive glob of a lake's data objects below its prefix: it
// never reaches the _queen/ sidecars.
func (c combo) globTail() string {
	if c.Align == "day" {
		return "tenant=*/queue=*/dt=*/*"
	}
	return "tenant=*/queue=*/dt=*/hour=*/*"
}

func (c combo) info(s3dir string, objects int) lakeInfo {
	ext := ".parquet"
	if c.Format == "jsonl" {
		ext = map[string]string{"zstd": ".jsonl.zst", "gzip": ".jsonl.gz", "none": ".jsonl"}[c.Codec]
	}
	return lakeInfo{ID: c.ID(), Format: c.Format, Codec: c.Codec, Layout: c.Layout, Align: c.Align, Prefix: c.ID(), Ext: ext,
		FilesGlob: filepath.Join(s3dir, s3Bucket, c.ID(), c.globTail()),
		S3Glob:    "s3://" + s3Bucket + "/" + c.ID() + "/" + c.globTail(), Objects: objects}
}

// expectedRow is one line of expected.jsonl.
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

// expectations computes expected.jsonl's rows from the records fetched back
// from the broker, sorted by queue, partition and offset.
func expectations(recs []record) ([]expectedRow, error) {
	byQueue := map[string][]lakeformat.Record{}
	for _, r := range recs {
		byQueue[r.Queue] = append(byQueue[r.Queue], r.Record)
	}
	pq := map[string]map[partOff]*string{}
	for q, rs := range byQueue {
		m, err := parquetPayloads(defaultTenant, q, rs)
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
		rows = append(rows, expectedRow{Tenant: defaultTenant, Queue: r.Queue, Partition: r.Partition, Offset: r.Offset,
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
