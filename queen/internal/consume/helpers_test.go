package consume_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

const tenant = "00000000-0000-0000-0000-000000000001"

// env is one node running the consuming family, with a Consumer on it.
type env struct {
	t     testing.TB
	shard *raftlog.Shard
	c     *consume.Consumer
}

func start(t testing.TB) *env {
	t.Helper()
	cl := raftlogtest.New(t, 1, consume.Appliers())
	cl.StartAll()
	_, s := cl.Leader()
	return &env{t: t, shard: s, c: &consume.Consumer{Shard: s, Skew: 0}}
}

// startWith starts a node with n records on queue/partition (push from 0).
func startWith(t testing.TB, queue, partition string, n int) *env {
	t.Helper()
	e := start(t)
	e.push(queue, partition, 0, n)
	return e
}

func (e *env) ctx() context.Context { return raftlogtest.Ctx(e.t, 30*time.Second) }

// push appends n records to queue/partition with transaction ids
// "<partition>-<i>" (i from first) and payloads {"i":i}.
func (e *env) push(queue, partition string, first, n int) {
	e.t.Helper()
	op := queuelog.PushOp{Tenant: tenant}
	for i := first; i < first+n; i++ {
		var id [16]byte
		copy(id[:], fmt.Sprintf("%s-%d", partition, i))
		op.Items = append(op.Items, queuelog.PushItem{Queue: queue, Partition: partition, MessageID: id,
			TransactionID: fmt.Sprintf("%s-%d", partition, i), Dedup: true, Payload: []byte(fmt.Sprintf(`{"i":%d}`, i))})
	}
	if _, _, err := queuelog.Push(e.ctx(), e.shard, op); err != nil {
		e.t.Fatalf("push: %v", err)
	}
}

func (e *env) configure(queue string, opts map[string]any) {
	e.t.Helper()
	b, _ := json.Marshal(opts)
	if _, err := queuelog.Configure(e.ctx(), e.shard, queuelog.ConfigureOp{Tenant: tenant, Queue: queue, Options: b}); err != nil {
		e.t.Fatalf("configure: %v", err)
	}
}

// pop pops with defaults filled in (batch 1, one partition, mode all).
func (e *env) pop(r consume.PopRequest) consume.PopResult {
	e.t.Helper()
	r.Tenant = tenant
	if r.Batch == 0 {
		r.Batch = 1
	}
	if r.MaxPartitions == 0 {
		r.MaxPartitions = 1
	}
	if r.Group == "" {
		r.Group, r.Mode = "__QUEUE_MODE__", consume.ModeAll
	}
	res, err := e.c.Pop(e.ctx(), r)
	if err != nil {
		e.t.Fatalf("pop %+v: %v", r, err)
	}
	return res
}

// txids lists what a pop delivered as "<txid>#<attempt>", in order.
func txids(res consume.PopResult) []string {
	var out []string
	for _, p := range res.Parts {
		for _, m := range p.Messages {
			out = append(out, fmt.Sprintf("%s#%d", m.TransactionID, m.Attempt))
		}
	}
	return out
}

// ack settles every message of res with status, fenced by its lease, and
// returns the answers.
func (e *env) ack(res consume.PopResult, group string, status byte, fenced bool) []consume.AckAnswer {
	e.t.Helper()
	if group == "" {
		group = "__QUEUE_MODE__"
	}
	var items []consume.AckItem
	for _, p := range res.Parts {
		for _, m := range p.Messages {
			it := consume.AckItem{TransactionID: m.TransactionID, PartitionUID: p.UID, Group: group, Status: status}
			if fenced {
				it.LeaseID = res.LeaseID
			}
			items = append(items, it)
		}
	}
	out, err := e.c.Ack(e.ctx(), tenant, items)
	if err != nil {
		e.t.Fatalf("ack: %v", err)
	}
	return out
}

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

func seq(partition string, from, to int, attempt int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("%s-%d#%d", partition, i, attempt))
	}
	return out
}

func (e *env) letters(queue, group string) []consume.DeadLetter {
	e.t.Helper()
	got, err := e.shard.LocalRead(func(v *raftlog.View) (any, error) {
		return consume.DeadLetters(v, tenant, queue, group, 0)
	})
	if err != nil {
		e.t.Fatalf("dead letters: %v", err)
	}
	return got.([]consume.DeadLetter)
}
