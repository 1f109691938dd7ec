package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"testing"
	"time"
)

// TestQueueMetrics: the queue and consumer-group gauges of
// /metrics/prometheus count what the status and group routes answer: two
// partitions of 5 and 3 records; group a settles 5 of p1 and leases p2's
// 3 without settling them, group b reads p2 only and settles 1 of it.
func TestQueueMetrics(t *testing.T) {
	n := cluster(t, 1)[0]
	n.start()
	n.waitReady()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
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
	// a: p1 settled, p2's 3 leased (unsettled); b: p1's 5 (never read,
	// but subscribed to the queue with mode all) and p2's 2.
	if lags["a"] != 3 || lags["b"] != 7 {
		t.Fatalf("the groups route answered lags %v, want a 3 and b 7", lags)
	}

	resp, err := http.Get(n.url + "/metrics/prometheus")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`queen_queue_partitions{queue="gauges",tenant=""} 2`,
		`queen_queue_messages{queue="gauges",tenant=""} 8`,
		// Per partition its worst group: p1 b's 5, p2 a's 3 (b has 2).
		`queen_queue_depth{queue="gauges",tenant=""} 8`,
		fmt.Sprintf(`queen_consumer_group_lag{group="a",queue="gauges",tenant=""} %d`, lags["a"]),
		fmt.Sprintf(`queen_consumer_group_lag{group="b",queue="gauges",tenant=""} %d`, lags["b"]),
	} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(want) + `$`).Match(body) {
			t.Errorf("/metrics/prometheus lacks the line %s", want)
		}
	}
}
