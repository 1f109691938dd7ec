package traces

import (
	"bytes"
	"testing"

	"github.com/queen-mq/queen-go/queen/internal/familytest"
)

// FuzzDecodeOp: any bytes decode to a record (that passes Check) or a
// sweep that encodes back to the same bytes, or to an error; never a
// panic.
func FuzzDecodeOp(f *testing.F) {
	r := Record{Tenant: "00000000-0000-0000-0000-000000000001", PartitionUID: 7, TransactionID: "t",
		Group: "g", EventType: "info", Names: []string{"a", "b"}, Data: []byte(`{"x":1}`), TTLSeconds: 60}
	full := r.Op().Data
	r.Names, r.PartitionUID, r.TTLSeconds = nil, 1<<63, MaxTTLSeconds
	familytest.FuzzOps(f, decodeOp, checkOp, full, r.Op().Data, SweepOp{Limit: 3}.Op().Data,
		[]byte{codecVersion, tagSweep}, []byte{codecVersion, tagRecord}, []byte{})
}

// FuzzDecodeStored: a stored row, its key, an index or expiry key and the
// answers decode or fail, never panic; what decodes encodes back to its
// bytes.
func FuzzDecodeStored(f *testing.F) {
	id := newID(5, 1, 0)
	row := rowKey("t", 9, "x", id)
	e := Event{Group: "g", EventType: "info", Names: []string{"n"}, Data: []byte(`1`), ExpiresAt: 10}
	f.Add(row, e.encodeRow())
	f.Add(expiryKey(10, row), nameValue(9, 10, "x"))
	f.Add(appendRecorded(nil, Recorded{ID: id, ExpiresAt: 10, Known: true, Queue: "q", Partition: "p"}), appendSweep(nil, SweepAnswer{Deleted: 2, More: true}))
	f.Fuzz(func(t *testing.T, k, v []byte) {
		if e, err := decodeRow(k, v); err == nil {
			if !bytes.Equal(e.encodeRow(), v) {
				t.Fatalf("row %x decoded to %+v, which encodes to %x", v, e, e.encodeRow())
			}
			tenant, uid, txid, id, _ := parseRowKey(k[2:])
			if again := rowKey(tenant, uid, txid, id); !bytes.Equal(again[2:], k[2:]) {
				t.Fatalf("row key %x parsed to %q %d %q %x", k, tenant, uid, txid, id)
			}
		}
		if at, row, ok := parseExpiry(k); ok && !bytes.Equal(expiryKey(at, row), k) {
			t.Fatalf("expiry key %x parsed to %d %x", k, at, row)
		}
		if uid, at, txid, ok := parseNameValue(v); ok && !bytes.Equal(nameValue(uid, at, txid), v) {
			t.Fatalf("name value %x parsed to %d %d %q", v, uid, at, txid)
		}
		if a, err := DecodeRecorded(k); err == nil && !bytes.Equal(appendRecorded(nil, a), k) {
			t.Fatalf("recorded answer %x decoded to %+v", k, a)
		}
		if a, err := DecodeSweep(v); err == nil && !bytes.Equal(appendSweep(nil, a), v) {
			t.Fatalf("sweep answer %x decoded to %+v", v, a)
		}
		_, _ = decodeCount("n", v)
	})
}
