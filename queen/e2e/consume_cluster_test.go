package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// with copies v and sets the key/value pairs kv on the copy.
func with(v url.Values, kv ...string) url.Values {
	out := url.Values{}
	for k, x := range v {
		out[k] = append([]string(nil), x...)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out.Set(kv[i], kv[i+1])
	}
	return out
}

// popPartition GETs a pop of one partition; status 204 gives a zero answer.
func (n *node) popPartition(ctx context.Context, t *testing.T, queue, partition string, q url.Values) (int, popAnswer) {
	t.Helper()
	var a popAnswer
	code, err := n.call(ctx, http.MethodGet, "/api/v1/pop/queue/"+url.PathEscape(queue)+"/partition/"+url.PathEscape(partition)+"?"+q.Encode(), nil, &a)
	if err != nil || (code != 200 && code != 204) {
		t.Fatalf("pop %s/%s?%s: %d %v", queue, partition, q.Encode(), code, err)
	}
	return code, a
}

// onePartition checks that a pop leased messages of one partition only,
// and returns it.
func onePartition(t *testing.T, a popAnswer) string {
	t.Helper()
	if len(a.Messages) == 0 {
		t.Fatalf("a 200 pop without messages: %+v", a)
	}
	p := a.Messages[0].Partition
	for _, m := range a.Messages {
		if m.Partition != p || m.LeaseID != a.LeaseID || m.PartitionID != a.PartitionID {
			t.Fatalf("pop of one partition answered %+v", a)
		}
	}
	if a.PartitionsClaimed != 1 || a.LeaseID == "" {
		t.Fatalf("pop answer's header disagrees with its messages: %+v", a)
	}
	return p
}

// TestConsumeThreeNodes: consumers of one group pop and ack through the
// HTTP API of three real nodes, each call through whichever node it likes.
// It shows that two consumers never hold one partition at once, that each
// partition is consumed in order with no skips, that an expired lease
// delivers again (to a long poll), that a successful ack is never
// delivered again, and that a long poll on a follower is answered by a
// push made through another node.
func TestConsumeThreeNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("three processes; run without -short")
	}
	const skew = 300 * time.Millisecond
	nodes := cluster(t, 3, fmt.Sprintf("QUEEN_RAFT_MAX_CLOCK_SKEW_MS=%d", skew.Milliseconds()))
	startAll(nodes)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	leader, followers := leaderOf(t, nodes)

	// Five messages on each of four partitions, each pushed through one of
	// the three nodes in turn.
	const parts, perPart = 4, 5
	for k := range perPart {
		for i := range parts {
			n := nodes[(i+k)%3]
			ans, err := n.push(ctx, pushItem{Queue: "jobs", Partition: fmt.Sprint("p-", i), TransactionID: fmt.Sprintf("m-%d-%d", i, k),
				Payload: json.RawMessage(fmt.Sprintf(`{"p":%d,"k":%d,"total":42.00}`, i, k))})
			if err != nil || ans[0].Status != "queued" || ans[0].Offset != int64(k) {
				t.Fatalf("push m-%d-%d through node %d: %+v %v", i, k, n.id, ans, err)
			}
		}
	}
	g := url.Values{"consumerGroup": {"workers"}, "subscriptionMode": {"all"}}

	// Four consumers pop at once, each through a node of its own choosing:
	// each gets a partition no other holds, from its first offset.
	type popped struct {
		n    *node
		code int
		a    popAnswer
		err  error
	}
	results := make(chan popped, parts)
	for i := range parts {
		n := nodes[i%3]
		go func() {
			var a popAnswer
			code, err := n.call(ctx, http.MethodGet, "/api/v1/pop/queue/jobs?"+with(g, "batch", "3", "leaseSeconds", "30").Encode(), nil, &a)
			results <- popped{n, code, a, err}
		}()
	}
	held := map[string]popped{}
	for range parts {
		r := <-results
		if r.err != nil || r.code != 200 {
			t.Fatalf("concurrent pop through node %d: %d %v", r.n.id, r.code, r.err)
		}
		p := onePartition(t, r.a)
		if offsets(r.a) != "0#1 1#1 2#1 " || string(r.a.Messages[0].Data) != fmt.Sprintf(`{"p":%s,"k":0,"total":42.00}`, strings.TrimPrefix(p, "p-")) {
			t.Fatalf("pop through node %d of %s: %s %s", r.n.id, p, offsets(r.a), r.a.Messages[0].Data)
		}
		if o, dup := held[p]; dup {
			t.Fatalf("two consumers hold partition %s at once: lease %s (node %d) and %s (node %d)", p, o.a.LeaseID, o.n.id, r.a.LeaseID, r.n.id)
		}
		held[p] = r
	}
	// Every partition is held: one more consumer gets nothing, through any
	// node, whether it asks for the queue or for one held partition.
	for _, n := range nodes {
		if code, b := n.pop(ctx, t, "jobs", with(g, "batch", "3")); code != 204 {
			t.Fatalf("node %d gave a fifth consumer a held partition: %d %+v", n.id, code, b)
		}
		for p := range held {
			if code, b := n.popPartition(ctx, t, "jobs", p, with(g, "batch", "3")); code != 204 {
				t.Fatalf("node %d gave held partition %s to another consumer: %d %+v", n.id, p, code, b)
			}
		}
	}
	// Each lease is acked through a node other than the one that popped it;
	// the last ack releases the partition.
	for p, r := range held {
		other := nodes[r.n.id%3] // the next node
		res := other.ack(ctx, t, r.a, "workers", "completed")
		for i, x := range res {
			if !x.Success || x.LeaseReleased != (i == len(res)-1) || x.DLQ {
				t.Fatalf("ack of %s through node %d: %+v", p, other.id, res)
			}
		}
	}

	// The next pops continue each partition where its acks left it: order
	// with no skips. The first partition keeps its lease (1 s) unacked.
	expiring := "p-0"
	var short popAnswer
	var shortAt time.Time
	for i := parts - 1; i >= 0; i-- {
		p, n := fmt.Sprint("p-", i), nodes[i%3]
		lease := "30"
		if p == expiring {
			lease = "1"
			shortAt = time.Now()
		}
		code, a := n.popPartition(ctx, t, "jobs", p, with(g, "batch", "10", "leaseSeconds", lease))
		if code != 200 || onePartition(t, a) != p || offsets(a) != "3#1 4#1 " {
			t.Fatalf("second pop of %s through node %d: %d %s", p, n.id, code, offsets(a))
		}
		if p == expiring {
			short = a
			break
		}
		if res := nodes[(i+1)%3].ack(ctx, t, a, "workers", "completed"); !res[0].Success || !res[1].Success || !res[1].LeaseReleased {
			t.Fatalf("ack of %s: %+v", p, res)
		}
	}
	// While the short lease lives, nobody else gets its partition.
	if code, b := nodes[1].popPartition(ctx, t, "jobs", expiring, with(g, "batch", "10")); code != 204 {
		t.Fatalf("a held partition was leased again before its lease ended: %d %s", code, offsets(b))
	}
	// A long poll on a follower waits for the lease to end (plus the skew
	// margin) and gets the same messages again, one delivery later.
	follower := followers[0]
	code, again := follower.pop(ctx, t, "jobs", with(g, "batch", "10", "wait", "true", "timeout", "4000", "leaseSeconds", "30"))
	waited := time.Since(shortAt)
	if code != 200 || onePartition(t, again) != expiring || offsets(again) != "3#2 4#2 " || again.LeaseID == short.LeaseID {
		t.Fatalf("after the lease expired, the long poll on node %d answered %d %s", follower.id, code, offsets(again))
	}
	if waited < time.Second+skew {
		t.Fatalf("the partition came back %v after its 1 s lease was taken: before its end plus the skew margin %v", waited, skew)
	}
	if r := leader.ack(ctx, t, short, "workers", "completed"); r[0].Success || r[0].Error == nil {
		t.Fatalf("an ack under the expired lease was taken: %+v", r)
	}
	if r := nodes[0].ack(ctx, t, again, "workers", "completed"); !r[0].Success || !r[1].Success || !r[1].LeaseReleased {
		t.Fatalf("an ack under the live lease: %+v", r)
	}

	// A successful ack is never delivered again: not once its lease (1 s)
	// has ended, not to another node, not by partition.
	ans, err := nodes[2].push(ctx, pushItem{Queue: "jobs", Partition: "p-1", TransactionID: "m-1-5", Payload: json.RawMessage(`{"p":1,"k":5}`)})
	if err != nil || ans[0].Offset != perPart {
		t.Fatalf("push m-1-5: %+v %v", ans, err)
	}
	code, last := nodes[0].pop(ctx, t, "jobs", with(g, "batch", "10", "leaseSeconds", "1"))
	if code != 200 || offsets(last) != "5#1 " || last.Messages[0].TransactionID != "m-1-5" {
		t.Fatalf("pop of m-1-5: %d %s", code, offsets(last))
	}
	if r := nodes[1].ack(ctx, t, last, "workers", "completed"); !r[0].Success || !r[0].LeaseReleased {
		t.Fatalf("ack of m-1-5: %+v", r)
	}
	start := time.Now()
	if code, b := nodes[2].pop(ctx, t, "jobs", with(g, "batch", "10", "wait", "true", "timeout", "2500")); code != 204 || time.Since(start) < 2500*time.Millisecond {
		t.Fatalf("after every ack, a long poll answered %d %s after %v", code, offsets(b), time.Since(start))
	}
	for _, n := range nodes {
		if code, b := n.pop(ctx, t, "jobs", with(g, "batch", "10")); code != 204 {
			t.Fatalf("node %d delivered an acked message again: %s", n.id, offsets(b))
		}
		for i := range parts {
			if code, b := n.popPartition(ctx, t, "jobs", fmt.Sprint("p-", i), with(g, "batch", "10")); code != 204 {
				t.Fatalf("node %d delivered an acked message of p-%d again: %s", n.id, i, offsets(b))
			}
		}
	}
	if r := nodes[2].ack(ctx, t, last, "workers", "completed"); !r[0].Success || !r[0].Noop {
		t.Fatalf("a second ack of a settled message: %+v, want a noop", r)
	}

	// A long poll on a follower is answered by a push made through the
	// leader. The poll's group is new and subscribes in mode new: it reads
	// only what is pushed after its first pop. So getting the push proves
	// the poll's first pop came first and found nothing, and that the push
	// woke the waiting poll; if the push came first instead (the poll got
	// no head start), the poll answers 204 at its timeout and the scenario
	// runs again with a fresh group.
	for try := 0; ; try++ {
		group := fmt.Sprint("watchers-", try)
		type polled struct {
			code int
			a    popAnswer
			err  error
			at   time.Time
		}
		got := make(chan polled, 1)
		go func() {
			var a popAnswer
			code, err := follower.call(ctx, http.MethodGet, "/api/v1/pop/queue/jobs?"+url.Values{"consumerGroup": {group}, "wait": {"true"},
				"timeout": {"3000"}, "leaseSeconds": {"30"}}.Encode(), nil, &a)
			got <- polled{code, a, err, time.Now()}
		}()
		time.Sleep(200 * time.Millisecond) // pacing: a head start for the poll; the outcome checks the order
		select {
		case r := <-got:
			t.Fatalf("the long poll on node %d answered before anything was pushed: %d %v %s", follower.id, r.code, r.err, offsets(r.a))
		default:
		}
		txid := fmt.Sprint("late-", try)
		pushedAt := time.Now()
		ans, err := leader.push(ctx, pushItem{Queue: "jobs", Partition: "p-2", TransactionID: txid, Payload: json.RawMessage(`{"late":true}`)})
		if err != nil {
			t.Fatal(err)
		}
		r := <-got
		if r.err != nil {
			t.Fatalf("long poll on node %d: %v", follower.id, r.err)
		}
		if r.code == 204 && try < 2 {
			t.Logf("try %d: the push was ordered before the poll's first pop; again", try)
			continue
		}
		if r.code != 200 || len(r.a.Messages) != 1 || r.a.Messages[0].TransactionID != txid || r.a.Messages[0].Offset != ans[0].Offset {
			t.Fatalf("the long poll on node %d answered %d %+v, want %s pushed through node %d", follower.id, r.code, r.a, txid, leader.id)
		}
		t.Logf("long poll on follower %d answered %v after the push through leader %d", follower.id, r.at.Sub(pushedAt).Round(time.Millisecond), leader.id)
		break
	}

	// Failed acks spend retries across nodes, then the message lands in the
	// DLQ; a replay through another node brings it back once.
	if err := nodes[0].configure(ctx, "flaky", map[string]any{"retryLimit": 1, "retryDelay": 0}); err != nil {
		t.Fatalf("configure: %v", err)
	}
	if _, err := nodes[1].push(ctx, pushItem{Queue: "flaky", Partition: "f", TransactionID: "flaky-0", Payload: json.RawMessage(`{"n":1.50}`)}); err != nil {
		t.Fatal(err)
	}
	for attempt := 1; attempt <= 2; attempt++ {
		_, a := nodes[(attempt+1)%3].pop(ctx, t, "flaky", url.Values{"wait": {"true"}, "timeout": {"3000"}})
		if len(a.Messages) != 1 || a.Messages[0].DeliveryAttempt != attempt {
			t.Fatalf("delivery %d of flaky-0: %+v", attempt, a)
		}
		r := nodes[attempt%3].ack(ctx, t, a, httpdQueueMode, "failed")
		if !r[0].Success || r[0].DLQ != (attempt == 2) {
			t.Fatalf("failed ack %d: %+v (retryLimit 1: the second goes to the DLQ)", attempt, r)
		}
	}
	var dlq struct {
		Messages []struct {
			ID            string          `json:"id"`
			TransactionID string          `json:"transactionId"`
			Data          json.RawMessage `json:"data"`
		} `json:"messages"`
	}
	if code, err := nodes[2].call(ctx, http.MethodGet, "/api/v1/dlq?queue=flaky", nil, &dlq); err != nil || code != 200 ||
		len(dlq.Messages) != 1 || dlq.Messages[0].TransactionID != "flaky-0" || string(dlq.Messages[0].Data) != `{"n":1.50}` {
		t.Fatalf("the DLQ through node 3: %d %v %+v", code, err, dlq)
	}
	id := dlq.Messages[0].ID
	if code, err := nodes[0].call(ctx, http.MethodPost, "/api/v1/dlq/"+id+"/replay", nil, nil); err != nil || code != 200 {
		t.Fatalf("replay through node 1: %d %v", code, err)
	}
	if code, _ := nodes[1].call(ctx, http.MethodPost, "/api/v1/dlq/"+id+"/replay", nil, nil); code != 404 {
		t.Fatalf("a second replay through node 2 answered %d, want 404 gone", code)
	}
	_, back := nodes[1].pop(ctx, t, "flaky", url.Values{"wait": {"true"}, "timeout": {"3000"}, "batch": {"10"}})
	if len(back.Messages) != 1 || back.Messages[0].TransactionID != "dlq:"+id || string(back.Messages[0].Data) != `{"n":1.50}` {
		t.Fatalf("the replayed message: %+v", back)
	}
	if r := nodes[2].ack(ctx, t, back, httpdQueueMode, "completed"); !r[0].Success {
		t.Fatalf("ack of the replayed message: %+v", r)
	}
	if code, a := nodes[0].pop(ctx, t, "flaky", url.Values{"batch": {"10"}}); code != 204 {
		t.Fatalf("the replayed message came back twice: %s", offsets(a))
	}
}

// httpdQueueMode is the consumer group of queue mode.
const httpdQueueMode = "__QUEUE_MODE__"
