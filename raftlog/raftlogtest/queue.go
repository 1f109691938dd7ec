package raftlogtest

// The helpers below drive the queue log (package queuelog) on a Cluster's
// shards for the tests of raftlog and of queuelog alike.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// Tenant is the tenant of every test queue; BarrierTenant holds the
// partition Barrier pushes to.
const (
	Tenant        = "00000000-0000-0000-0000-000000000001"
	BarrierTenant = "00000000-0000-0000-0000-0000000000ff"
)

// Timeout bounds every wait of a test: generous for -race on two cores.
const Timeout = 60 * time.Second

// Item makes a PushItem with dedup on and the message id MID(txid).
func Item(queue, partition, txid string, payload []byte) queuelog.PushItem {
	return queuelog.PushItem{Queue: queue, Partition: partition, TransactionID: txid, MessageID: MID(txid), Dedup: true, Payload: payload}
}

// MID is the message id Item gives a transaction id.
func MID(txid string) (id [16]byte) {
	copy(id[:], "m:"+txid)
	return id
}

// Push pushes items to Tenant as one entry and fails the test on error.
func Push(t testing.TB, s *raftlog.Shard, items ...queuelog.PushItem) ([]queuelog.PushAnswer, int64) {
	t.Helper()
	answers, stamp, err := queuelog.Push(Ctx(t, Timeout), s, queuelog.PushOp{Tenant: Tenant, Items: items})
	if err != nil {
		t.Fatalf("push: %v", err)
	}
	if len(answers) != len(items) {
		t.Fatalf("push of %d items answered %d", len(items), len(answers))
	}
	return answers, stamp
}

// pushTry bounds one try of PushAsClient. A proposal lost across a change
// of leader (a follower's forwarded proposal is dropped without a word) is
// answered only at its deadline, with ErrTimeout; a client asks again well
// before its own patience, Timeout, runs out.
const pushTry = 5 * time.Second

// PushAsClient pushes op as a client does: after ErrTimeout (outcome
// unknown) or ErrNoLeader (nothing proposed) it asks again with the same
// transaction ids, which dedup makes exactly once, until Timeout.
// unknown reports that an earlier try ended with ErrTimeout, so the answers
// may be the original's (Duplicate); stamp is the answering entry's.
func PushAsClient(t testing.TB, s *raftlog.Shard, op queuelog.PushOp) (answers []queuelog.PushAnswer, stamp int64, unknown bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	for {
		try, cancelTry := context.WithTimeout(ctx, pushTry)
		answers, stamp, err = queuelog.Push(try, s, op)
		cancelTry()
		again := errors.Is(err, raftlog.ErrTimeout) || errors.Is(err, raftlog.ErrNoLeader)
		if !again || ctx.Err() != nil {
			return answers, stamp, unknown, err
		}
		t.Logf("push asked again after: %v", err)
		unknown = unknown || errors.Is(err, raftlog.ErrTimeout)
	}
}

// Propose proposes cmd and fails the test on error.
func Propose(t testing.TB, s *raftlog.Shard, cmd raftlog.Command) raftlog.Result {
	t.Helper()
	res, err := s.Propose(Ctx(t, Timeout), cmd)
	if err != nil {
		t.Fatalf("propose: %v", err)
	}
	return res
}

// Read runs fn on s's applied state and fails the test on error.
func Read[T any](t testing.TB, s *raftlog.Shard, fn func(v *raftlog.View) (T, error)) T {
	t.Helper()
	got, err := s.LocalRead(func(v *raftlog.View) (any, error) { return fn(v) })
	if err != nil {
		t.Fatalf("local read on shard of node: %v", err)
	}
	return got.(T)
}

// ReadErr runs one read on s and returns its error too.
func ReadErr[T any](t testing.TB, s *raftlog.Shard, fn func(v *raftlog.View) (T, error)) (T, error) {
	t.Helper()
	var out T
	_, err := s.LocalRead(func(v *raftlog.View) (any, error) {
		var err error
		out, err = fn(v)
		return nil, err
	})
	return out, err
}

// ReadAll reads every record a partition holds, from its log start.
func ReadAll(t testing.TB, s *raftlog.Shard, queue, partition string) queuelog.Batch {
	t.Helper()
	return Read(t, s, func(v *raftlog.View) (queuelog.Batch, error) {
		b, err := queuelog.ReadRecords(v, Tenant, queue, partition, 0, queuelog.ReadLimits{})
		if errors.Is(err, queuelog.ErrOffsetOutOfRange) {
			return queuelog.ReadRecords(v, Tenant, queue, partition, b.LogStart, queuelog.ReadLimits{})
		}
		return b, err
	})
}

// WaitRecords waits until s has applied offset of the partition.
func WaitRecords(t testing.TB, s *raftlog.Shard, ten, queue, partition string, offset int64) {
	t.Helper()
	if err := queuelog.WaitRecords(Ctx(t, Timeout), s, ten, queue, partition, offset); err != nil {
		t.Fatalf("wait for %s/%s offset %d: %v", queue, partition, offset, err)
	}
}

// Barrier pushes a record through c's leader and waits until every running
// node has applied it, and so every entry committed before it.
func Barrier(t testing.TB, c *Cluster) {
	t.Helper()
	_, s := c.Leader()
	answers, _, err := queuelog.Push(Ctx(t, Timeout), s, queuelog.PushOp{Tenant: BarrierTenant,
		Items: []queuelog.PushItem{{Queue: "b", Partition: "b", Payload: []byte("b")}}})
	if err != nil {
		t.Fatalf("barrier push: %v", err)
	}
	for _, s := range c.Shards {
		WaitRecords(t, s, BarrierTenant, "b", "b", answers[0].Offset)
	}
}

// Dump renders everything the queue log holds for Tenant on s: queues,
// partitions and records, one line each, in a fixed order.
func Dump(t testing.TB, s *raftlog.Shard) string {
	t.Helper()
	return Read(t, s, func(v *raftlog.View) (string, error) {
		var b strings.Builder
		queues, err := queuelog.Queues(v, Tenant)
		if err != nil {
			return "", err
		}
		for _, q := range queues {
			fmt.Fprintf(&b, "queue %s created %d partitions %d options %s\n", q.Name, q.Created, q.Partitions, q.Options)
			parts, _, err := queuelog.PartitionsChanged(v, Tenant, q.Name, MinStamp, 0, 1<<20)
			if err != nil {
				return "", err
			}
			for _, p := range parts {
				fmt.Fprintf(&b, "partition %+v\n", p)
				batch, err := queuelog.ReadRecords(v, Tenant, q.Name, p.Name, p.LogStart, queuelog.ReadLimits{})
				if err != nil {
					return "", err
				}
				for _, r := range batch.Records {
					fmt.Fprintf(&b, "record %d %d %x %q %q\n", r.Offset, r.Ts, r.MessageID, r.TransactionID, r.Payload)
				}
			}
		}
		return b.String(), nil
	})
}

// MinStamp asks PartitionsChanged for every partition.
const MinStamp = -1 << 63

// SameDump fails the test unless a and b are equal, naming the first line
// that differs.
func SameDump(t testing.TB, what, a, b string) {
	t.Helper()
	if a == b {
		return
	}
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			t.Fatalf("%s: line %d differs:\n  %s\n  %s", what, i+1, la[i], lb[i])
		}
	}
	t.Fatalf("%s: %d lines against %d", what, len(la), len(lb))
}

// Started starts a cluster of n nodes and waits for its leader: the
// cluster and the leader's shard.
func Started(t *testing.T, n int) (*Cluster, *raftlog.Shard) {
	t.Helper()
	c := New(t, n, nil)
	c.StartAll()
	_, s := c.Leader()
	return c, s
}

// CheckAnswer fails the test unless a is a duplicate of orig (dup) or a new
// record at offset.
func CheckAnswer(t testing.TB, what string, a queuelog.PushAnswer, dup bool, offset int64, mid [16]byte) {
	t.Helper()
	if a.Duplicate != dup || a.Offset != offset || a.MessageID != mid {
		t.Fatalf("%s: answered duplicate %v offset %d message %q; want %v %d %q", what, a.Duplicate, a.Offset, a.MessageID, dup, offset, mid)
	}
}

// Configure stores options for queue and fails the test on error.
func Configure(t testing.TB, s *raftlog.Shard, queue, options string, replace bool) string {
	t.Helper()
	got, err := queuelog.Configure(Ctx(t, Timeout), s, queuelog.ConfigureOp{Tenant: Tenant, Queue: queue, Options: []byte(options), Replace: replace})
	if err != nil {
		t.Fatalf("configure %s %s: %v", queue, options, err)
	}
	return string(got)
}
