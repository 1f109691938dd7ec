package raftlog_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

func countRecords(s *raftlog.Shard) int {
	v, err := s.LocalRead(func(v *raftlog.View) (any, error) {
		b, err := queuelog.ReadRecords(v, raftlogtest.Tenant, "q", "p", 0, queuelog.ReadLimits{MaxRecords: 100000})
		return len(b.Records), err
	})
	if err != nil {
		return -1
	}
	return v.(int)
}

// A node whose data is gone is replaced from its peers: its id deleted,
// a new one added at its address, and a node started with that id and
// Join on an empty directory catches up (from a snapshot: the log it
// missed is compacted) with every record.
func TestReplaceReplica(t *testing.T) {
	c := raftlogtest.New(t, 3, nil)
	c.Tweak = func(cfg *raftlog.Config) { cfg.SnapshotEntries, cfg.CompactionOverhead = 100, 10 }
	c.StartAll()
	leader, s := c.Leader()
	for i := range 250 {
		raftlogtest.Push(t, s, raftlogtest.Item("q", "p", fmt.Sprint("t", i), []byte(fmt.Sprintf(`{"i":%d}`, i))))
	}
	victim := uint64(3)
	if leader == victim {
		victim = 2
	}
	addr := c.Members[victim]
	c.Stop(victim)
	if err := os.RemoveAll(c.Config(victim).DataDir); err != nil {
		t.Fatal(err)
	}
	h := c.Hosts[leader]
	ctx := raftlogtest.Ctx(t, raftlogtest.Timeout)
	if _, err := h.ReplaceReplica(ctx, raftlogtest.ShardID, leader, 9, ""); !errors.Is(err, raftlog.ErrMembership) {
		t.Fatalf("replacing this node: %v, want ErrMembership", err)
	}
	if _, err := h.ReplaceReplica(ctx, raftlogtest.ShardID, victim, 4, c.Members[leader]); !errors.Is(err, raftlog.ErrMembership) {
		t.Fatalf("replacing at another member's address: %v, want ErrMembership", err)
	}
	m, err := h.ReplaceReplica(ctx, raftlogtest.ShardID, victim, 4, "")
	if err != nil {
		t.Fatal(err)
	}
	if m.Voters[4] != addr || m.Voters[victim] != "" || len(m.Voters) != 3 {
		t.Fatalf("membership after the replace: %+v", m)
	}
	// Asked again (an unknown outcome retried): the same answer.
	if m2, err := h.ReplaceReplica(ctx, raftlogtest.ShardID, victim, 4, ""); err != nil || m2.Voters[4] != addr {
		t.Fatalf("the replace asked again: %+v %v", m2, err)
	}
	// An id once deleted never comes back.
	if _, err := h.ReplaceReplica(ctx, raftlogtest.ShardID, 4, victim, ""); !errors.Is(err, raftlog.ErrMembership) ||
		!strings.Contains(err.Error(), "was a member once") {
		t.Fatalf("adding back a deleted id: %v, want ErrMembership", err)
	}
	for i := 250; i < 300; i++ { // writes go on meanwhile, on two of three
		raftlogtest.Push(t, s, raftlogtest.Item("q", "p", fmt.Sprint("t", i), []byte(fmt.Sprintf(`{"i":%d}`, i))))
	}

	cfg := raftlog.Config{NodeID: 4, RaftAddress: addr, DataDir: filepath.Join(c.Dir, "4"), Join: true,
		RTT: 10 * time.Millisecond, TickInterval: -1, Logger: raftlogtest.Logger(t)}
	h4, err := raftlog.NewHost(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer h4.Close()
	s4, err := h4.StartShard(raftlogtest.ShardID, nil)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(raftlogtest.Timeout)
	for countRecords(s4) != 300 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := countRecords(s4); got != 300 {
		t.Fatalf("the replacement holds %d records, want 300", got)
	}
	if got, want := raftlogtest.Dump(t, s4), raftlogtest.Dump(t, s); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the replacement's state differs from the leader's")
	}
	h4.Close()

	// Its directory is replica 4's: another id does not start on it.
	cfg.NodeID = 5
	h5, err := raftlog.NewHost(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer h5.Close()
	if _, err := h5.StartShard(raftlogtest.ShardID, nil); err == nil || !strings.Contains(err.Error(), "holds replica 4") {
		t.Fatalf("replica 5 on replica 4's directory: %v", err)
	}
}
