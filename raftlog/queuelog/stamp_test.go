package queuelog_test

import (
	"fmt"
	"testing"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// TestStamps: every record of a push carries its entry's stamp; stamps
// strictly increase from entry to entry whatever clock the proposer sent;
// safeTime is the stamp of the last entry applied, on every node.
func TestStamps(t *testing.T) {
	c, leader := started(t, 3)

	items := []queuelog.PushItem{item("q", "a", "1", nil), item("q", "b", "2", nil), item("q", "a", "3", nil), item("r", "a", "4", nil)}
	_, stamp := push(t, leader, items...)
	if leader.SafeTime() != stamp {
		t.Fatalf("leader safeTime %d after a push stamped %d", leader.SafeTime(), stamp)
	}
	for _, it := range items {
		b := readAll(t, leader, it.Queue, it.Partition)
		for _, r := range b.Records {
			if r.Ts != stamp {
				t.Fatalf("%s/%s offset %d stamped %d, its entry %d", it.Queue, it.Partition, r.Offset, r.Ts, stamp)
			}
		}
	}

	// A clock in the past: each entry is stamped one µs after the last.
	prev := stamp
	for i := range 5 {
		res := propose(t, c.Shards[uint64(i%3+1)], raftlog.Command{Clock: 1, Ops: []raftlog.Op{
			(&queuelog.PushOp{Tenant: tenant, Items: []queuelog.PushItem{item("q", "a", fmt.Sprintf("past-%d", i), nil)}}).Op()}})
		if res.Stamp != prev+1 {
			t.Fatalf("entry %d with clock 1 stamped %d, want %d", i, res.Stamp, prev+1)
		}
		prev = res.Stamp
	}
	// A clock ahead is taken as it is, and an empty command moves it too.
	ahead := propose(t, leader, raftlog.Command{Clock: prev + 1_000_000})
	if ahead.Stamp != prev+1_000_000 {
		t.Fatalf("entry with clock %d stamped %d", prev+1_000_000, ahead.Stamp)
	}
	ans, last := push(t, leader, item("q", "a", "last", nil)) // its wall clock is behind now
	if last != ahead.Stamp+1 {
		t.Fatalf("push after the clock moved ahead stamped %d, want %d", last, ahead.Stamp+1)
	}

	// Along the partition stamps increase from entry to entry; records 1
	// and 3 came in one entry and share its stamp.
	b := readAll(t, leader, "q", "a")
	for i := 1; i < len(b.Records); i++ {
		if b.Records[i].Ts <= b.Records[i-1].Ts && b.Records[i].TransactionID != "3" {
			t.Fatalf("offset %d stamped %d after %d", b.Records[i].Offset, b.Records[i].Ts, b.Records[i-1].Ts)
		}
	}
	for id, s := range c.Shards {
		waitRecords(t, s, tenant, "q", "a", ans[0].Offset)
		if s.SafeTime() != last {
			t.Fatalf("node %d: safeTime %d, the last entry it applied was stamped %d", id, s.SafeTime(), last)
		}
		got := read(t, s, func(v *raftlog.View) (int64, error) { return v.Stamp(), nil })
		if got != last {
			t.Fatalf("node %d: a view's stamp %d, want %d", id, got, last)
		}
	}
}
