package lakeformat_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/queen-mq/queen-go/lakeformat"
)

var payloadSeeds = []string{
	"", `42.00`, `{"a":1}`, "{\n\"a\": [1, 2]\r\n}", `{not json`, "\xff\xfe", `"s"`, ` null `, `[1,2`,
	`{"a":"\u00e9"}`, "\"line\nbreak\"", `1e5`, `-`, `{"a":"\ud800"}`, "\u2028", "[[[[[[[[[[]]]]]]]]]]",
}

// FuzzJSONLLine: whatever the payload and names, a line is one valid JSON
// object with the five fields in order, ends with its only newline, and
// parses back to the record with its payload as written.
func FuzzJSONLLine(f *testing.F) {
	for i, p := range payloadSeeds {
		f.Add([]byte(p), "cust-1", "tx-1", int64(i), int64(1791009457501942))
	}
	f.Fuzz(func(t *testing.T, payload []byte, partition, txid string, offset, ts int64) {
		r := lakeformat.Record{Partition: partition, Offset: offset, TransactionID: txid, Ts: ts, Payload: payload}
		if r.Validate() != nil {
			return
		}
		line := lakeformat.AppendLine(nil, &r)
		if bytes.IndexByte(line, '\n') != len(line)-1 || bytes.IndexByte(line, '\r') >= 0 {
			t.Fatalf("line %q is not one line", line)
		}
		if !json.Valid(line) || !utf8.Valid(line) {
			t.Fatalf("line %q is not valid JSON in UTF-8", line)
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		var keys []string
		if _, err := dec.Token(); err != nil {
			t.Fatal(err)
		}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k.(string))
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				t.Fatal(err)
			}
		}
		if want := []string{"partition", "offset", "transactionId", "ts", "payload"}; !equalStrings(keys, want) {
			t.Fatalf("fields %v, want %v", keys, want)
		}
		got, err := lakeformat.ParseLine(line)
		if err != nil {
			t.Fatalf("ParseLine(%q): %v", line, err)
		}
		assertRecords(t, []lakeformat.Record{got}, []lakeformat.Record{r}, true)
	})
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzParseLine: any bytes are refused or read as a record whose line is
// exactly those bytes.
func FuzzParseLine(f *testing.F) {
	for _, l := range []string{specLines[:bytes.IndexByte([]byte(specLines), '\n')+1], "{}\n", "", `{"partition":"p"`} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := lakeformat.ParseLine(line)
		if err != nil {
			return
		}
		if again := lakeformat.AppendLine(nil, &r); !bytes.Equal(again, line) {
			t.Fatalf("ParseLine accepted %q, which renders as %q", line, again)
		}
	})
}

// FuzzParquetRoundTrip: records of any payload and names come back from a
// Parquet object as written, with either codec.
func FuzzParquetRoundTrip(f *testing.F) {
	for i, p := range payloadSeeds {
		f.Add([]byte(p), []byte(payloadSeeds[(i+1)%len(payloadSeeds)]), "p", "q-é", "tx", uint8(i))
	}
	f.Fuzz(func(t *testing.T, p1, p2 []byte, part1, part2, txid string, n uint8) {
		if part2 < part1 {
			part1, part2 = part2, part1
		}
		var recs []lakeformat.Record
		for i := 0; i < 1+int(n%5); i++ {
			recs = append(recs, lakeformat.Record{Partition: part1, Offset: int64(i), TransactionID: txid, Ts: int64(i) * 1000, Payload: p1})
		}
		if part2 != part1 {
			recs = append(recs, lakeformat.Record{Partition: part2, Offset: 0, TransactionID: txid + "2", Ts: 5, Payload: p2})
		}
		for i := range recs {
			if recs[i].Validate() != nil {
				return
			}
		}
		for _, c := range []lakeformat.Codec{lakeformat.Zstd, lakeformat.Snappy} {
			pf, err := lakeformat.DecodeParquet(encode(t, lakeformat.Options{Format: lakeformat.Parquet, Codec: c, Queue: "q", Tenant: "t"}, recs))
			if err != nil {
				t.Fatal(err)
			}
			assertRecords(t, pf.Records, recs, false)
			for _, r := range pf.Records {
				if len(r.Payload) > 0 && !utf8.Valid(r.Payload) {
					t.Fatalf("payload %q in Parquet is not UTF-8", r.Payload)
				}
			}
		}
	})
}
