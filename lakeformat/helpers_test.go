package lakeformat_test

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
	"unicode/utf8"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/lakeformat/internal/gen"
)

// encode encodes records into one object of options o.
func encode(t testing.TB, o lakeformat.Options, records []lakeformat.Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := gen.Encode(&buf, o, records); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// decompress undoes a JSONL codec with readers independent of lakeformat's own.
func decompress(t testing.TB, b []byte, c lakeformat.Codec) []byte {
	t.Helper()
	var r io.Reader
	switch c {
	case lakeformat.None:
		return b
	case lakeformat.Zstd:
		d, err := zstd.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		r = d
	case lakeformat.Gzip:
		g, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		r = g
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// asWritten is the payload text an object holds for stored payload p, worked
// out without lakeformat's code: nil for none (and, in JSONL, for the text
// null), the bytes for valid JSON in valid UTF-8 (line breaks as spaces in
// JSONL), and otherwise a JSON string, which the caller compares by value.
func asWritten(p []byte, jsonl bool) (text []byte, isString bool) {
	if len(p) == 0 || jsonl && string(p) == "null" {
		return nil, false
	}
	if json.Valid(p) && utf8.Valid(p) {
		if jsonl {
			p = bytes.ReplaceAll(bytes.ReplaceAll(p, []byte("\n"), []byte(" ")), []byte("\r"), []byte(" "))
		}
		return p, false
	}
	return []byte(string([]rune(string(p)))), true // each invalid byte as U+FFFD
}

// assertRecords checks that decoded records are the originals as the format
// writes them.
func assertRecords(t testing.TB, got, want []lakeformat.Record, jsonl bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Partition != w.Partition || g.Offset != w.Offset || g.TransactionID != w.TransactionID || g.Ts != w.Ts {
			t.Fatalf("record %d: got %q/%d/%q/%d, want %q/%d/%q/%d", i,
				g.Partition, g.Offset, g.TransactionID, g.Ts, w.Partition, w.Offset, w.TransactionID, w.Ts)
		}
		text, isString := asWritten(w.Payload, jsonl)
		if !isString {
			if !bytes.Equal(g.Payload, text) {
				t.Fatalf("record %d: payload %q, want %q", i, g.Payload, text)
			}
			continue
		}
		var s string
		if err := json.Unmarshal(g.Payload, &s); err != nil || s != string(text) {
			t.Fatalf("record %d: payload %q (%v), want the JSON string of %q", i, g.Payload, err, text)
		}
	}
}
