package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestSingleNode: push, fetch and KV on one node; SIGTERM exits 0 and the
// restarted node keeps everything.
func TestSingleNode(t *testing.T) {
	n := single(t)
	ctx := deadline(t, 30*time.Second)

	ans, err := n.push(ctx,
		pushItem{Queue: "orders", Partition: "cust-1", Payload: json.RawMessage(`{"order":1,"total":42.00}`), TransactionID: "t1"},
		pushItem{Queue: "orders", Partition: "cust-2", Payload: json.RawMessage(`{"order":2,"total":17.50}`)},
		pushItem{Queue: "orders", Partition: "cust-1", Payload: json.RawMessage(`{"order":1,"status":"paid"}`), TransactionID: "t3"})
	if err != nil {
		t.Fatal(err)
	}
	if ans[0].Offset != 0 || ans[1].Offset != 0 || ans[2].Offset != 1 || ans[0].Status != "queued" || ans[1].TransactionID != ans[1].MessageID {
		t.Fatalf("push answers %+v", ans)
	}
	again, err := n.push(ctx, pushItem{Queue: "orders", Partition: "cust-1", Payload: json.RawMessage(`{}`), TransactionID: "t1"})
	if err != nil || again[0].Status != "duplicate" || again[0].Offset != 0 || again[0].MessageID != ans[0].MessageID {
		t.Fatalf("a repeated transactionId answered %+v, %v", again, err)
	}
	check := func() {
		recs, hwm, err := n.fetchAll(ctx, "orders", "cust-1")
		if err != nil {
			t.Fatal(err)
		}
		if hwm != 2 || len(recs) != 2 || string(recs[0].Payload) != `{"order":1,"total":42.00}` || recs[1].TransactionID != "t3" {
			t.Fatalf("fetch: hwm %d, records %+v", hwm, recs)
		}
		var kv map[string]any
		if _, err := n.call(ctx, http.MethodGet, "/api/v1/kv/app/greeting", nil, &kv); err != nil {
			t.Fatal(err)
		}
		if kv["value"] != "hello" || kv["version"] == nil {
			t.Fatalf("kv get: %v", kv)
		}
	}
	var put map[string]any
	if _, err := n.call(ctx, http.MethodPut, "/api/v1/kv/app/greeting", map[string]any{"value": "hello", "forever": true}, &put); err != nil {
		t.Fatal(err)
	}
	check()

	st := n.signal(syscall.SIGTERM)
	if st.ExitCode() != 0 {
		t.Fatalf("SIGTERM: exit code %d, want 0\n%s", st.ExitCode(), n.log())
	}
	n.start()
	n.waitReady()
	check()
}

// TestLeaderKill: three nodes; the leader is killed with SIGKILL while
// clients push with transaction ids and retry on 503; afterwards every
// acked record is on every node exactly once, offsets without gaps.
func TestLeaderKill(t *testing.T) {
	nodes := startedCluster(t, 3, "three processes and a failover; run without -short")
	var mu sync.Mutex
	live := append([]*node(nil), nodes...)
	alive := func() []*node { mu.Lock(); defer mu.Unlock(); return append([]*node(nil), live...) }

	p := newProducer()
	stop := produce(6, func(ctx context.Context, w int) { p.run(ctx, t, alive, w, 4) })
	waitAcked(t, p, 200)
	leader, followers := leaderOf(t, nodes)
	mu.Lock()
	live = followers
	mu.Unlock()
	leader.signal(syscall.SIGKILL)
	before := ackedCount(p)
	waitAcked(t, p, before+200) // the survivors elect a leader and take pushes again
	leader.start()
	leader.waitReady()
	stop()
	checkExactlyOnce(t, nodes, p, 4)
}

// TestSigtermDrains: SIGTERM while clients push: the node exits 0, and once
// restarted holds every push it acked.
func TestSigtermDrains(t *testing.T) {
	n := single(t)
	p := newProducer()
	var mu sync.Mutex
	live := []*node{n}
	alive := func() []*node { mu.Lock(); defer mu.Unlock(); return live }
	stop := produce(4, func(ctx context.Context, w int) { p.run(ctx, t, alive, w, 2) })
	waitAcked(t, p, 100)
	st := n.signal(syscall.SIGTERM)
	stop()
	if st.ExitCode() != 0 {
		t.Fatalf("SIGTERM: exit code %d, want 0\n%s", st.ExitCode(), n.log())
	}
	n.start()
	n.waitReady()
	checkExactlyOnce(t, []*node{n}, p, 2)
}

func ackedCount(p *producer) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.acked)
}

// waitAcked waits until the producers have n acked records. Pushes carry
// no event a test can wait on, so it polls the count.
func waitAcked(t *testing.T, p *producer, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for ackedCount(p) < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d records acked within 60 s", ackedCount(p), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
