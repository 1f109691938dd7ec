package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"syscall"
	"testing"
	"time"
)

// traceEvent is one event as the trace routes render it.
type traceEvent struct {
	ID            string          `json:"id"`
	TransactionID string          `json:"transactionId"`
	PartitionID   string          `json:"partitionId"`
	Queue         *string         `json:"queue"`
	Partition     *string         `json:"partition"`
	ConsumerGroup string          `json:"consumerGroup"`
	EventType     string          `json:"eventType"`
	Data          json.RawMessage `json:"data"`
	TraceNames    []string        `json:"traceNames"`
	CreatedAt     string          `json:"createdAt"`
	ExpiresAt     string          `json:"expiresAt"`
}

// traceReads is what the three reads answer at one moment.
type traceReads struct {
	ByMessage struct {
		Traces    []traceEvent `json:"traces"`
		Count     int          `json:"count"`
		Truncated bool         `json:"truncated"`
	}
	ByName struct {
		Traces  []traceEvent `json:"traces"`
		Count   int          `json:"count"`
		HasMore bool         `json:"hasMore"`
	}
	Names struct {
		Names []struct {
			Name       string `json:"name"`
			Count      int    `json:"count"`
			LastSeenAt string `json:"lastSeenAt"`
		} `json:"names"`
		Truncated bool `json:"truncated"`
	}
}

// readTraces makes the three reads through n: the events of message txid
// of partition pid, those named checkout, and the names.
func (n *node) readTraces(ctx context.Context, pid, txid string) (traceReads, error) {
	var r traceReads
	if _, err := n.call(ctx, http.MethodGet, "/api/v1/traces/"+pid+"/"+url.PathEscape(txid), nil, &r.ByMessage); err != nil {
		return r, err
	}
	if _, err := n.call(ctx, http.MethodGet, "/api/v1/traces/by-name/checkout?limit=10", nil, &r.ByName); err != nil {
		return r, err
	}
	_, err := n.call(ctx, http.MethodGet, "/api/v1/traces/names", nil, &r.Names)
	return r, err
}

// TestTracesThreeNodes: a consumer pops a message through one node and
// traces it there, as the official client's message.trace does; another
// node reads the events back by message, by name and as names with
// counts. After the leader is killed with SIGKILL and a new one elected,
// the survivors answer the same reads the same way, byte for byte, and
// take new traces; the killed node, restarted, answers them too.
func TestTracesThreeNodes(t *testing.T) {
	nodes := startedCluster(t, 3, "three processes and a failover; run without -short")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	leader, followers := leaderOf(t, nodes)
	writer, reader := followers[0], followers[1]

	if _, err := writer.push(ctx, pushItem{Queue: "orders", Partition: "cust/1", TransactionID: "order-9", Payload: json.RawMessage(`{"total":42.00}`)}); err != nil {
		t.Fatal(err)
	}
	_, a := writer.pop(ctx, t, "orders", url.Values{"consumerGroup": {"billing"}, "subscriptionMode": {"all"}})
	if len(a.Messages) != 1 || a.Messages[0].TransactionID != "order-9" || a.PartitionID == "" {
		t.Fatalf("pop: %+v", a)
	}
	m := a.Messages[0]
	trace := func(n *node, names []string, eventType string, data string) traceEvent {
		t.Helper()
		var got traceEvent
		code, err := n.call(ctx, http.MethodPost, "/api/v1/traces", map[string]any{"transactionId": m.TransactionID,
			"partitionId": m.PartitionID, "consumerGroup": "billing", "traceNames": names, "eventType": eventType,
			"data": json.RawMessage(data)}, &got)
		if err != nil || code != http.StatusCreated {
			t.Fatalf("trace through node %d: %d %v", n.id, code, err)
		}
		if got.Queue == nil || *got.Queue != "orders" || got.Partition == nil || *got.Partition != "cust/1" || got.ID == "" {
			t.Fatalf("trace through node %d answered %+v", n.id, got)
		}
		return got
	}
	first := trace(writer, []string{"checkout", "payment"}, "info", `{"step":1,"total":42.00}`)
	second := trace(writer, []string{"checkout"}, "error", `{"step":2,"error":"declined"}`)
	third := trace(writer, nil, "info", `"done"`)

	before, err := reader.readTraces(ctx, m.PartitionID, m.TransactionID)
	if err != nil {
		t.Fatal(err)
	}
	bm := before.ByMessage
	if bm.Count != 3 || bm.Truncated || bm.Traces[0].ID != first.ID || bm.Traces[1].ID != second.ID || bm.Traces[2].ID != third.ID ||
		string(bm.Traces[0].Data) != `{"step":1,"total":42.00}` || string(bm.Traces[2].Data) != `"done"` ||
		!slices.Equal(bm.Traces[0].TraceNames, []string{"checkout", "payment"}) || *bm.Traces[1].Queue != "orders" {
		t.Fatalf("by message through node %d: %+v", reader.id, bm)
	}
	if bn := before.ByName; bn.Count != 2 || bn.HasMore || bn.Traces[0].ID != second.ID || bn.Traces[1].ID != first.ID {
		t.Fatalf("by name through node %d: %+v", reader.id, bn)
	}
	if ns := before.Names.Names; len(ns) != 2 || ns[0].Name != "checkout" || ns[0].Count != 2 || ns[1].Name != "payment" ||
		ns[1].Count != 1 || ns[0].LastSeenAt != second.CreatedAt {
		t.Fatalf("names through node %d: %+v", reader.id, before.Names)
	}

	leader.signal(syscall.SIGKILL)
	survivors := []*node{writer, reader}
	leaderOf(t, survivors)
	for _, n := range survivors {
		var after traceReads
		waitFor(t, fmt.Sprintf("node %d to answer the trace reads", n.id), 30*time.Second, func() bool {
			after, err = n.readTraces(ctx, m.PartitionID, m.TransactionID)
			return err == nil
		})
		if !reflect.DeepEqual(after, before) {
			t.Fatalf("after the leader's kill, node %d answers\n%+v\nbefore\n%+v", n.id, after, before)
		}
	}
	// A new trace after the kill; a try whose outcome was unknown may have
	// stored it too (traces are not deduplicated), so copies are allowed.
	var fourth traceEvent
	waitFor(t, "a trace to be taken after the kill", 30*time.Second, func() bool {
		code, err := reader.call(ctx, http.MethodPost, "/api/v1/traces", map[string]any{"transactionId": m.TransactionID,
			"partitionId": m.PartitionID, "traceNames": []string{"checkout"}, "data": map[string]int{"step": 3}}, &fourth)
		return err == nil && code == http.StatusCreated
	})

	leader.start()
	leader.waitReady()
	var again traceReads
	waitFor(t, "the restarted node to answer the trace reads", 30*time.Second, func() bool {
		again, err = leader.readTraces(ctx, m.PartitionID, m.TransactionID)
		return err == nil
	})
	ev := again.ByMessage.Traces
	if len(ev) < 4 || !reflect.DeepEqual(ev[:3], before.ByMessage.Traces) {
		t.Fatalf("the restarted node answers %+v", again.ByMessage)
	}
	answered := false
	for _, e := range ev[3:] {
		if e.ConsumerGroup != "__QUEUE_MODE__" || string(e.Data) != `{"step":3}` || !slices.Equal(e.TraceNames, []string{"checkout"}) {
			t.Fatalf("the restarted node answers %+v after the first three", e)
		}
		answered = answered || e.ID == fourth.ID
	}
	if !answered {
		t.Fatalf("the restarted node lacks the answered trace %s: %+v", fourth.ID, ev)
	}
	if ns := again.Names.Names; len(ns) != 2 || ns[0].Count != 2+len(ev)-3 || ns[1].Count != 1 {
		t.Fatalf("the restarted node's names: %+v", again.Names)
	}
}
