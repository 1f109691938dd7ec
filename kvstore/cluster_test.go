package kvstore_test

import (
	"encoding/json"
	"testing"

	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// warm reads through every node's Store until each answers: a node that
// started before its peers listened may take a second or two before its
// messages reach the leader, and a write proposed on it then would time
// out with its outcome unknown. Store's reads retry such lost reads.
func warm(t *testing.T, c *raftlogtest.Cluster) {
	t.Helper()
	for id, s := range c.Shards {
		if g := one(t, kvstore.New(s), get("warm-up")); g.Found {
			t.Fatalf("node %d reads a row nobody wrote", id)
		}
	}
}

// TestThreeNodes: a write on a follower's Store reaches the leader
// (dragonboat forwards the proposal) and every node reads it; after the
// leader stops and another is elected, versions keep increasing, and the
// old leader reads the new state once it is back.
func TestThreeNodes(t *testing.T) {
	c := raftlogtest.New(t, 3, kvstore.Appliers())
	c.StartAll()
	leader, _ := c.Leader()
	follower := leader%3 + 1
	warm(t, c)

	w := one(t, kvstore.New(c.Shards[follower]), put("a", `"from a follower"`))
	if !w.Applied || w.Version == 0 {
		t.Fatalf("put on follower %d: %+v", follower, w)
	}
	for id, s := range c.Shards {
		if g := one(t, kvstore.New(s), get("a")); !g.Found || g.Version != w.Version || string(g.Value) != `"from a follower"` {
			t.Errorf("node %d reads %+v", id, g)
		}
	}

	c.Stop(leader)
	next, s := c.Leader()
	if next == leader {
		t.Fatalf("node %d still leads after it stopped", leader)
	}
	other := 6 - leader - next // the node that is neither
	kv := kvstore.New(c.Shards[other])
	a := do(t, kv, kvstore.Op{Op: kvstore.OpPut, NS: "app", Key: "a", Value: json.RawMessage(`2`), Forever: true, Expect: i64(int64(w.Version))},
		kvstore.Op{Op: kvstore.OpIncr, NS: "app", Key: "n", Delta: "1", Forever: true})
	if r := a.Results; !r[0].Applied || r[0].Version <= w.Version || !r[1].Applied || r[1].Version <= r[0].Version {
		t.Fatalf("writes after the leader change: %+v (before: %d)", r, w.Version)
	}
	v2 := a.Results[0].Version
	if g := one(t, kvstore.New(s), get("a")); g.Version != v2 {
		t.Errorf("the new leader reads version %d, want %d", g.Version, v2)
	}

	c.Start(leader)
	kv = kvstore.New(c.Shards[leader])
	if g := one(t, kv, get("a")); !g.Found || g.Version != v2 || string(g.Value) != "2" {
		t.Errorf("the old leader, back, reads %+v; want version %d", g, v2)
	}
	if d := one(t, kv, kvstore.Op{Op: kvstore.OpDelete, NS: "app", Key: "a", Expect: i64(int64(v2))}); !d.Applied {
		t.Fatalf("delete: %+v", d)
	}
	if p := one(t, kv, put("a", "3")); p.Version <= a.Results[1].Version {
		t.Errorf("a put after the delete got version %d, not above %d", p.Version, a.Results[1].Version)
	}
}
