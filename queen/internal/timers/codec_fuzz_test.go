package timers

import (
	"bytes"
	"testing"

	"github.com/queen-mq/queen-go/queen/internal/familytest"
)

// FuzzDecodeOp: any bytes decode to a call (that passes Check) or a fire
// that encodes back to the same bytes, or to an error; never a panic.
func FuzzDecodeOp(f *testing.F) {
	c := Call{Tenant: "00000000-0000-0000-0000-000000000001", Ops: []Op{
		{Kind: KindSchedule, Queue: "q", Partition: "p", Key: "k", Txn: "x", MessageID: [16]byte{1}, DelayMicros: -5, Payload: []byte(`{}`), Sealed: true},
		{Kind: KindCancel, Queue: "q", Key: "j"},
		{Kind: KindReschedule, Queue: "r", Partition: "Default", Key: "k", DelayMicros: 1e6}}}
	familytest.FuzzOps(f, decodeOp, checkOp, c.Op().Data, FireOp{Limit: 3}.Op().Data, []byte{codecVersion, tagFire}, []byte{})
}

// FuzzDecodeStored: a stored row, a due key and the answers decode or
// fail, never panic; a row that decodes encodes back to its bytes.
func FuzzDecodeStored(f *testing.F) {
	row := Timer{Partition: "p", Txn: "x", MessageID: [16]byte{2}, Payload: []byte(`1`), Created: 1, DeliverAt: 2, Due: 3, Attempts: 1, LastError: "e"}
	f.Add(row.encode())
	f.Add(dueKey(5, "t", "q", "k"))
	f.Add(appendAnswers(nil, []Answer{{Status: StatusScheduled, Txn: "x", DeliverAt: 9}}))
	f.Add(appendFire(nil, FireAnswer{Fired: 1, More: true}))
	f.Fuzz(func(t *testing.T, b []byte) {
		if r, err := decodeTimer("q", "k", b); err == nil && !bytes.Equal(r.encode(), b) {
			t.Fatalf("%x decoded to %+v, which encodes to %x", b, r, r.encode())
		}
		if due, tenant, queue, key, ok := parseDue(b); ok && !bytes.Equal(dueKey(due, tenant, queue, key), b) {
			t.Fatalf("due key %x parsed to %d %q %q %q", b, due, tenant, queue, key)
		}
		_, _ = DecodeAnswers(b)
		_, _ = DecodeFire(b)
	})
}
