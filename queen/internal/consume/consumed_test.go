package consume_test

import (
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// TestStreamAckSettlesWhatTheWorkerConsumed: the streaming SDK orders a
// batch by the record's millisecond, then the message id's text, and acks
// the last message of its order with the count it consumed. Three records
// of one entry (one millisecond) whose ids run against their offsets: the
// SDK's last is offset 0. Acked as an offset commit, that would settle
// offset 0 alone and hand offsets 1 and 2 out again, counted twice; with
// the count, the cycle settles all three. A count that stops between two
// such records (a gate) cannot be an offset commit and is refused whole.
func TestStreamAckSettlesWhatTheWorkerConsumed(t *testing.T) {
	e := txnEnv(t)
	op := queuelog.PushOp{Tenant: tenant}
	for i, id := range []byte{0xc0, 0xb0, 0xa0} { // offset 0 has the highest id
		op.Items = append(op.Items, queuelog.PushItem{Queue: "sdk", Partition: "p", MessageID: [16]byte{id}, Dedup: true,
			TransactionID: string(rune('x' + i)), Payload: []byte(`1`)})
	}
	if _, _, err := queuelog.Push(e.ctx(), e.shard, op); err != nil {
		t.Fatal(err)
	}
	cycle := func(res consume.PopResult, txid string, count int) raftlog.Result {
		t.Helper()
		ack := consume.TxnOp{Tenant: tenant, Acks: []consume.AckItem{{TransactionID: txid, PartitionUID: res.Parts[0].UID,
			Group: "__QUEUE_MODE__", LeaseID: res.LeaseID}}, Counts: []int{count}, Release: true}
		r, err := e.shard.Propose(e.ctx(), raftlog.Command{Ops: []raftlog.Op{ack.Op()}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	// A gate that allowed only the SDK's first (offset 2, id a0): exactly
	// that settles, offsets 0 and 1 below it stay unconsumed and, the
	// lease released, are delivered again.
	res := e.pop(consume.PopRequest{Queue: "sdk", Batch: 10})
	if n := len(res.Parts[0].Messages); n != 3 {
		t.Fatalf("popped %d, want 3", n)
	}
	if r := cycle(res, "z", 1); !r.Applied() {
		_, why, _ := consume.DecodeTxnRollback(r.Ops[0])
		t.Fatalf("the gate's cycle rolled back: %s", why)
	}
	rest := e.pop(consume.PopRequest{Queue: "sdk", Batch: 10})
	if got := strings.Join(txids(rest), ","); got != "x#2,y#2" {
		t.Fatalf("after the gate's cycle the queue hands out %s, want x#2,y#2 (offsets 0 and 1, again)", got)
	}
	// The rest, named by the SDK's last (offset 0, after offset 1 in its
	// order): both settle.
	if r := cycle(rest, "x", 2); !r.Applied() {
		_, why, _ := consume.DecodeTxnRollback(r.Ops[0])
		t.Fatalf("the rest's cycle rolled back: %s", why)
	}
	e.push("sdk", "p", 100, 1) // one more, so a pop answers at once
	if got := strings.Join(txids(e.pop(consume.PopRequest{Queue: "sdk", Batch: 10})), ","); got != "p-100#1" {
		t.Fatalf("after the cycles the queue hands out %s, want only the new message", got)
	}
	// A retry of an applied cycle settles nothing new.
	if r := cycle(rest, "x", 2); r.Applied() {
		t.Fatal("the retried cycle applied")
	}
}
