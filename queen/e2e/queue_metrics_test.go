package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestQueueMetrics: the queue and consumer-group gauges of
// /metrics/prometheus count what the status and group routes answer: two
// partitions of 5 and 3 records; group a settles 5 of p1 and leases p2's
// 3 without settling them, group b reads p2 only and settles 1 of it.
func TestQueueMetrics(t *testing.T) {
	n := single(t)
	ctx := deadline(t, 60*time.Second)
	var items []pushItem
	for i := range 8 {
		p := "p1"
		if i >= 5 {
			p = "p2"
		}
		items = append(items, pushItem{Queue: "gauges", Partition: p, Payload: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))})
	}
	if _, err := n.push(ctx, items...); err != nil {
		t.Fatal(err)
	}
	all := func(group string) url.Values {
		return url.Values{"consumerGroup": {group}, "subscriptionMode": {"all"}, "batch": {"10"}, "wait": {"false"}}
	}
	if _, a := n.popPartition(ctx, t, "gauges", "p1", all("a")); len(a.Messages) != 5 {
		t.Fatalf("a's pop of p1 got %d messages", len(a.Messages))
	} else if res := n.ack(ctx, t, a, "a", "completed"); !res[0].Success {
		t.Fatalf("ack: %+v", res)
	}
	if _, a := n.popPartition(ctx, t, "gauges", "p2", all("a")); len(a.Messages) != 3 {
		t.Fatalf("a's pop of p2 got %d messages", len(a.Messages))
	}
	if _, a := n.popPartition(ctx, t, "gauges", "p1", all("b")); len(a.Messages) != 5 {
		t.Fatalf("b's pop of p1 got %d messages", len(a.Messages))
	} else if res := n.ack(ctx, t, a, "b", "completed"); !res[0].Success {
		t.Fatalf("ack: %+v", res)
	}
	b1 := all("b")
	b1.Set("batch", "1")
	if _, a := n.popPartition(ctx, t, "gauges", "p2", b1); len(a.Messages) != 1 {
		t.Fatalf("b's pop of p2 got %d messages", len(a.Messages))
	} else if res := n.ack(ctx, t, a, "b", "completed"); !res[0].Success {
		t.Fatalf("ack: %+v", res)
	}

	// The group route's lags, the truth the gauges must equal.
	var groups struct {
		ConsumerGroups []struct {
			Name   string `json:"name"`
			Queues []struct {
				Queue string `json:"queue"`
				Lag   int64  `json:"lag"`
			} `json:"queues"`
		} `json:"consumerGroups"`
	}
	if code, err := n.call(ctx, http.MethodGet, "/api/v1/consumer-groups", nil, &groups); err != nil || code != 200 {
		t.Fatalf("consumer-groups: %d %v", code, err)
	}
	lags := map[string]int64{}
	for _, g := range groups.ConsumerGroups {
		for _, q := range g.Queues {
			if q.Queue == "gauges" {
				lags[g.Name] = q.Lag
			}
		}
	}
	// a: p1 settled, p2's 3 leased (unsettled); b: p1 settled, p2's 2.
	if lags["a"] != 3 || lags["b"] != 2 {
		t.Fatalf("the groups route answered lags %v, want a 3 and b 2", lags)
	}
	// The status route's counts of the queue: pending and processing are
	// its depth.
	var st struct {
		Totals struct {
			Messages struct {
				Total, Pending, Processing int64
			} `json:"messages"`
		} `json:"totals"`
	}
	if code, err := n.call(ctx, http.MethodGet, "/api/v1/status/queues/gauges", nil, &st); err != nil || code != 200 {
		t.Fatalf("status/queues/gauges: %d %v", code, err)
	}
	depth := st.Totals.Messages.Pending + st.Totals.Messages.Processing
	if st.Totals.Messages.Total != 8 || depth != 3 {
		t.Fatalf("the status route answered %+v, want 8 records and 3 to settle (p2 by a, the group furthest behind)", st.Totals.Messages)
	}

	wants := []string{
		`queen_queue_partitions{queue="gauges",tenant=""} 2`,
		`queen_queue_messages{queue="gauges",tenant=""} 8`,
		fmt.Sprintf(`queen_queue_depth{queue="gauges",tenant=""} %d`, depth),
		fmt.Sprintf(`queen_consumer_group_lag{group="a",queue="gauges",tenant=""} %d`, lags["a"]),
		fmt.Sprintf(`queen_consumer_group_lag{group="b",queue="gauges",tenant=""} %d`, lags["b"]),
	}
	// One walk answers the gathers of a second: a gather made just
	// before the acks (the analytics sampler's) may answer once more.
	var missing []string
	for deadline := time.Now().Add(10 * time.Second); ; {
		body := n.exposition(t)
		missing = missing[:0]
		for _, want := range wants {
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(want) + `$`).Match(body) {
				missing = append(missing, want)
			}
		}
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics/prometheus lacks the lines\n  %s\nit has:\n%s", strings.Join(missing, "\n  "),
				regexp.MustCompile(`(?m)^queen_(queue|consumer)_.*$`).FindAll(body, -1))
		}
		time.Sleep(200 * time.Millisecond) // polling the metrics for the condition, with a deadline
	}
}
