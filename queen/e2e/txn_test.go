package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

type txnAnswer struct {
	TransactionID string `json:"transactionId"`
	Success       bool   `json:"success"`
	Reason        string `json:"reason"`
	Error         string `json:"error"`
	Results       []struct {
		Index int    `json:"index"`
		Type  string `json:"type"`
	} `json:"results"`
}

// txnBody acks message m of a pop, pushes two records derived from it to
// queue out and increments a KV counter: one transaction.
func txnBody(m popMessage, lease string, required ...string) map[string]any {
	return map[string]any{
		"operations": []map[string]any{
			{"type": "ack", "transactionId": m.TransactionID, "partitionId": m.PartitionID, "leaseId": lease},
			{"type": "push", "items": []map[string]any{
				{"queue": "out", "partition": m.Partition, "transactionId": m.TransactionID + "-a", "payload": map[string]any{"from": m.TransactionID}},
				{"queue": "out", "partition": m.Partition, "transactionId": m.TransactionID + "-b", "payload": map[string]any{"from": m.TransactionID}},
			}},
		},
		"requiredLeases": required,
		"kv":             []map[string]any{{"op": "incr", "ns": "txn", "key": "count", "delta": 1, "forever": true}},
	}
}

// TestTransactionsSurviveALeaderKill: workers on three nodes turn each
// message of queue in into one transaction (ack it, push two records to
// queue out, incr a counter), retrying with the same ids on 503s and lost
// connections, while the leader is killed with SIGKILL. Every message's
// transaction is seen whole exactly once: out holds two records per
// message and no more, and the counter equals the number of messages.
func TestTransactionsSurviveALeaderKill(t *testing.T) {
	nodes := startedCluster(t, 3, "three processes and a failover; run without -short", "QUEEN_RAFT_MAX_CLOCK_SKEW_MS=100")
	const messages = 300
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	for i := range messages {
		if _, err := nodes[i%3].push(ctx, pushItem{Queue: "in", Partition: fmt.Sprint("p", i%4), TransactionID: fmt.Sprint("m-", i),
			Payload: json.RawMessage(fmt.Sprintf(`{"m":%d}`, i))}); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	live := append([]*node(nil), nodes...)
	pick := func() *node { mu.Lock(); defer mu.Unlock(); return live[rand.IntN(len(live))] }
	var committed, retriedRollbacks atomic.Int64
	var done atomic.Int64 // messages whose transaction is known settled

	worker := func() {
		for ctx.Err() == nil && done.Load() < messages {
			var a popAnswer
			q := url.Values{"batch": {"1"}, "leaseSeconds": {"5"}, "wait": {"true"}, "timeout": {"1000"}}
			code, err := pick().call(ctx, http.MethodGet, "/api/v1/pop/queue/in?"+q.Encode(), nil, &a)
			if err != nil || code != 200 {
				continue // 204, a 503 or a dead node: try again
			}
			m := a.Messages[0]
			body := txnBody(m, a.LeaseID)
			for attempt := 0; ctx.Err() == nil; attempt++ {
				var ans txnAnswer
				code, err := pick().call(ctx, http.MethodPost, "/api/v1/transaction", body, &ans)
				if err != nil || code == 503 {
					continue // outcome unknown: the same transaction again
				}
				if code != 200 {
					t.Errorf("transaction for %s: %d %+v", m.TransactionID, code, ans)
					return
				}
				switch {
				case ans.Success:
					committed.Add(1)
					done.Add(1)
				case attempt > 0 && (ans.Reason == "rejected_ack" || ans.Reason == "duplicate"):
					// A retry of a transaction that committed before its answer was lost,
					// or whose lease expired meanwhile (the message comes back then).
					retriedRollbacks.Add(1)
				case ans.Reason == "rejected_ack":
					// The lease expired before the transaction: the message comes back.
				default:
					t.Errorf("transaction for %s rolled back: %+v", m.TransactionID, ans)
				}
				break
			}
		}
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); worker() }()
	}
	waitCommitted := func(n int64) {
		for committed.Load() < n && ctx.Err() == nil {
			time.Sleep(20 * time.Millisecond) // pacing the watch on the workers' progress
		}
		if ctx.Err() != nil {
			t.Fatalf("only %d transactions committed, waiting for %d", committed.Load(), n)
		}
	}
	waitCommitted(messages / 5)
	leader, followers := leaderOf(t, nodes)
	mu.Lock()
	live = followers
	mu.Unlock()
	leader.signal(syscall.SIGKILL)
	atKill := committed.Load()
	waitCommitted(atKill + messages/5) // the survivors elect a leader and commit again
	leader.start()
	leader.waitReady()
	mu.Lock()
	live = append([]*node(nil), nodes...)
	mu.Unlock()

	// Run until queue in is drained: done counts only the committed
	// transactions this run saw, so also stop once a pop finds nothing
	// pending in any partition for the length of a lease.
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		var lag struct {
			Queues []struct {
				Lag int64 `json:"lag"`
			} `json:"queues"`
		}
		if code, err := nodes[0].call(ctx, http.MethodGet, "/api/v1/consumer-groups/__QUEUE_MODE__", nil, &lag); err == nil && code == 200 &&
			len(lag.Queues) == 1 && lag.Queues[0].Lag == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond) // pacing the poll of the group's lag
	}
	cancel()
	wg.Wait()

	check, stop := context.WithTimeout(context.Background(), 30*time.Second)
	defer stop()
	seen := map[string]int{}
	for p := range 4 {
		recs, _, err := nodes[1].fetchAll(check, "out", fmt.Sprint("p", p))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			seen[r.TransactionID]++
		}
	}
	for i := range messages {
		for _, s := range []string{"-a", "-b"} {
			if n := seen[fmt.Sprint("m-", i, s)]; n != 1 {
				t.Errorf("out holds m-%d%s %d times, want once", i, s, n)
			}
		}
	}
	if len(seen) != 2*messages {
		t.Errorf("out holds %d distinct records, want %d", len(seen), 2*messages)
	}
	var kv map[string]any
	if _, err := nodes[2].call(check, http.MethodGet, "/api/v1/kv/txn/count", nil, &kv); err != nil || kv["value"] != float64(messages) {
		t.Fatalf("the counter is %v (%v), want %d: an increment was lost or doubled", kv["value"], err, messages)
	}
	t.Logf("%d transactions committed as answered (%d before the kill), %d retries rolled back as already applied or expired",
		committed.Load(), atKill, retriedRollbacks.Load())
}

// TestATransactionOnAnExpiredLeaseIsRefused: the lease named by
// requiredLeases expired (the message went to another consumer), so the
// transaction rolls back as rejected_ack and applies nothing.
func TestATransactionOnAnExpiredLeaseIsRefused(t *testing.T) {
	n := single(t, "QUEEN_RAFT_MAX_CLOCK_SKEW_MS=0")
	ctx := deadline(t, 30*time.Second)
	if _, err := n.push(ctx, pushItem{Queue: "in", Partition: "p", TransactionID: "m-0", Payload: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	_, first := n.pop(ctx, t, "in", url.Values{"leaseSeconds": {"1"}})
	// A second consumer parks until the lease ends and takes the message.
	_, second := n.pop(ctx, t, "in", url.Values{"wait": {"true"}, "timeout": {"10000"}})
	if len(second.Messages) != 1 {
		t.Fatalf("the lease did not expire: %+v", second)
	}
	var ans txnAnswer
	m := first.Messages[0]
	msg := popMessage{TransactionID: m.TransactionID, PartitionID: m.PartitionID, Partition: m.Partition}
	if code, err := n.call(ctx, http.MethodPost, "/api/v1/transaction", txnBody(msg, first.LeaseID, first.LeaseID), &ans); err != nil || code != 200 {
		t.Fatalf("transaction: %d %v", code, err)
	}
	if ans.Success || ans.Reason != "rejected_ack" || len(ans.Results) != 0 {
		t.Fatalf("a transaction on an expired lease answered %+v", ans)
	}
	if recs, _, err := n.fetchAll(ctx, "out", "p"); err == nil && len(recs) != 0 {
		t.Fatalf("the refused transaction pushed %d records", len(recs))
	}
}
