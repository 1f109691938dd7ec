package raftlog_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// fill configures a queue and pushes records to two of its partitions
// through s, n entries, then trims the first few records of p0.
func fill(t testing.TB, s *raftlog.Shard, n int) {
	t.Helper()
	raftlogtest.Configure(t, s, "q", `{"dedupWindowSeconds":60,"retention":"1h"}`, false)
	var cut int64
	for i := range n {
		_, stamp := raftlogtest.Push(t, s, raftlogtest.Item("q", fmt.Sprintf("p%d", i%2), fmt.Sprintf("f%d", i), []byte(fmt.Sprintf(`{"i":%d}`, i))))
		if i == 4 {
			cut = stamp
		}
	}
	if _, err := queuelog.Trim(raftlogtest.Ctx(t, raftlogtest.Timeout), s, queuelog.TrimOp{Tenant: raftlogtest.Tenant, Queue: "q", Partition: "p0", Before: cut}); err != nil {
		t.Fatal(err)
	}
}

// TestRestart: a node stopped and started again has the records,
// partitions, options and log starts it had, its safeTime has not gone
// back, and it carries on where it stopped.
func TestRestart(t *testing.T) {
	c, s := raftlogtest.Started(t, 1)
	fill(t, s, 20)
	before, safe, applied := raftlogtest.Dump(t, s), s.SafeTime(), s.Applied()

	c.Stop(1)
	s = c.Start(1)
	if got := s.SafeTime(); got < safe {
		t.Fatalf("safeTime went back from %d to %d over a restart", safe, got)
	}
	if got := s.Applied(); got < applied {
		t.Fatalf("applied index went back from %d to %d over a restart", applied, got)
	}
	raftlogtest.SameDump(t, "after a restart", raftlogtest.Dump(t, s), before)

	c.Leader()
	ans, stamp := raftlogtest.Push(t, s, raftlogtest.Item("q", "p1", "next", []byte("next")))
	raftlogtest.CheckAnswer(t, "next", ans[0], false, 10, raftlogtest.MID("next"))
	if stamp <= safe {
		t.Fatalf("first push after the restart stamped %d, not after safeTime %d", stamp, safe)
	}
	ans, _ = raftlogtest.Push(t, s, raftlogtest.Item("q", "p1", "f1", nil))
	raftlogtest.CheckAnswer(t, "f1 again after a restart", ans[0], true, 0, raftlogtest.MID("f1"))
	// A duplicate is always read from the store, filter or not; "next" was
	// a lookup too, read or avoided.
	if st := s.DedupStats(); st.Read < 1 || st.Read+st.Avoided < 2 {
		t.Fatalf("dedup stats after two lookups: %+v", st)
	}
}

// TestRestartFollower: a follower stopped while the others go on catches up
// from the log when it starts again.
func TestRestartFollower(t *testing.T) {
	c := raftlogtest.New(t, 3, nil)
	c.StartAll()
	lid, leader := c.Leader()
	fid := lid%3 + 1
	fill(t, leader, 10)
	raftlogtest.Barrier(t, c)
	safe := c.Shards[fid].SafeTime()
	c.Stop(fid)

	var last queuelog.PushAnswer
	for i := range 10 {
		ans, _ := raftlogtest.Push(t, leader, raftlogtest.Item("q", "p1", fmt.Sprintf("while-down-%d", i), []byte{byte(i)}))
		last = ans[0]
	}
	f := c.Start(fid)
	if got := f.SafeTime(); got < safe {
		t.Fatalf("safeTime went back from %d to %d over a restart", safe, got)
	}
	raftlogtest.WaitRecords(t, f, raftlogtest.Tenant, "q", "p1", last.Offset)
	raftlogtest.Barrier(t, c)
	raftlogtest.SameDump(t, fmt.Sprintf("follower %d against leader %d", fid, lid), raftlogtest.Dump(t, f), raftlogtest.Dump(t, leader))
	if f.SafeTime() != leader.SafeTime() {
		t.Fatalf("follower safeTime %d, leader %d, after both applied the same entries", f.SafeTime(), leader.SafeTime())
	}
}

// countApplier counts the ops it applied: a node that caught up from a
// snapshot applied fewer than were proposed.
type countApplier struct{ n atomic.Int64 }

func (a *countApplier) Apply(*raftlog.Txn, raftlog.ApplyInfo, []byte) ([]byte, error) {
	a.n.Add(1)
	return nil, nil
}

// TestSnapshotCatchUp: with snapshots every 50 entries and the raft log
// compacted behind them, a member started late can only catch up from a
// snapshot, and then serves the same reads as its peers.
func TestSnapshotCatchUp(t *testing.T) {
	const countKind = 300
	c := raftlogtest.New(t, 3, map[raftlog.OpKind]raftlog.Applier{countKind: &countApplier{}})
	c.Tweak = func(cfg *raftlog.Config) { cfg.SnapshotEntries, cfg.CompactionOverhead = 50, 10 }
	c.Start(1)
	c.Start(2)
	_, leader := c.Leader()
	fill(t, leader, 10)
	const entries = 300
	for i := range entries {
		op := queuelog.PushOp{Tenant: raftlogtest.Tenant, Items: []queuelog.PushItem{raftlogtest.Item("q", fmt.Sprintf("p%d", i%3), fmt.Sprintf("s%d", i), []byte(fmt.Sprint(i)))}}
		res := raftlogtest.Propose(t, leader, raftlog.Command{Ops: []raftlog.Op{op.Op(), {Kind: countKind}}})
		if !res.Applied() {
			t.Fatalf("entry %d aborted: %q", i, res.Ops)
		}
	}

	late := &countApplier{}
	c.Appliers = map[raftlog.OpKind]raftlog.Applier{countKind: late}
	s3 := c.Start(3)
	for p := range 3 {
		name := fmt.Sprintf("p%d", p)
		raftlogtest.WaitRecords(t, s3, raftlogtest.Tenant, "q", name, raftlogtest.ReadAll(t, leader, "q", name).HighWatermark-1)
	}
	t.Logf("node 3 applied %d of the %d counted ops itself", late.n.Load(), entries)
	if n := late.n.Load(); n >= entries {
		t.Fatalf("node 3 applied %d of the %d counted ops: it replayed the log, no snapshot was needed", n, entries)
	}
	// It applies what comes after the snapshot too.
	ans, _ := raftlogtest.Push(t, leader, raftlogtest.Item("q", "p0", "last", []byte("last")))
	raftlogtest.WaitRecords(t, s3, raftlogtest.Tenant, "q", "p0", ans[0].Offset)
	raftlogtest.Barrier(t, c)
	want := raftlogtest.Dump(t, leader)
	for id, s := range c.Shards {
		raftlogtest.SameDump(t, fmt.Sprintf("node %d against the leader", id), raftlogtest.Dump(t, s), want)
		if s.SafeTime() != leader.SafeTime() {
			t.Fatalf("node %d safeTime %d, leader %d", id, s.SafeTime(), leader.SafeTime())
		}
	}
}
