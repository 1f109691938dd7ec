package consume

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/queen-mq/queen-go/queen/internal/familytest"
)

// FuzzDecodeOp: any bytes decode to an op that encodes back to the same
// bytes, or to an error; never a panic.
func FuzzDecodeOp(f *testing.F) {
	pop := PopOp{Tenant: "t", Queue: "q", Group: "g", Partition: "p", Start: 7, Batch: 3, MaxPartitions: 2,
		LeaseMicros: 1e6, SkewMicros: 5e5, LeaseID: "l", AutoAck: true, Mode: ModeAll, From: 42}
	conflate := PopOp{Tenant: "t", Queue: "q", Group: "g", Batch: 1, MaxPartitions: 1, LeaseID: "l", Conflate: true}
	ack := AckOp{Tenant: "t", SkewMicros: 1, Items: []AckItem{{TransactionID: "x", PartitionUID: 9, Group: "g", LeaseID: "l", Status: StatusDLQ, Error: "e"}}}
	ext := ExtendOp{Tenant: "t", LeaseID: "l", Micros: 3, SkewMicros: 4}
	txn := TxnOp{Tenant: "t", SkewMicros: 2, RequiredLeases: []string{"l"}, Acks: ack.Items}
	cycle := TxnOp{Tenant: "t", Acks: ack.Items, Release: true, Counts: []int{3}}
	counted := TxnOp{Tenant: "t", Acks: ack.Items, Counts: []int{0}}
	seek := SeekOp{Tenant: "t", Queue: "q", Group: "g", Partition: "p", ToEnd: true, To: 9}
	del := DeleteOp{Tenant: "t", Queue: "q", Group: "g"}
	keep := DeleteOp{Tenant: "t", Group: "g", KeepSubscription: true}
	subscribe := SubscriptionOp{Tenant: "t", Group: "g", From: 1e15}
	drop := DropQueueOp{Tenant: "t", Queue: "q"}
	delMsg := DeleteMessageOp{Tenant: "t", Queue: "q", Partition: "p", UID: 3, Offset: 7, TransactionID: "x"}
	rep := ReplayOp{Tenant: "t", ID: "i"}
	purge := PurgeOp{Tenant: "t", Queue: "q"}
	pos := PositionOp{Tenant: "t", Items: []Position{{Queue: "q", Group: "g", Partition: "p", Offset: Forget, Metadata: "m", Mode: ModeAll}}}
	familytest.FuzzOps(f, decodeOp, nil, pop.Op().Data, ack.Op().Data, ext.Op().Data, txn.Op().Data, seek.Op().Data, del.Op().Data,
		rep.Op().Data, purge.Op().Data, pos.Op().Data, keep.Op().Data, subscribe.Op().Data, drop.Op().Data, conflate.Op().Data, delMsg.Op().Data,
		cycle.Op().Data, counted.Op().Data, []byte{1}, []byte{})
}

// FuzzDecodeGP: stored group state decodes to what encodes back, or fails.
func FuzzDecodeGP(f *testing.F) {
	g := gpState{Cursor: 3, LeaseID: "l", End: 9, Hold: 10, Msgs: []msgState{{Offset: 3, Attempts: 2, Failures: 1, Pending: true, NotBefore: 5}, {Offset: 5, Acked: true}}}
	f.Add(g.encode())
	f.Add([]byte{stateVersion})
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := decodeGP(b)
		if err != nil {
			return
		}
		if again := g.encode(); !bytes.Equal(again, b) {
			g2, _ := decodeGP(again)
			if !reflect.DeepEqual(g, g2) {
				t.Fatalf("%x decoded to %+v, re-encoded differently", b, g)
			}
		}
	})
}

// FuzzDecodePopResult: a pop's answer decodes or fails, never panics, and
// round-trips.
func FuzzDecodePopResult(f *testing.F) {
	r := PopResult{LeaseID: "l", End: 5, NextAt: 6, Conflation: true, Parts: []Popped{{Partition: "p", UID: 2, Messages: []Delivered{{Attempt: 1}}}}}
	r.Parts[0].Messages[0].Payload = []byte(`{"a":1}`)
	r.Parts[0].Messages[0].TransactionID = "x"
	plain := appendPopResult(nil, &r)
	r.Parts[0].Messages[0].ProducerSub = "svc-orders" // the subject a JWT push stamped
	familytest.FuzzRoundTrip(f, DecodePopResult, func(r PopResult) []byte { return appendPopResult(nil, &r) }, plain, appendPopResult(nil, &r))
}

// FuzzDecodeLease: a stored lease row (with its length, or from before it
// was kept) decodes to what encodes and decodes back the same, or fails.
func FuzzDecodeLease(f *testing.F) {
	l := leaseRow{Tenant: "t", Queue: "q", Group: "g", Partitions: []string{"a", "b"}, Micros: 6e7}
	f.Add(l.encode())
	old := l.encode()
	f.Add(old[:len(old)-4]) // a row written before the length
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := decodeLease(b)
		if err != nil {
			return
		}
		if l2, err := decodeLease(l.encode()); err != nil || !reflect.DeepEqual(l, l2) {
			t.Fatalf("%x decoded to %+v, which round-trips to %+v %v", b, l, l2, err)
		}
	})
}

// FuzzDecodeAckAnswers: any bytes decode to answers that encode back to
// the same bytes (every flag kept, Noop too), or to an error.
func FuzzDecodeAckAnswers(f *testing.F) {
	familytest.FuzzRoundTrip(f, DecodeAckAnswers, func(as []AckAnswer) []byte { return appendAckAnswers(nil, as) },
		appendAckAnswers(nil, []AckAnswer{{OK: true, Noop: true}, {Error: "e", Released: true, DLQ: true}}), []byte{1, 15, 0}, []byte{})
}
