package lakeformat_test

import (
	"bytes"
	"testing"

	"github.com/queen-mq/queen-go/lakeformat"
)

// specRecords are the three records of the "Try it" run in s3-sink.md, in
// the lake's order.
func specRecords() []lakeformat.Record {
	const ts = 1791009457501942 // 2026-10-03T06:37:37.501942Z
	return []lakeformat.Record{
		{Partition: "cust-1", Offset: 0, TransactionID: "01a1007b-855d-7001-8107-adfdabd3e51c", Ts: ts,
			Payload: []byte(`{"order":1,"status":"new","total":42.00}`)},
		{Partition: "cust-1", Offset: 1, TransactionID: "01a1007b-855d-7003-ab83-e480f30b0bb6", Ts: ts,
			Payload: []byte(`{"order":1,"status":"paid","total":42.00}`)},
		{Partition: "cust-2", Offset: 0, TransactionID: "01a1007b-855d-7002-aa32-19bf977724d0", Ts: ts,
			Payload: []byte(`{"order":2,"status":"new","total":17.50}`)},
	}
}

// The JSONL lines as s3-sink.md prints them, byte for byte.
const specLines = `{"partition":"cust-1","offset":0,"transactionId":"01a1007b-855d-7001-8107-adfdabd3e51c","ts":"2026-10-03T06:37:37.501942Z","payload":{"order":1,"status":"new","total":42.00}}
{"partition":"cust-1","offset":1,"transactionId":"01a1007b-855d-7003-ab83-e480f30b0bb6","ts":"2026-10-03T06:37:37.501942Z","payload":{"order":1,"status":"paid","total":42.00}}
{"partition":"cust-2","offset":0,"transactionId":"01a1007b-855d-7002-aa32-19bf977724d0","ts":"2026-10-03T06:37:37.501942Z","payload":{"order":2,"status":"new","total":17.50}}
`

func TestSpecExampleJSONLLines(t *testing.T) {
	for _, codec := range []lakeformat.Codec{lakeformat.None, lakeformat.Zstd, lakeformat.Gzip} {
		t.Run(codec.String(), func(t *testing.T) {
			obj := encode(t, lakeformat.Options{Format: lakeformat.JSONL, Codec: codec}, specRecords())
			plain := decompress(t, obj, codec)
			if string(plain) != specLines {
				t.Fatalf("lines differ from the spec:\n got: %s\nwant: %s", plain, specLines)
			}
		})
	}
}

func TestSpecExampleWindow(t *testing.T) {
	keys, err := lakeformat.NewKeys("queen")
	if err != nil {
		t.Fatal(err)
	}
	w := lakeformat.Window{Tenant: "00000000-0000-0000-0000-000000000001", Queue: "orders", K: 1,
		TStart: 1791007200000000, TEnd: 1791009458377855}
	objs, err := lakeformat.EncodeWindow(keys, w, lakeformat.AlignHour, lakeformat.Merged,
		lakeformat.Options{Format: lakeformat.JSONL, Codec: lakeformat.Zstd}, specRecords())
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 {
		t.Fatalf("%d objects, want 1", len(objs))
	}
	const wantKey = "queen/tenant=00000000-0000-0000-0000-000000000001/queue=orders/dt=2026-10-03/hour=06/w-0000000001-1791007200000000-1791009458377855.jsonl.zst"
	if objs[0].Key != wantKey {
		t.Errorf("key %s, want %s", objs[0].Key, wantKey)
	}
	if got := decompress(t, objs[0].Body, lakeformat.Zstd); !bytes.Equal(got, []byte(specLines)) {
		t.Errorf("body differs from the spec:\n%s", got)
	}
	if objs[0].Records != 3 || objs[0].MinTs != 1791009457501942 || objs[0].MaxTs != 1791009457501942 {
		t.Errorf("object %+v: want 3 records, min and max ts 1791009457501942", objs[0])
	}
}
