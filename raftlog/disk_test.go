package raftlog_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// disks is each test node's disk use, in percent, as the storage gate
// reads it (DiskConfig.Usage): no real disk needs to fill.
type disks struct {
	mu  sync.Mutex
	pct map[uint64]float64
	err map[uint64]error
}

func (d *disks) set(node uint64, pct float64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pct[node] = pct
}

func (d *disks) usage(node uint64) func(string) (float64, error) {
	return func(string) (float64, error) {
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.pct[node], d.err[node]
	}
}

// gatedCluster is a cluster of n nodes whose storage gates read d, with
// marks 85 and 80 and a 5 ms poll.
func gatedCluster(t *testing.T, n int) (*raftlogtest.Cluster, *disks) {
	d := &disks{pct: map[uint64]float64{}, err: map[uint64]error{}}
	c := raftlogtest.New(t, n, nil)
	c.Tweak = func(cfg *raftlog.Config) {
		cfg.Disk = raftlog.DiskConfig{HighPct: 85, LowPct: 80, Interval: 5 * time.Millisecond, Usage: d.usage(cfg.NodeID)}
	}
	c.StartAll()
	return c, d
}

// waitFullNodes waits until every running node's state lists exactly
// want as full.
func waitFullNodes(t *testing.T, c *raftlogtest.Cluster, want ...uint64) {
	t.Helper()
	deadline := time.Now().Add(raftlogtest.Timeout)
	for {
		agree := true
		var last []raftlog.FullNode
		for _, s := range c.Shards {
			last = s.Storage().FullNodes
			var got []uint64
			for _, n := range last {
				got = append(got, n.Node)
			}
			agree = agree && slices.Equal(got, want)
		}
		if agree {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the nodes' full sets never became %v (one says %v)", want, last)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func pushErr(t *testing.T, s *raftlog.Shard, txid string) error {
	t.Helper()
	_, _, err := queuelog.Push(raftlogtest.Ctx(t, raftlogtest.Timeout), s, queuelog.PushOp{Tenant: raftlogtest.Tenant, Items: []queuelog.PushItem{raftlogtest.Item("q", "p", txid, []byte(txid))}})
	return err
}

// TestStorageGateFollower: a follower above its high mark closes the
// gate on every node: pushes and configures answer ErrStorageFull and
// apply nothing, while trims, sweeps, ticks, deletes and the broker's own
// bookkeeping go on; the mark is sticky down to the low mark, and below
// it the gate opens again.
func TestStorageGateFollower(t *testing.T) {
	c, d := gatedCluster(t, 3)
	leaderID, leader := c.Leader()
	if err := pushErr(t, leader, "before"); err != nil {
		t.Fatal(err)
	}
	follower := uint64(1 + leaderID%3)
	d.set(follower, 91.5)
	waitFullNodes(t, c, follower)
	for id, s := range c.Shards {
		err := pushErr(t, s, fmt.Sprintf("refused-%d", id))
		if !errors.Is(err, raftlog.ErrStorageFull) {
			t.Fatalf("node %d: push with node %d full: %v, want ErrStorageFull", id, follower, err)
		}
		if _, err := queuelog.Configure(raftlogtest.Ctx(t, raftlogtest.Timeout), s, queuelog.ConfigureOp{Tenant: raftlogtest.Tenant, Queue: "new", Options: []byte(`{}`)}); !errors.Is(err, raftlog.ErrStorageFull) {
			t.Fatalf("node %d: configure: %v, want ErrStorageFull", id, err)
		}
		st := s.Storage()
		if !st.Refusing || st.Refused != 2 || st.FullNodes[0].UsedPct != 91.5 || st.Full != (id == follower) {
			t.Fatalf("node %d: storage status %+v", id, st)
		}
	}
	// What shrinks or keeps the store passes.
	raftlogtest.Propose(t, leader, raftlog.Command{})
	if _, err := queuelog.Trim(raftlogtest.Ctx(t, raftlogtest.Timeout), leader, queuelog.TrimOp{Tenant: raftlogtest.Tenant, Queue: "q", Partition: "p", Before: 0}); err != nil {
		t.Fatalf("trim: %v", err)
	}
	if _, err := queuelog.DedupSweep(raftlogtest.Ctx(t, raftlogtest.Timeout), leader, queuelog.DedupSweepOp{Tenant: raftlogtest.Tenant, Queue: "q", Partition: "p", Limit: 10}); err != nil {
		t.Fatalf("dedup sweep: %v", err)
	}
	if _, err := queuelog.DeleteQueue(raftlogtest.Ctx(t, raftlogtest.Timeout), leader, queuelog.DeleteQueueOp{Tenant: raftlogtest.Tenant, Queue: "gone"}); err != nil {
		t.Fatalf("delete queue: %v", err)
	}
	if _, _, err := queuelog.Push(raftlog.AllowWhenFull(raftlogtest.Ctx(t, raftlogtest.Timeout)), leader, queuelog.PushOp{Tenant: raftlogtest.BarrierTenant,
		Items: []queuelog.PushItem{{Queue: "own", Partition: "p", Payload: []byte("x")}}}); err != nil {
		t.Fatalf("a push marked AllowWhenFull: %v", err)
	}
	// Nothing refused applied: q/p holds the one record pushed before.
	for id, s := range c.Shards {
		if b := raftlogtest.ReadAll(t, s, "q", "p"); len(b.Records) != 1 || b.Records[0].TransactionID != "before" {
			t.Fatalf("node %d: q/p holds %d records", id, len(b.Records))
		}
	}
	// Between the marks the node stays full; below the low one it is not.
	d.set(follower, 82)
	time.Sleep(50 * time.Millisecond)
	if err := pushErr(t, leader, "between"); !errors.Is(err, raftlog.ErrStorageFull) {
		t.Fatalf("push with node %d at 82%%, between the marks: %v, want ErrStorageFull", follower, err)
	}
	d.set(follower, 79.9)
	waitFullNodes(t, c)
	for id, s := range c.Shards {
		if err := pushErr(t, s, fmt.Sprintf("after-%d", id)); err != nil {
			t.Fatalf("node %d: push after the disk fell below the low mark: %v", id, err)
		}
	}
}

// TestStorageGateRestart: the set is replicated state: it survives a
// restart of every node, a node that starts on a full disk refuses from
// its first proposal, and a node that restarts on a disk freed while it
// was down takes itself out of the set.
func TestStorageGateRestart(t *testing.T) {
	c, d := gatedCluster(t, 3)
	d.set(2, 99)
	waitFullNodes(t, c, 2)
	c.StopAll()
	d.set(2, 0) // node 2 stays down, its disk freed meanwhile
	c.Start(1)
	c.Start(3)
	if st := c.Shards[1].Storage(); !st.Refusing || len(st.FullNodes) != 1 || st.FullNodes[0].Node != 2 {
		t.Fatalf("node 1 after its restart: %+v, want node 2 full", st)
	}
	c.Leader()
	if err := pushErr(t, c.Shards[3], "refused"); !errors.Is(err, raftlog.ErrStorageFull) {
		t.Fatalf("push while the state says node 2 is full: %v", err)
	}
	c.Start(2)
	waitFullNodes(t, c)
	if err := pushErr(t, c.Shards[1], "ok"); err != nil {
		t.Fatal(err)
	}

	// A node that starts on a full disk refuses before its status commits.
	c.Stop(3)
	d.set(3, 86)
	s := c.Start(3)
	if err := pushErr(t, s, "local"); !errors.Is(err, raftlog.ErrStorageFull) {
		t.Fatalf("push through node 3 restarted on a full disk: %v", err)
	}
	waitFullNodes(t, c, 3)
}

// TestStorageGateUsageError: a disk that cannot be read leaves the gate as
// it was, and says why.
func TestStorageGateUsageError(t *testing.T) {
	c, d := gatedCluster(t, 1)
	d.mu.Lock()
	d.err[1] = errors.New("statfs: no such file")
	d.mu.Unlock()
	time.Sleep(30 * time.Millisecond)
	st := c.Shards[1].Storage()
	if st.Err == "" || st.Refusing || st.UsedPct != 0 { // the first poll read 0
		t.Fatalf("storage status with an unreadable disk: %+v", st)
	}
	c.Leader()
	if err := pushErr(t, c.Shards[1], "ok"); err != nil {
		t.Fatal(err)
	}
}

// TestDiskConfigValidate: the marks are checked at NewHost.
func TestDiskConfigValidate(t *testing.T) {
	for _, d := range []raftlog.DiskConfig{{HighPct: 101}, {HighPct: -1}, {HighPct: 80, LowPct: 80}, {HighPct: math.NaN()}} {
		cfg := raftlog.Config{NodeID: 1, RaftAddress: "127.0.0.1:1", DataDir: t.TempDir(), Disk: d}
		if err := cfg.Validate(); err == nil {
			t.Errorf("Disk %+v: valid, want refused", d)
		}
	}
}

// TestStorageGateReplacedNode: a node that reported a full disk and was
// then replaced (its data lost) can no longer say it is not full: the
// replace clears its report, and the gate opens.
func TestStorageGateReplacedNode(t *testing.T) {
	c, d := gatedCluster(t, 3)
	leaderID, _ := c.Leader()
	victim := uint64(1 + leaderID%3)
	d.set(victim, 95)
	waitFullNodes(t, c, victim)
	c.Stop(victim)
	_, leader := c.Leader()
	if err := pushErr(t, leader, "while-listed"); !errors.Is(err, raftlog.ErrStorageFull) {
		t.Fatalf("push with node %d listed full: %v, want ErrStorageFull", victim, err)
	}
	id, _ := c.Leader()
	if _, err := c.Hosts[id].ReplaceReplica(raftlogtest.Ctx(t, raftlogtest.Timeout), raftlogtest.ShardID, victim, 7, ""); err != nil {
		t.Fatal(err)
	}
	waitFullNodes(t, c)
	if err := pushErr(t, leader, "after-replace"); err != nil {
		t.Fatalf("push once node %d was replaced: %v", victim, err)
	}
}
