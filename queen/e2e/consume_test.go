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

// popAnswer is the 200 answer of a pop.
type popAnswer struct {
	Success           bool         `json:"success"`
	Queue             string       `json:"queue"`
	Partition         string       `json:"partition"`
	PartitionID       string       `json:"partitionId"`
	LeaseID           string       `json:"leaseId"`
	ConsumerGroup     string       `json:"consumerGroup"`
	PartitionsClaimed int          `json:"partitionsClaimed"`
	Messages          []popMessage `json:"messages"`
}

// popMessage is one message of a pop's answer.
type popMessage struct {
	ID              string          `json:"id"`
	TransactionID   string          `json:"transactionId"`
	Data            json.RawMessage `json:"data"`
	PartitionID     string          `json:"partitionId"`
	Partition       string          `json:"partition"`
	LeaseID         string          `json:"leaseId"`
	DeliveryAttempt int             `json:"deliveryAttempt"`
	Offset          int64           `json:"offset"`
	CreatedAt       string          `json:"createdAt"`
}

type ackResult struct {
	Index         int     `json:"index"`
	TransactionID string  `json:"transactionId"`
	Success       bool    `json:"success"`
	Error         *string `json:"error"`
	LeaseReleased bool    `json:"leaseReleased"`
	DLQ           bool    `json:"dlq"`
	Noop          bool    `json:"noop"`
}

// pop GETs a pop; status 204 gives a zero answer.
func (n *node) pop(ctx context.Context, t *testing.T, queue string, q url.Values) (int, popAnswer) {
	t.Helper()
	var a popAnswer
	code, err := n.call(ctx, http.MethodGet, "/api/v1/pop/queue/"+url.PathEscape(queue)+"?"+q.Encode(), nil, &a)
	if err != nil || (code != 200 && code != 204) {
		t.Fatalf("pop %s?%s: %d %v", queue, q.Encode(), code, err)
	}
	return code, a
}

// ack acks every message of a with status, fenced by its lease.
func (n *node) ack(ctx context.Context, t *testing.T, a popAnswer, group, status string) []ackResult {
	t.Helper()
	var items []map[string]any
	for _, m := range a.Messages {
		items = append(items, map[string]any{"transactionId": m.TransactionID, "partitionId": m.PartitionID,
			"leaseId": m.LeaseID, "status": status})
	}
	var out []ackResult
	code, err := n.call(ctx, http.MethodPost, "/api/v1/ack/batch", map[string]any{"acknowledgments": items, "consumerGroup": group}, &out)
	if err != nil || code != 200 || len(out) != len(items) {
		t.Fatalf("ack: %d %v %+v", code, err, out)
	}
	return out
}

func offsets(a popAnswer) string {
	s := ""
	for _, m := range a.Messages {
		s += fmt.Sprintf("%d#%d ", m.Offset, m.DeliveryAttempt)
	}
	return s
}

// TestConsumeSingleNode: pop, ack, retries, the DLQ, long polling, lease
// extension and expiry through the HTTP API of one real queen process.
func TestConsumeSingleNode(t *testing.T) {
	n := single(t, "QUEEN_RAFT_MAX_CLOCK_SKEW_MS=0")
	ctx := deadline(t, 60*time.Second)
	if err := n.configure(ctx, "jobs", map[string]any{"retryLimit": 1, "retryDelay": 0}); err != nil {
		t.Fatalf("configure: %v", err)
	}
	for i := range 3 {
		if _, err := n.push(ctx, pushItem{Queue: "jobs", Partition: "p", TransactionID: fmt.Sprint("job-", i),
			Payload: json.RawMessage(fmt.Sprintf(`{"job":%d,"total":42.00}`, i))}); err != nil {
			t.Fatal(err)
		}
	}
	// The group subscribes after the pushes: subscriptionMode=all reads them (new, the default, would not).
	g := url.Values{"consumerGroup": {"workers"}, "subscriptionMode": {"all"}}

	// Two consumers of one group: the second gets nothing while the first
	// holds the partition.
	code, a := n.pop(ctx, t, "jobs", with(g, "batch", "2"))
	if code != 200 || offsets(a) != "0#1 1#1 " || string(a.Messages[0].Data) != `{"job":0,"total":42.00}` || a.LeaseID == "" ||
		a.ConsumerGroup != "workers" || a.PartitionsClaimed != 1 {
		t.Fatalf("first pop: %d %+v", code, a)
	}
	if code, b := n.pop(ctx, t, "jobs", with(g, "batch", "2")); code != 204 {
		t.Fatalf("second consumer popped a held partition: %d %+v", code, b)
	}
	// job-0 completes; job-1 fails (retry 1 of retryLimit 1) and the lease is released.
	first, second := a, a
	first.Messages, second.Messages = a.Messages[:1], a.Messages[1:]
	if r := n.ack(ctx, t, first, "workers", "completed"); !r[0].Success || r[0].LeaseReleased {
		t.Fatalf("ack completed: %+v", r)
	}
	if r := n.ack(ctx, t, second, "workers", "failed"); !r[0].Success || !r[0].LeaseReleased || r[0].DLQ {
		t.Fatalf("ack failed: %+v", r)
	}
	// job-1 comes back once more, then its second failure files it in the DLQ.
	code, b := n.pop(ctx, t, "jobs", with(g, "batch", "5"))
	if code != 200 || offsets(b) != "1#2 2#1 " {
		t.Fatalf("after the failure: %d %s", code, offsets(b))
	}
	b1, b2 := b, b
	b1.Messages, b2.Messages = b.Messages[:1], b.Messages[1:]
	if r := n.ack(ctx, t, b1, "workers", "failed"); !r[0].DLQ || !r[0].Success || !r[0].LeaseReleased {
		t.Fatalf("second failure: %+v", r)
	}
	// A nack releases its lease at once, one that files its message in the
	// DLQ too: job-2, after it, is not committed under that lease and comes
	// back.
	if r := n.ack(ctx, t, b2, "workers", "completed"); r[0].Success {
		t.Fatalf("job-2 under the lease the nack released: %+v", r)
	}
	code, b = n.pop(ctx, t, "jobs", with(g, "batch", "5"))
	if code != 200 || offsets(b) != "2#2 " {
		t.Fatalf("after the DLQ: %d %s", code, offsets(b))
	}
	if r := n.ack(ctx, t, b, "workers", "completed"); !r[0].Success || r[0].DLQ || !r[0].LeaseReleased || r[0].Noop {
		t.Fatalf("job-2: %+v", r)
	}
	// A settled message is never settled or delivered again: completed
	// again is a noop, a nack is refused.
	if r := n.ack(ctx, t, b, "workers", "completed"); !r[0].Success || !r[0].Noop || r[0].Error != nil {
		t.Fatalf("a second ack of a settled message: %+v, want a noop", r)
	}
	if r := n.ack(ctx, t, b, "workers", "failed"); r[0].Success || r[0].Error == nil || !strings.Contains(*r[0].Error, "already committed") {
		t.Fatalf("a nack of a settled message: %+v, want a refusal", r)
	}
	if code, c := n.pop(ctx, t, "jobs", g); code != 204 {
		t.Fatalf("a settled message was delivered again: %d %s", code, offsets(c))
	}
	// Queue mode is a group of its own: it reads the queue from the start.
	if code, q := n.pop(ctx, t, "jobs", url.Values{"batch": {"10"}, "commitOnDelivery": {"true"}}); code != 200 || offsets(q) != "0#1 1#1 2#1 " || q.LeaseID != "" {
		t.Fatalf("queue mode: %d %+v", code, q)
	}

	// A long poll is answered by the push that comes while it waits.
	got := make(chan popAnswer, 1)
	go func() {
		_, a := n.pop(ctx, t, "jobs", with(g, "wait", "true", "timeout", "20000"))
		got <- a
	}()
	if _, err := n.push(ctx, pushItem{Queue: "jobs", Partition: "p", TransactionID: "job-3", Payload: json.RawMessage(`{"job":3}`)}); err != nil {
		t.Fatal(err)
	}
	c := <-got
	if offsets(c) != "3#1 " {
		t.Fatalf("long poll: %+v", c)
	}
	// Extension renews a live lease; an unknown one is success false.
	var ext map[string]any
	if code, err := n.call(ctx, http.MethodPost, "/api/v1/lease/"+c.LeaseID+"/extend", map[string]any{"seconds": 1}, &ext); err != nil || code != 200 || ext["success"] != true || ext["renewed"] != float64(1) {
		t.Fatalf("extend: %d %v %v", code, err, ext)
	}
	if code, err := n.call(ctx, http.MethodPost, "/api/v1/lease/no-such-lease/extend", map[string]any{"seconds": 5}, &ext); err != nil || code != 200 || ext["success"] != false {
		t.Fatalf("extend of an unknown lease: %d %v %v", code, err, ext)
	}
	// The lease (now 1 s) expires unacked: a waiting pop gets job-3 again, and the old lease's ack is refused.
	_, d := n.pop(ctx, t, "jobs", with(g, "wait", "true", "timeout", "20000"))
	if offsets(d) != "3#2 " || d.LeaseID == c.LeaseID {
		t.Fatalf("after the lease expired: %+v", d)
	}
	if r := n.ack(ctx, t, c, "workers", "completed"); r[0].Success {
		t.Fatalf("an ack under the expired lease: %+v", r)
	}
	if r := n.ack(ctx, t, d, "workers", "completed"); !r[0].Success || !r[0].LeaseReleased {
		t.Fatalf("an ack under the live lease: %+v", r)
	}
}
