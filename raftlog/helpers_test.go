package raftlog_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// tenant is the tenant of every test queue; barrierTenant holds the
// partition barrier pushes to.
const (
	tenant        = "00000000-0000-0000-0000-000000000001"
	barrierTenant = "00000000-0000-0000-0000-0000000000ff"
)

// testTimeout bounds every wait of a test: generous for -race on two cores.
const testTimeout = 60 * time.Second

// item makes a PushItem with dedup on and the message id mid(txid).
func item(queue, partition, txid string, payload []byte) raftlog.PushItem {
	return raftlog.PushItem{Queue: queue, Partition: partition, TransactionID: txid, MessageID: mid(txid), Dedup: true, Payload: payload}
}

// mid is the message id item gives a transaction id.
func mid(txid string) (id [16]byte) {
	copy(id[:], "m:"+txid)
	return id
}

// push pushes items to tenant as one entry and fails the test on error.
func push(t testing.TB, s *raftlog.Shard, items ...raftlog.PushItem) ([]raftlog.PushAnswer, int64) {
	t.Helper()
	answers, stamp, err := s.Push(raftlogtest.Ctx(t, testTimeout), raftlog.PushOp{Tenant: tenant, Items: items})
	if err != nil {
		t.Fatalf("push: %v", err)
	}
	if len(answers) != len(items) {
		t.Fatalf("push of %d items answered %d", len(items), len(answers))
	}
	return answers, stamp
}

// pushTry bounds one try of pushAsClient. A proposal lost across a change
// of leader (a follower's forwarded proposal is dropped without a word) is
// answered only at its deadline, with ErrTimeout; a client asks again well
// before its own patience, testTimeout, runs out.
const pushTry = 5 * time.Second

// pushAsClient pushes op as a client does: after ErrTimeout (outcome
// unknown) or ErrNoLeader (nothing proposed) it asks again with the same
// transaction ids, which dedup makes exactly once, until testTimeout.
// unknown reports that an earlier try ended with ErrTimeout, so the answers
// may be the original's (Duplicate); stamp is the answering entry's.
func pushAsClient(t testing.TB, s *raftlog.Shard, op raftlog.PushOp) (answers []raftlog.PushAnswer, stamp int64, unknown bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	for {
		try, cancelTry := context.WithTimeout(ctx, pushTry)
		answers, stamp, err = s.Push(try, op)
		cancelTry()
		again := errors.Is(err, raftlog.ErrTimeout) || errors.Is(err, raftlog.ErrNoLeader)
		if !again || ctx.Err() != nil {
			return answers, stamp, unknown, err
		}
		t.Logf("push asked again after: %v", err)
		unknown = unknown || errors.Is(err, raftlog.ErrTimeout)
	}
}

// propose proposes cmd and fails the test on error.
func propose(t testing.TB, s *raftlog.Shard, cmd raftlog.Command) raftlog.Result {
	t.Helper()
	res, err := s.Propose(raftlogtest.Ctx(t, testTimeout), cmd)
	if err != nil {
		t.Fatalf("propose: %v", err)
	}
	return res
}

// read runs fn on s's applied state and fails the test on error.
func read[T any](t testing.TB, s *raftlog.Shard, fn func(v *raftlog.View) (T, error)) T {
	t.Helper()
	got, err := s.LocalRead(func(v *raftlog.View) (any, error) { return fn(v) })
	if err != nil {
		t.Fatalf("local read on shard of node: %v", err)
	}
	return got.(T)
}

// readAll reads every record a partition holds, from its log start.
func readAll(t testing.TB, s *raftlog.Shard, queue, partition string) raftlog.Batch {
	t.Helper()
	return read(t, s, func(v *raftlog.View) (raftlog.Batch, error) {
		b, err := v.ReadRecords(tenant, queue, partition, 0, raftlog.ReadLimits{})
		if errors.Is(err, raftlog.ErrOffsetOutOfRange) {
			return v.ReadRecords(tenant, queue, partition, b.LogStart, raftlog.ReadLimits{})
		}
		return b, err
	})
}

// waitRecords waits until s has applied offset of the partition.
func waitRecords(t testing.TB, s *raftlog.Shard, ten, queue, partition string, offset int64) {
	t.Helper()
	if err := s.WaitRecords(raftlogtest.Ctx(t, testTimeout), ten, queue, partition, offset); err != nil {
		t.Fatalf("wait for %s/%s offset %d: %v", queue, partition, offset, err)
	}
}

// barrier pushes a record through c's leader and waits until every running
// node has applied it, and so every entry committed before it.
func barrier(t testing.TB, c *raftlogtest.Cluster) {
	t.Helper()
	_, s := c.Leader()
	answers, _, err := s.Push(raftlogtest.Ctx(t, testTimeout), raftlog.PushOp{Tenant: barrierTenant,
		Items: []raftlog.PushItem{{Queue: "b", Partition: "b", Payload: []byte("b")}}})
	if err != nil {
		t.Fatalf("barrier push: %v", err)
	}
	for _, s := range c.Shards {
		waitRecords(t, s, barrierTenant, "b", "b", answers[0].Offset)
	}
}

// dump renders everything the queue log holds for tenant on s: queues,
// partitions and records, one line each, in a fixed order.
func dump(t testing.TB, s *raftlog.Shard) string {
	t.Helper()
	return read(t, s, func(v *raftlog.View) (string, error) {
		var b strings.Builder
		queues, err := v.Queues(tenant)
		if err != nil {
			return "", err
		}
		for _, q := range queues {
			fmt.Fprintf(&b, "queue %s created %d partitions %d options %s\n", q.Name, q.Created, q.Partitions, q.Options)
			parts, _, err := v.PartitionsChanged(tenant, q.Name, minStamp, 0, 1<<20)
			if err != nil {
				return "", err
			}
			for _, p := range parts {
				fmt.Fprintf(&b, "partition %+v\n", p)
				batch, err := v.ReadRecords(tenant, q.Name, p.Name, p.LogStart, raftlog.ReadLimits{})
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

// minStamp asks PartitionsChanged for every partition.
const minStamp = -1 << 63

// sameDump fails the test unless a and b are equal, naming the first line
// that differs.
func sameDump(t testing.TB, what, a, b string) {
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

// started starts a cluster of n nodes and waits for its leader: the
// cluster and the leader's shard.
func started(t *testing.T, n int) (*raftlogtest.Cluster, *raftlog.Shard) {
	t.Helper()
	c := raftlogtest.New(t, n, nil)
	c.StartAll()
	_, s := c.Leader()
	return c, s
}
