package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestStatusRoutes: on one real queen process, the depth, status and
// resources routes count what pushes, pops and acks left in the applied
// state, and the throughput and /metrics count what the node's routes
// did.
func TestStatusRoutes(t *testing.T) {
	n := single(t)
	ctx := deadline(t, 60*time.Second)
	if err := n.configure(ctx, "jobs", map[string]any{"namespace": "ops", "task": "nightly"}); err != nil {
		t.Fatalf("configure: %v", err)
	}
	for i := range 4 {
		if _, err := n.push(ctx, pushItem{Queue: "jobs", Partition: "p", TransactionID: fmt.Sprint("job-", i),
			Payload: json.RawMessage(`{"total":42.00}`)}); err != nil {
			t.Fatal(err)
		}
	}
	type depthAnswer struct {
		Pending, PartitionsPending, EffectivePending int64
		Partitions                                   []struct{ Pending int64 }
	}
	depth := func(group string) depthAnswer {
		t.Helper()
		var d depthAnswer
		path := "/api/v1/resources/queues/jobs/depth"
		if group != "" {
			path += "?group=" + url.QueryEscape(group)
		}
		if code, err := n.call(ctx, http.MethodGet, path, nil, &d); err != nil || code != 200 {
			t.Fatalf("depth: %d %v", code, err)
		}
		return d
	}
	type counts struct{ Total, Pending, Processing, Completed int64 }
	groupCounts := func() counts {
		t.Helper()
		var a struct {
			ConsumerGroups []struct {
				Name     string
				Messages counts
			}
		}
		if code, err := n.call(ctx, http.MethodGet, "/api/v1/status/queues/jobs", nil, &a); err != nil || code != 200 ||
			len(a.ConsumerGroups) != 1 || a.ConsumerGroups[0].Name != "workers" {
			t.Fatalf("status/queues/jobs: %d %v %+v", code, err, a)
		}
		return a.ConsumerGroups[0].Messages
	}
	if d := depth(""); d.Pending != 4 || d.PartitionsPending != 1 || d.EffectivePending != 4 {
		t.Fatalf("depth before any pop: %+v", d)
	}

	g := url.Values{"consumerGroup": {"workers"}, "subscriptionMode": {"all"}, "batch": {"2"}}
	_, leased := n.pop(ctx, t, "jobs", g) // job-0 and job-1
	if len(leased.Messages) != 2 {
		t.Fatalf("pop: %+v", leased)
	}
	if d := depth("workers"); d.Pending != 4 {
		t.Fatalf("depth of workers with two leased: %+v", d)
	}
	if c := groupCounts(); c != (counts{4, 2, 2, 0}) {
		t.Fatalf("workers with two leased: %+v", c)
	}
	first, second := leased, leased
	first.Messages, second.Messages = leased.Messages[:1], leased.Messages[1:]
	n.ack(ctx, t, first, "workers", "completed")
	if d := depth("workers"); d.Pending != 3 {
		t.Fatalf("depth after one ack: %+v", d)
	}
	if r := n.ack(ctx, t, second, "workers", "dlq"); !r[0].DLQ {
		t.Fatalf("ack dlq: %+v", r)
	}
	if d := depth("workers"); d.Pending != 2 || d.Partitions[0].Pending != 2 {
		t.Fatalf("depth after both acks: %+v", d)
	}
	if c := groupCounts(); c != (counts{4, 2, 0, 2}) {
		t.Fatalf("workers after both acks: %+v", c)
	}

	var ov struct {
		Queues, Namespaces, Tasks, ConsumerGroups int
		Messages                                  counts
	}
	if code, err := n.call(ctx, http.MethodGet, "/api/v1/resources/overview", nil, &ov); err != nil || code != 200 ||
		ov.Queues != 1 || ov.Namespaces != 1 || ov.Tasks != 1 || ov.ConsumerGroups != 1 || ov.Messages != (counts{4, 2, 0, 2}) {
		t.Fatalf("overview: %d %v %+v", code, err, ov)
	}

	// Throughput: the series and the current point together count every
	// push, delivery and ack since the node started (it sampled then).
	type point struct{ Pushed, Delivered, Completed, DeadLettered int64 }
	var st struct {
		Throughput struct {
			Interval float64
			Current  point
			Totals   point
		}
	}
	if code, err := n.call(ctx, http.MethodGet, "/api/v1/status", nil, &st); err != nil || code != 200 {
		t.Fatalf("status: %d %v", code, err)
	}
	tp := st.Throughput
	sum := point{tp.Totals.Pushed + tp.Current.Pushed, tp.Totals.Delivered + tp.Current.Delivered,
		tp.Totals.Completed + tp.Current.Completed, tp.Totals.DeadLettered + tp.Current.DeadLettered}
	if tp.Interval != 10 || sum != (point{4, 2, 1, 1}) {
		t.Fatalf("throughput: %+v", tp)
	}
	var sys struct {
		Current struct {
			Goroutines *float64
			Memory     struct{ RSSBytes *float64 }
		}
	}
	if code, err := n.call(ctx, http.MethodGet, "/api/v1/analytics/system-metrics", nil, &sys); err != nil || code != 200 ||
		sys.Current.Goroutines == nil || sys.Current.Memory.RSSBytes == nil {
		t.Fatalf("system metrics: %d %v %+v", code, err, sys)
	}

	text := n.exposition(t)
	for _, want := range []string{`queen_messages_total{event="pushed",tenant=""} 4`, `queen_messages_total{event="dlq",tenant=""} 1`, "process_cpu_seconds_total"} {
		if !strings.Contains(string(text), want) {
			t.Fatalf("/metrics/prometheus lacks %s", want)
		}
	}
}
