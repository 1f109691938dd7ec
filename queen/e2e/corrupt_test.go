package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// envOf is the value of name in n's environment (the last one wins).
func envOf(n *node, name string) string {
	v := ""
	for _, kv := range n.env {
		if s, ok := strings.CutPrefix(kv, name+"="); ok {
			v = s
		}
	}
	return v
}

// raftAddress is n's raft address, from the member list.
func raftAddress(t *testing.T, n *node) string {
	for _, m := range strings.Split(envOf(n, "QUEEN_RAFT_MEMBERS"), ",") {
		if id, addr, _ := strings.Cut(m, "="); id == fmt.Sprint(n.id) {
			return addr
		}
	}
	t.Fatalf("node %d is not in the member list", n.id)
	return ""
}

// TestCorruptNodeReplaced: a node whose segment has a bit flipped refuses
// to start, with one FATAL line naming the file, exit status 3, and again
// at once on every later start; the operator replaces it from a healthy
// node (POST /api/v1/raft/members/replace), moves its data aside and
// starts it with a fresh id and QUEEN_RAFT_JOIN=true: it catches up with
// every record, and the cluster goes on.
func TestCorruptNodeReplaced(t *testing.T) {
	nodes := cluster(t, 3, "QUEEN_RAFT_SNAPSHOT_ENTRIES=100", "QUEEN_RAFT_COMPACTION_OVERHEAD=10")
	startAll(nodes)
	leader, followers := leaderOf(t, nodes)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	pushN := func(n *node, from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			if _, err := n.push(ctx, pushItem{Queue: "q", Partition: "p", TransactionID: fmt.Sprint("t", i),
				Payload: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))}); err != nil {
				t.Fatal(err)
			}
		}
	}
	pushN(leader, 0, 200)
	victim := followers[0]
	readAgreed(t, nodes, "q", "p") // the victim holds them all
	victim.signal(syscall.SIGTERM)

	segs, _ := filepath.Glob(filepath.Join(victim.dataDir, "sm", "shard-1.segments", "*.seg"))
	slices.Sort(segs)
	if len(segs) == 0 {
		t.Fatal("no segment on the victim")
	}
	seg := segs[len(segs)-1]
	b, err := os.ReadFile(seg)
	if err != nil || len(b) < 100 {
		t.Fatalf("%s: %d bytes %v", seg, len(b), err)
	}
	b[len(b)/2] ^= 0x08
	if err := os.WriteFile(seg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, again := range []bool{false, true} {
		victim.start()
		select {
		case <-victim.exited:
		case <-time.After(60 * time.Second):
			t.Fatalf("the corrupted node still runs:\n%s", victim.log())
		}
		victim.cmd = nil
		if code := victim.state.ExitCode(); code != 3 {
			t.Fatalf("the corrupted node exited %d, want 3:\n%s", code, victim.log())
		}
		var fatal []string
		for _, line := range strings.Split(victim.log(), "\n") {
			if strings.Contains(line, "FATAL") {
				fatal = append(fatal, line)
			}
		}
		last := fatal[len(fatal)-1]
		if !strings.Contains(last, "boot: FATAL: data corrupted: "+seg+": ") || !strings.Contains(last, "/api/v1/raft/members/replace") ||
			again != strings.Contains(last, "found by an earlier run") {
			t.Fatalf("start %d: FATAL line %s", len(fatal), last)
		}
	}

	var m struct {
		Replaced bool
		Members  []struct {
			NodeID  uint64
			Address string
		}
		Removed []uint64
	}
	addr := raftAddress(t, victim)
	if _, err := leader.call(ctx, http.MethodPost, "/api/v1/raft/members/replace", map[string]any{"nodeId": victim.id, "newNodeId": 4}, &m); err != nil {
		t.Fatal(err)
	}
	if !m.Replaced || len(m.Members) != 3 || !slices.Contains(m.Removed, uint64(victim.id)) {
		t.Fatalf("replace answered %+v", m)
	}
	pushN(leader, 200, 250) // on two of three meanwhile
	if err := os.Rename(victim.dataDir, victim.dataDir+".corrupt"); err != nil {
		t.Fatal(err)
	}
	victim.env = append(victim.env, "QUEEN_RAFT_NODE_ID=4", "QUEEN_RAFT_JOIN=true", "QUEEN_RAFT_ADDRESS="+addr)
	victim.start()
	victim.waitReady()
	pushN(victim, 250, 300)
	recs := readAgreed(t, nodes, "q", "p")
	if len(recs) != 300 {
		t.Fatalf("%d records, want 300", len(recs))
	}
	for i, r := range recs {
		if r.TransactionID != fmt.Sprint("t", i) || string(r.Payload) != fmt.Sprintf(`{"i":%d}`, i) {
			t.Fatalf("record %d is %+v", i, r)
		}
	}
	if _, err := victim.call(ctx, http.MethodGet, "/api/v1/raft/members", nil, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Members) != 3 || !slices.ContainsFunc(m.Members, func(x struct {
		NodeID  uint64
		Address string
	}) bool {
		return x.NodeID == 4 && x.Address == addr
	}) {
		t.Fatalf("members seen by the replacement: %+v", m)
	}
}
