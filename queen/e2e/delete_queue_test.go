package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// TestDeleteQueue: DELETE /api/v1/resources/queues/:queue through a
// follower of three real nodes takes the queue, its records, its group's
// cursor and lease, its dead letter and its dedup index, on every node;
// another queue keeps all of its; a push afterwards creates the queue
// anew from offset 0, its old transaction ids no longer duplicates.
func TestDeleteQueue(t *testing.T) {
	nodes := startedCluster(t, 3, "three processes; run without -short")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for i := range 3 {
		for _, q := range []string{"doomed", "kept"} {
			if _, err := nodes[0].push(ctx, pushItem{Queue: q, Partition: "p", TransactionID: fmt.Sprint("t-", i), Payload: json.RawMessage(`{"i":1}`)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	g := url.Values{"consumerGroup": {"workers"}, "subscriptionMode": {"all"}, "batch": {"3"}}
	_, a := nodes[0].pop(ctx, t, "doomed", g)
	first := a
	first.Messages = a.Messages[:1]
	if r := nodes[0].ack(ctx, t, first, "workers", "dlq"); !r[0].DLQ {
		t.Fatalf("dlq: %+v", r)
	}
	_, kept := nodes[0].pop(ctx, t, "kept", g)

	_, followers := leaderOf(t, nodes)
	follower := followers[0]
	var del map[string]any
	if code, err := follower.call(ctx, http.MethodDelete, "/api/v1/resources/queues/doomed", nil, &del); err != nil || code != 200 {
		t.Fatalf("delete: %d %v", code, err)
	}
	if del["deleted"] != true || del["partitions"] != 1.0 || del["messages"] != 3.0 || del["consumerGroups"] != 1.0 || del["deadLetters"] != 1.0 {
		t.Fatalf("delete answered %v", del)
	}
	if code, _ := follower.call(ctx, http.MethodDelete, "/api/v1/resources/queues/doomed", nil, nil); code != 404 {
		t.Fatalf("a second delete answered %d, want 404", code)
	}
	for _, n := range nodes {
		waitFor(t, fmt.Sprintf("node %d to apply the delete", n.id), 10*time.Second, func() bool {
			code, _ := n.call(ctx, http.MethodGet, "/api/v1/resources/queues/doomed", nil, nil)
			return code == 404
		})
		var dlq struct {
			Messages []any `json:"messages"`
		}
		if code, err := n.call(ctx, http.MethodGet, "/api/v1/dlq?queue=doomed", nil, &dlq); err != nil || code != 200 || len(dlq.Messages) != 0 {
			t.Fatalf("node %d: the DLQ of the deleted queue: %d %v %+v", n.id, code, err, dlq)
		}
		recs, _, err := n.fetchAll(ctx, "kept", "p")
		if err != nil || len(recs) != 3 {
			t.Fatalf("node %d: the kept queue: %+v %v", n.id, recs, err)
		}
	}
	if r := nodes[1].ack(ctx, t, kept, "workers", "completed"); !r[0].Success {
		t.Fatalf("an ack of the kept queue: %+v", r)
	}
	ans, err := nodes[2].push(ctx, pushItem{Queue: "doomed", Partition: "p", TransactionID: "t-0", Payload: json.RawMessage(`{"again":1}`)})
	if err != nil || len(ans) != 1 || ans[0].Status != "queued" || ans[0].Offset != 0 {
		t.Fatalf("a push after the delete: %+v %v", ans, err)
	}
	if code, b := nodes[2].pop(ctx, t, "doomed", g); code != 200 || offsets(b) != "0#1 " || string(b.Messages[0].Data) != `{"again":1}` {
		t.Fatalf("the queue anew: %d %+v", code, b)
	}
}
