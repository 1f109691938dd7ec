package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"sync"
)

// TestGroupsDLQAndMessages: the consumer-group, DLQ and messages routes of
// one real queen process, on the state pops and acks left.
func TestGroupsDLQAndMessages(t *testing.T) {
	n := single(t)
	ctx := deadline(t, 60*time.Second)
	for i := range 4 {
		if _, err := n.push(ctx, pushItem{Queue: "jobs", Partition: "p", TransactionID: fmt.Sprint("job-", i),
			Payload: json.RawMessage(fmt.Sprintf(`{"job":%d,"total":42.00}`, i))}); err != nil {
			t.Fatal(err)
		}
	}
	g := url.Values{"consumerGroup": {"workers"}, "subscriptionMode": {"all"}, "batch": {"2"}}
	_, a := n.pop(ctx, t, "jobs", g)
	first, second := a, a
	first.Messages, second.Messages = a.Messages[:1], a.Messages[1:]
	n.ack(ctx, t, first, "workers", "completed")
	if r := n.ack(ctx, t, second, "workers", "dlq"); !r[0].DLQ {
		t.Fatalf("ack dlq: %+v", r)
	}
	_, leased := n.pop(ctx, t, "jobs", g) // job-2 and job-3, left leased

	var detail struct {
		Name   string `json:"name"`
		Queues []struct {
			Queue      string `json:"queue"`
			Lag        int64  `json:"lag"`
			Partitions []struct {
				Cursor        int64   `json:"cursor"`
				HighWatermark int64   `json:"highWatermark"`
				LeaseID       *string `json:"leaseId"`
			} `json:"partitions"`
		} `json:"queues"`
	}
	if code, err := n.call(ctx, http.MethodGet, "/api/v1/consumer-groups/workers", nil, &detail); err != nil || code != 200 {
		t.Fatalf("group detail: %d %v", code, err)
	}
	if len(detail.Queues) != 1 || detail.Queues[0].Lag != 2 || detail.Queues[0].Partitions[0].Cursor != 2 ||
		detail.Queues[0].Partitions[0].LeaseID == nil || *detail.Queues[0].Partitions[0].LeaseID != leased.LeaseID {
		t.Fatalf("group detail: %+v", detail)
	}

	// Messages, for queue mode (which read nothing yet): all pending.
	var msgs struct {
		Messages []struct {
			TransactionID string          `json:"transactionId"`
			Data          json.RawMessage `json:"data"`
			Status        string          `json:"status"`
		} `json:"messages"`
	}
	if code, err := n.call(ctx, http.MethodGet, "/api/v1/messages?queue=jobs&limit=3&offset=1", nil, &msgs); err != nil || code != 200 ||
		len(msgs.Messages) != 3 || msgs.Messages[0].TransactionID != "job-1" || string(msgs.Messages[0].Data) != `{"job":1,"total":42.00}` ||
		msgs.Messages[2].Status != "pending" {
		t.Fatalf("messages: %d %v %+v", code, err, msgs)
	}

	// The DLQ holds job-1; a replay pushes it back once, then it is gone.
	var dlq struct {
		Messages []struct {
			ID            string          `json:"id"`
			TransactionID string          `json:"transactionId"`
			Data          json.RawMessage `json:"data"`
			ConsumerGroup string          `json:"consumerGroup"`
		} `json:"messages"`
	}
	if code, err := n.call(ctx, http.MethodGet, "/api/v1/dlq?queue=jobs", nil, &dlq); err != nil || code != 200 || len(dlq.Messages) != 1 ||
		dlq.Messages[0].TransactionID != "job-1" || dlq.Messages[0].ConsumerGroup != "workers" || string(dlq.Messages[0].Data) != `{"job":1,"total":42.00}` {
		t.Fatalf("dlq: %d %v %+v", code, err, dlq)
	}
	id := dlq.Messages[0].ID
	var replay map[string]any
	if code, err := n.call(ctx, http.MethodPost, "/api/v1/dlq/"+id+"/replay", map[string]any{"queue": "retried", "partition": "r"}, &replay); err != nil ||
		code != 200 || replay["verdict"] != "moved" {
		t.Fatalf("replay: %d %v %v", code, err, replay)
	}
	if code, _ := n.call(ctx, http.MethodPost, "/api/v1/dlq/"+id+"/replay", nil, nil); code != 404 {
		t.Fatalf("a second replay answered %d, want 404 gone", code)
	}
	recs, _, err := n.fetchAll(ctx, "retried", "r")
	if err != nil || len(recs) != 1 || recs[0].TransactionID != "dlq:"+id || string(recs[0].Payload) != `{"job":1,"total":42.00}` {
		t.Fatalf("the replayed copy: %+v %v", recs, err)
	}

	// A seek to the end releases the lease and leaves nothing to pop.
	var seek map[string]any
	if code, err := n.call(ctx, http.MethodPost, "/api/v1/consumer-groups/workers/queues/jobs/seek", map[string]any{"toEnd": true}, &seek); err != nil || code != 200 {
		t.Fatalf("seek: %d %v", code, err)
	}
	if code, _ := n.pop(ctx, t, "jobs", g); code != 204 {
		t.Fatalf("pop after a seek to the end: %d", code)
	}
	// The seek committed what the lease held: its acks change nothing, a
	// nack of it is refused.
	if r := n.ack(ctx, t, leased, "workers", "completed"); !r[0].Success || !r[0].Noop {
		t.Fatalf("an ack under the lease the seek released: %+v, want a noop", r)
	}
	if r := n.ack(ctx, t, leased, "workers", "failed"); r[0].Success {
		t.Fatalf("a nack of what the seek passed: %+v, want a refusal", r)
	}
	if code, err := n.call(ctx, http.MethodDelete, "/api/v1/consumer-groups/workers", nil, nil); err != nil || code != 200 {
		t.Fatalf("delete group: %d %v", code, err)
	}
	if code, _ := n.call(ctx, http.MethodGet, "/api/v1/consumer-groups/workers", nil, nil); code != 404 {
		t.Fatalf("a deleted group answered %d", code)
	}
}

// TestEncryptedQueues: a queue with encryptionEnabled keeps its payloads
// sealed at rest; readers with the key get them as pushed, and the same
// node restarted without the key cannot read them (nor configure or push
// to such a queue).
func TestEncryptedQueues(t *testing.T) {
	key := "QUEEN_ENCRYPTION_KEY=" + strings.Repeat("5a", 32)
	n := single(t, key)
	ctx := deadline(t, 60*time.Second)
	if err := n.configure(ctx, "secret", map[string]any{"encryptionEnabled": true}); err != nil {
		t.Fatalf("configure: %v", err)
	}
	payload := `{"card":"4111 1111 1111 1111","total":42.00}`
	if _, err := n.push(ctx, pushItem{Queue: "secret", Partition: "p", Payload: json.RawMessage(payload)}); err != nil {
		t.Fatal(err)
	}
	recs, _, err := n.fetchAll(ctx, "secret", "p")
	if err != nil || len(recs) != 1 || string(recs[0].Payload) != payload {
		t.Fatalf("fetch with the key: %+v %v", recs, err)
	}
	if _, a := n.pop(ctx, t, "secret", url.Values{}); len(a.Messages) != 1 || string(a.Messages[0].Data) != payload {
		t.Fatalf("pop with the key: %+v", a)
	}

	if st := n.signal(syscall.SIGTERM); st.ExitCode() != 0 {
		t.Fatalf("SIGTERM: %d", st.ExitCode())
	}
	n.env = append(n.env, "QUEEN_ENCRYPTION_KEY=") // blank: unset
	n.start()
	n.waitReady()
	recs, _, err = n.fetchAll(ctx, "secret", "p")
	var sealed string
	if err != nil || len(recs) != 1 || json.Unmarshal(recs[0].Payload, &sealed) != nil || strings.Contains(sealed, "4111") {
		t.Fatalf("fetch without the key must give the sealed bytes as a JSON string: %s %v", recs[0].Payload, err)
	}
	if code, _ := n.call(ctx, http.MethodPost, "/api/v1/push", map[string]any{"items": []map[string]any{{"queue": "secret", "payload": 1}}}, nil); code != 409 {
		t.Fatalf("a push to an encrypted queue without the key answered %d, want 409", code)
	}
	if code, _ := n.call(ctx, http.MethodPost, "/api/v1/configure", map[string]any{"queue": "other",
		"options": map[string]any{"encryptionEnabled": true}}, nil); code != 409 {
		t.Fatalf("configuring encryption without the key answered %d, want 409", code)
	}
}

// TestMaxSize: a queue configured with maxSize takes that many records and
// answers the items past it with status error, pushing nothing for them.
func TestMaxSize(t *testing.T) {
	n := single(t)
	ctx := deadline(t, 30*time.Second)
	if err := n.configure(ctx, "small", map[string]any{"maxSize": 2}); err != nil {
		t.Fatalf("configure: %v", err)
	}
	ans, err := n.push(ctx, pushItem{Queue: "small", Payload: json.RawMessage(`1`)}, pushItem{Queue: "small", Payload: json.RawMessage(`2`)},
		pushItem{Queue: "small", Payload: json.RawMessage(`3`)}, pushItem{Queue: "other", Payload: json.RawMessage(`4`)})
	if err != nil || ans[0].Status != "queued" || ans[1].Status != "queued" || ans[2].Status != "error" || ans[3].Status != "queued" {
		t.Fatalf("push past maxSize: %+v %v", ans, err)
	}
	if recs, hwm, err := n.fetchAll(ctx, "small", "Default"); err != nil || hwm != 2 || len(recs) != 2 {
		t.Fatalf("the full queue holds %d records (hwm %d): %v", len(recs), hwm, err)
	}
}

// TestMaxSizeAcrossNodes: maxSize is judged where the entry applies, so
// pushes through three nodes at once cannot pass it together. (Before,
// each node judged it on its own view, and concurrent pushes through
// several nodes stored far more than maxSize.)
func TestMaxSizeAcrossNodes(t *testing.T) {
	nodes := cluster(t, 3)
	startAll(nodes)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const maxSize = 20
	if err := nodes[0].configure(ctx, "small", map[string]any{"maxSize": maxSize}); err != nil {
		t.Fatalf("configure: %v", err)
	}
	// Every node has applied the configure before the pushes start.
	for _, n := range nodes {
		if err := n.waitHighWatermark(ctx, "small", "Default", 0); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	queued, full := 0, 0
	for w := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := nodes[w%3]
			items := make([]pushItem, 5)
			for i := range items {
				items[i] = pushItem{Queue: "small", Payload: json.RawMessage(fmt.Sprint(w*10 + i))}
			}
			ans, err := n.push(ctx, items...)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, a := range ans {
				switch a.Status {
				case "queued":
					queued++
				case "error":
					full++
				}
			}
		}()
	}
	wg.Wait()
	if queued != maxSize || full != 60-maxSize {
		t.Errorf("%d queued and %d refused of 60, want %d and %d", queued, full, maxSize, 60-maxSize)
	}
	for _, n := range nodes {
		if err := n.waitHighWatermark(ctx, "small", "Default", int64(queued)); err != nil {
			t.Fatal(err)
		}
		if recs, hwm, err := n.fetchAll(ctx, "small", "Default"); err != nil || hwm != maxSize || len(recs) != maxSize {
			t.Errorf("node %d: the queue holds %d records (hwm %d), maxSize is %d: %v", n.id, len(recs), hwm, maxSize, err)
		}
	}
}

// TestMessageByIDAndRetry: GET /api/v1/messages/:partitionId/:transactionId
// describes a message with its status per group and its dead letters;
// POST …/retry puts it back from the DLQ once, and a second retry finds it
// in no dead-letter queue.
func TestMessageByIDAndRetry(t *testing.T) {
	n := single(t)
	ctx := deadline(t, 60*time.Second)
	for i := range 2 {
		if _, err := n.push(ctx, pushItem{Queue: "orders", Partition: "p", TransactionID: fmt.Sprint("id/", i), Payload: json.RawMessage(`{"total":42.00}`)}); err != nil {
			t.Fatal(err)
		}
	}
	g := url.Values{"consumerGroup": {"billing"}, "subscriptionMode": {"all"}, "batch": {"1"}}
	_, a := n.pop(ctx, t, "orders", g)
	if r := n.ack(ctx, t, a, "billing", "dlq"); !r[0].DLQ {
		t.Fatalf("dlq: %+v", r)
	}
	pid := a.Messages[0].PartitionID
	var m struct {
		TransactionID  string          `json:"transactionId"`
		Offset         int64           `json:"offset"`
		Data           json.RawMessage `json:"data"`
		Status         string          `json:"status"`
		ConsumerGroups []struct {
			ConsumerGroup, Status string
		} `json:"consumerGroups"`
		DeadLetters []string `json:"deadLetters"`
	}
	if code, err := n.call(ctx, http.MethodGet, "/api/v1/messages/"+pid+"/id/0", nil, &m); err != nil || code != 200 {
		t.Fatalf("get message: %d %v", code, err)
	}
	if m.TransactionID != "id/0" || m.Offset != 0 || string(m.Data) != `{"total":42.00}` || m.Status != "pending" ||
		len(m.ConsumerGroups) != 1 || m.ConsumerGroups[0].ConsumerGroup != "billing" || m.ConsumerGroups[0].Status != "dlq" || len(m.DeadLetters) != 1 {
		t.Fatalf("message: %+v", m)
	}
	// The DLQ pages with the filters the client sends, and counts them.
	for _, c := range []struct {
		query           string
		messages, total int
	}{
		{"queue=orders", 1, 1},
		{"queue=orders&offset=1", 0, 1},
		{"queue=orders&partition=other", 0, 0},
		{"queue=orders&consumerGroup=billing&from=" + url.QueryEscape(time.Now().Add(time.Hour).Format(time.RFC3339)), 0, 0},
		{"queue=orders&to=" + url.QueryEscape(time.Now().Add(time.Hour).Format(time.RFC3339)), 1, 1},
	} {
		var d struct {
			Messages []any `json:"messages"`
			Total    *int  `json:"total"`
		}
		if code, err := n.call(ctx, http.MethodGet, "/api/v1/dlq?"+c.query, nil, &d); err != nil || code != 200 || d.Total == nil ||
			len(d.Messages) != c.messages || *d.Total != c.total {
			t.Fatalf("dlq?%s: %d %v %+v, want %d messages of %d", c.query, code, err, d, c.messages, c.total)
		}
	}
	if code, _ := n.call(ctx, http.MethodGet, "/api/v1/messages/"+pid+"/id/9", nil, nil); code != 404 {
		t.Fatalf("an unknown message answered %d", code)
	}
	var retry struct {
		Success bool `json:"success"`
		Retried int  `json:"retried"`
		Results []struct{ ID, Verdict string }
	}
	if code, err := n.call(ctx, http.MethodPost, "/api/v1/messages/"+pid+"/id/0/retry", map[string]any{}, &retry); err != nil || code != 200 {
		t.Fatalf("retry: %d %v", code, err)
	}
	if !retry.Success || retry.Retried != 1 || retry.Results[0].ID != m.DeadLetters[0] || retry.Results[0].Verdict != "moved" {
		t.Fatalf("retry: %+v", retry)
	}
	if code, _ := n.call(ctx, http.MethodPost, "/api/v1/messages/"+pid+"/id/0/retry", map[string]any{}, nil); code != 404 {
		t.Fatalf("a second retry answered %d, want 404", code)
	}
	// id/1 is deleted for every consumer: the group passes it and reads
	// the copy, pushed after it; GET and a second DELETE answer 404.
	var del map[string]any
	if code, err := n.call(ctx, http.MethodDelete, "/api/v1/messages/"+pid+"/id/1", nil, &del); err != nil || code != 200 || del["deleted"] != true || del["offset"] != 1.0 {
		t.Fatalf("delete: %d %v %v", code, err, del)
	}
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		if code, _ := n.call(ctx, method, "/api/v1/messages/"+pid+"/id/1", nil, nil); code != 404 {
			t.Fatalf("%s of a deleted message answered %d", method, code)
		}
	}
	_, b := n.pop(ctx, t, "orders", with(g, "batch", "10"))
	if len(b.Messages) != 1 || b.Messages[0].TransactionID != "dlq:"+m.DeadLetters[0] {
		t.Fatalf("after the retry and the delete: %+v", b)
	}
	// The record stays in the log for offset readers.
	recs, _, err := n.fetchAll(ctx, "orders", "p")
	if err != nil || len(recs) != 3 || recs[1].TransactionID != "id/1" {
		t.Fatalf("the log after the delete: %+v %v", recs, err)
	}
}
