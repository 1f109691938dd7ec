package consume_test

import (
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// txnEnv runs the consuming family beside the KV store, as the broker does.
func txnEnv(t *testing.T) *env {
	appliers := kvstore.Appliers()
	for k, v := range consume.Appliers() {
		appliers[k] = v
	}
	cl := raftlogtest.New(t, 1, appliers)
	cl.StartAll()
	_, s := cl.Leader()
	return &env{t: t, shard: s, c: &consume.Consumer{Shard: s}}
}

// txn proposes an ack of res's first message, a strict push of txid to
// queue out and a KV incr as one entry.
func (e *env) txn(res consume.PopResult, required []string, txid string) raftlog.Result {
	e.t.Helper()
	m := res.Parts[0].Messages[0]
	ack := consume.TxnOp{Tenant: tenant, RequiredLeases: required, Acks: []consume.AckItem{{TransactionID: m.TransactionID,
		PartitionUID: res.Parts[0].UID, Group: "__QUEUE_MODE__", LeaseID: res.LeaseID}}}
	push := queuelog.PushOp{Tenant: tenant, Items: []queuelog.PushItem{{Queue: "out", Partition: "p", TransactionID: txid,
		MessageID: [16]byte{byte(len(txid))}, Dedup: true, Strict: true, Payload: []byte(`{"from":"txn"}`)}}}
	kv, err := kvstore.Encode(tenant, []kvstore.Op{{Op: kvstore.OpIncr, NS: "n", Key: "count", Delta: "1", Forever: true}})
	if err != nil {
		e.t.Fatal(err)
	}
	r, err := e.shard.Propose(e.ctx(), raftlog.Command{Ops: []raftlog.Op{ack.Op(), push.Op(), kv}})
	if err != nil {
		e.t.Fatalf("transaction: %v", err)
	}
	return r
}

func (e *env) hwm(queue, partition string) int64 {
	got, err := e.shard.LocalRead(func(v *raftlog.View) (any, error) { return queuelog.Partition(v, tenant, queue, partition) })
	if err != nil {
		return 0
	}
	return got.(queuelog.PartitionInfo).LastOffset + 1
}

func TestATransactionAppliesWholeOrNotAtAll(t *testing.T) {
	e := txnEnv(t)
	e.push("in", "p", 0, 2)
	res := e.pop(consume.PopRequest{Queue: "in"})
	if r := e.txn(res, nil, "t-1"); !r.Applied() {
		t.Fatalf("the first transaction rolled back: %+v", r)
	}
	if e.hwm("out", "p") != 1 {
		t.Fatal("the transaction's push is missing")
	}
	// The same transaction again (a client's retry): its ack settles
	// nothing (the message was committed before it) and is refused, so
	// nothing of it applies, the push and the incr neither.
	r := e.txn(res, nil, "t-1")
	if r.Applied() || r.Aborted != 0 {
		t.Fatalf("a retried transaction applied: %+v", r)
	}
	if i, why, err := consume.DecodeTxnRollback(r.Ops[0]); err != nil || i != 0 || !strings.Contains(why, "before this transaction") {
		t.Fatalf("rollback: %d %q %v", i, why, err)
	}
	if e.hwm("out", "p") != 1 {
		t.Fatal("a rolled-back transaction pushed")
	}
	// A fresh ack with a duplicate push id rolls back at the push: the ack
	// is undone with it, so the message comes back.
	next := e.pop(consume.PopRequest{Queue: "in"})
	r = e.txn(next, nil, "t-1")
	if r.Applied() || r.Aborted != 1 {
		t.Fatalf("a duplicate push did not roll back: %+v", r)
	}
	if e.hwm("out", "p") != 1 {
		t.Fatal("a rolled-back transaction pushed")
	}
	a := e.ack(next, "", consume.StatusCompleted, true)
	if !a[0].OK {
		t.Fatalf("the rolled-back transaction's ack stuck: %+v", a[0])
	}
	got, err := kvstore.New(e.shard).Do(e.ctx(), tenant, []kvstore.Op{{Op: kvstore.OpGet, NS: "n", Key: "count"}})
	if err != nil || string(got.Results[0].Value) != "1" {
		t.Fatalf("the counter after one committed transaction: %+v %v", got, err)
	}
}

func TestATransactionWhoseLeaseExpiredIsRefused(t *testing.T) {
	e := txnEnv(t)
	e.push("in", "p", 0, 1)
	res := e.pop(consume.PopRequest{Queue: "in", Lease: 100 * time.Millisecond})
	// Wait for the lease's end the way a consumer would: a pop parks until it.
	again := e.pop(consume.PopRequest{Queue: "in", Wait: 10 * time.Second})
	if len(again.Parts) == 0 {
		t.Fatal("the lease did not expire")
	}
	r := e.txn(res, []string{res.LeaseID}, "t-2")
	if r.Applied() || r.Aborted != 0 {
		t.Fatalf("a transaction on an expired lease applied: %+v", r)
	}
	if i, why, _ := consume.DecodeTxnRollback(r.Ops[0]); i != -1 || !strings.Contains(why, res.LeaseID) {
		t.Fatalf("rollback names %d %q", i, why)
	}
}

// A transaction's acks commit like a call's: acking the later message first
// commits the earlier, and the earlier's own ack in the same entry is not
// a refusal (it was not committed before the entry).
func TestATransactionsAcksCommitInAnyOrder(t *testing.T) {
	e := txnEnv(t)
	e.push("in", "p", 0, 3)
	res := e.pop(consume.PopRequest{Queue: "in", Batch: 2})
	var acks []consume.AckItem
	for _, i := range []int{1, 0} {
		m := res.Parts[0].Messages[i]
		acks = append(acks, consume.AckItem{TransactionID: m.TransactionID, PartitionUID: res.Parts[0].UID, Group: "__QUEUE_MODE__", LeaseID: res.LeaseID})
	}
	op := consume.TxnOp{Tenant: tenant, Acks: acks}
	r, err := e.shard.Propose(e.ctx(), raftlog.Command{Ops: []raftlog.Op{op.Op()}})
	if err != nil || !r.Applied() {
		t.Fatalf("transaction acking p-1 then p-0: %+v %v", r, err)
	}
	got, err := consume.DecodeAckAnswers(r.Ops[0])
	if err != nil || len(got) != 2 || !got[0].OK || !got[1].OK || !got[1].Noop {
		t.Fatalf("answers %+v %v: p-1 commits, p-0 is then a noop", got, err)
	}
	equal(t, "after the transaction", txids(e.pop(consume.PopRequest{Queue: "in", Batch: 10})), []string{"p-2#1"})
}
