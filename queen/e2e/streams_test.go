package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStreamsPipelines runs the product's streaming SDK (queen-mq,
// queen.streams) through clients/python/streams/pipelines.py against one
// real node, three pipelines side by side (parallel subtests):
//
//   - stateless: filter then map; the sink holds, per partition and in
//     order, exactly the mapped records the filter keeps;
//   - window: a tumbling-window sum per key on event time, state carried
//     from cycle to cycle (batches of 15, windows of 20 records a partition); the sink
//     holds each window's exact sum once; the state left is the watermark
//     and the sentinel's open window per partition;
//   - gate: a token bucket per partition; every message reaches the sink
//     once and in order, the gate denied on the way, and no partition passed
//     more than the bucket allows over the run's own time.
//
// Each waits until the sink holds what its input implies and the query's
// lag is 0 (all its input consumed, so no cycle can add to the sink any
// more), stops the worker, then compares the sink record by record. The
// stateful two then delete their source queue and require their state gone.
func TestStreamsPipelines(t *testing.T) {
	python := clientPython(t)
	n := single(t)
	live := newLiveSet([]*node{n})

	t.Run("stateless", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		const src, sink, query, count = "st-src", "st-sink", "st-q", 120
		parts := []string{"p0", "p1"}
		mustConfigure(t, ctx, n, src, 5)
		w := startWorker(t, python, "stateless", "stateless", "--url", n.url, "--source", src, "--sink", sink,
			"--query", query, "--batch-size", "10")
		w.waitStarted()

		want := map[string][]string{}
		var items []pushItem
		for i := range count {
			p := parts[i%len(parts)]
			items = append(items, pushItem{Queue: src, Partition: p, TransactionID: fmt.Sprintf("st-%d", i),
				Payload: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))})
			if i%3 != 0 {
				want[p] = append(want[p], canonOf(map[string]int{"n": i, "sq": i * i}))
			}
		}
		for from := 0; from < count; from += 20 {
			if _, err := n.push(ctx, items[from:from+20]...); err != nil {
				t.Fatal(err)
			}
		}
		waitDrained(t, ctx, n, w, query, sink, total(want))
		w.stop()
		checkSink(t, ctx, n, sink, want, true)
		checkQuery(t, ctx, n, streamQuery{Name: query, SourceQueue: src, SinkQueue: sink, ConsumerGroup: "streams." + query}, 0)
		logMetrics(t, w)
	})

	t.Run("window", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		const sink, query = "win-sink", "win-q"
		in := windowInput{source: "win-src", parts: []string{"w0", "w1"}, n: 200, step: 50, winMs: 1000}
		mustConfigure(t, ctx, n, in.source, 5)
		w := startWorker(t, python, "window", "window", "--url", n.url, "--source", in.source, "--sink", sink,
			"--query", query, "--batch-size", "15", "--window-seconds", "1")
		w.waitStarted()

		prod := newWindowProducer(in, 20, 20*time.Millisecond)
		prod.run(ctx, live)
		if prod.err != nil {
			t.Fatal(prod.err)
		}
		want := in.want()
		waitDrained(t, ctx, n, w, query, sink, total(want))
		w.stop()
		checkSink(t, ctx, n, sink, want, false)
		q := checkQuery(t, ctx, n, streamQuery{Name: query, SourceQueue: in.source, SinkQueue: sink, ConsumerGroup: "streams." + query},
			int64(2*len(in.parts)))
		checkWindowState(t, ctx, n, q, in)
		logMetrics(t, w)
		checkDeleteSource(t, ctx, n, q, in.parts)
	})

	t.Run("gate", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		const src, sink, query, perPart = "gate-src", "gate-sink", "gate-q", 30
		const capacity, refill = 10.0, 4.0
		parts := []string{"g0", "g1"}
		// A denied tail waits for its lease to end: one second (and the
		// broker's clock-skew margin) instead of the default five minutes.
		mustConfigure(t, ctx, n, src, 1)
		w := startWorker(t, python, "gate", "gate", "--url", n.url, "--source", src, "--sink", sink, "--query", query,
			"--capacity", fmt.Sprint(capacity), "--refill-per-sec", fmt.Sprint(refill))
		startedAt := time.UnixMilli(int64(w.waitStarted()["startedAtMs"].(float64)))

		want := map[string][]string{}
		var items []pushItem
		for i := range perPart {
			for _, p := range parts {
				payload := fmt.Sprintf(`{"p":%q,"i":%d}`, p, i)
				items = append(items, pushItem{Queue: src, Partition: p, TransactionID: fmt.Sprintf("%s-%d", p, i),
					Payload: json.RawMessage(payload)})
				want[p] = append(want[p], canon([]byte(payload)))
			}
		}
		if _, err := n.push(ctx, items...); err != nil {
			t.Fatal(err)
		}
		waitDrained(t, ctx, n, w, query, sink, total(want))
		w.stop()
		got := checkSink(t, ctx, n, sink, want, true)

		// The bucket starts full and refills at refill/s: over the stretch
		// from the worker's start (before any gate decision) to the stamp
		// of a partition's last sink record (after its decision), no
		// partition can pass more than capacity + refill·elapsed. A gate
		// whose state the broker dropped or rolled back starts full again
		// at each lease and passes capacity per lease: more than that.
		for _, p := range parts {
			recs := got[p]
			last, err := parseStamp(recs[len(recs)-1].Ts)
			if err != nil {
				t.Fatal(err)
			}
			elapsed := last.Sub(startedAt).Seconds()
			bound := capacity + refill*elapsed
			t.Logf("gate %s: %d passed in %.2f s (%.1f/s); the bucket allows at most %.1f", p, len(recs), elapsed,
				float64(len(recs))/elapsed, bound)
			if float64(len(recs)) > bound {
				t.Errorf("gate %s passed %d records in %.2f s, more than a bucket of %v refilled at %v/s allows (%.1f)",
					p, len(recs), elapsed, capacity, refill, bound)
			}
		}
		if m := w.last("stopped"); m == nil || m["gateDenialsTotal"] == nil || m["gateDenialsTotal"].(float64) == 0 {
			t.Errorf("the gate never denied (stopped %v): the run did not exercise the partial ack", m)
		}
		q := checkQuery(t, ctx, n, streamQuery{Name: query, SourceQueue: src, SinkQueue: sink, ConsumerGroup: "streams." + query},
			int64(len(parts)))
		logMetrics(t, w)
		checkDeleteSource(t, ctx, n, q, parts)
	})
}

// TestStreamsWindowFaults runs the window pipeline on three nodes through
// faults: the SDK's /streams/v1 calls go to a follower, its pops to every
// node; the input comes over about twenty seconds; mid-run the leader is
// killed with SIGKILL and started again, then the worker is killed with
// SIGKILL and started again under the same query id (no reset). The
// source's lease is 5 s, so a dead worker's batch comes again soon. At the
// end, on every node alike, the sink holds each window's result exactly
// once with its exact sum, and the query's state is the watermark and the
// sentinel's open window per partition.
func TestStreamsWindowFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("three processes and a minute; run without -short")
	}
	python := clientPython(t)
	nodes := cluster(t, 3)
	startAll(nodes)
	t0 := time.Now()
	live := newLiveSet(nodes)
	leader, followers := leaderOf(t, nodes)
	via := followers[0]
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()

	const sink, query = "fw-sink", "fw-q"
	in := windowInput{source: "fw-src", parts: []string{"f0", "f1", "f2"}, n: 1200, step: 50, winMs: 1000}
	want := in.want()
	wantN := total(want)
	mustConfigure(t, ctx, leader, in.source, 5)
	urls := make([]string, len(nodes))
	for i, n := range nodes {
		urls[i] = n.url
	}
	args := []string{"window", "--url", via.url, "--urls", strings.Join(urls, ","), "--source", in.source, "--sink", sink,
		"--query", query, "--batch-size", "100", "--window-seconds", "1"}
	t.Logf("leader %d; the SDK's streams calls go to node %d, its pops to all three", leader.id, via.id)
	w1 := startWorker(t, python, "worker-1", args...)
	w1.waitStarted()

	prod := newWindowProducer(in, 6, 100*time.Millisecond)
	go prod.run(ctx, live)
	defer func() { cancel(); <-prod.done }()

	// sinkAtLeast waits until the sink holds k records (read on any live
	// node), the worker w still running.
	sinkAtLeast := func(w *streamWorker, k int) {
		t.Helper()
		waitFor(t, fmt.Sprintf("the sink to hold %d records", k), 90*time.Second, func() bool {
			w.alive()
			for _, n := range live.list() {
				if _, got, err := n.queueParts(ctx, sink); err == nil {
					return got >= int64(k)
				}
			}
			return false
		})
	}

	sinkAtLeast(w1, wantN/6)
	killed := killLeader(t, nodes, live, t0)
	restart(t, killed, live, t0)

	sinkAtLeast(w1, wantN/2)
	w1.signal(syscall.SIGKILL)
	t.Logf("killed worker-1 with SIGKILL at %.3fs (producer at %d of %d records per partition)",
		time.Since(t0).Seconds(), prod.pushed.Load(), in.n)
	logMetrics(t, w1)
	w2 := startWorker(t, python, "worker-2", args...)
	w2.waitStarted()
	t.Logf("worker-2 registered at %.3fs", time.Since(t0).Seconds())

	select {
	case <-prod.done:
	case <-ctx.Done():
	}
	if prod.err != nil {
		t.Fatalf("producer: %v", prod.err)
	}
	t.Logf("producer done at %.3fs (%d pushes sent again)", time.Since(t0).Seconds(), prod.retries.Load())
	waitDrained(t, ctx, via, w2, query, sink, wantN)
	t.Logf("drained at %.3fs", time.Since(t0).Seconds())
	w2.stop()
	logMetrics(t, w2)

	sinkParts, _, err := via.queueParts(ctx, sink)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]fetchRecord{}
	for p := range sinkParts {
		got[p] = readAgreed(t, nodes, sink, p)
	}
	if d := sinkDiff(want, got, false); d != "" {
		t.Fatalf("the sink holds %d records, want each of %d windows once with its sum:\n%s", total(got), wantN, d)
	}
	t.Logf("the sink holds each of the %d windows once, every sum exact, on all three nodes", wantN)
	q := checkQuery(t, ctx, via, streamQuery{Name: query, SourceQueue: in.source, SinkQueue: sink, ConsumerGroup: "streams." + query},
		int64(2*len(in.parts)))
	checkWindowState(t, ctx, via, q, in)
}

// mustConfigure creates a source queue with a lease of leaseSec seconds.
func mustConfigure(t *testing.T, ctx context.Context, n *node, queue string, leaseSec int) {
	t.Helper()
	if err := n.configure(ctx, queue, map[string]any{"leaseTime": leaseSec}); err != nil {
		t.Fatalf("configure %s: %v", queue, err)
	}
}

// waitDrained waits until the sink holds at least want records and the
// query's lag is 0: every source message is consumed, the last of them by
// the cycle that pushed its outputs, so nothing can reach the sink after.
func waitDrained(t *testing.T, ctx context.Context, n *node, w *streamWorker, query, sink string, want int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		w.alive()
		_, got, err := n.queueParts(ctx, sink)
		q, found, qerr := n.streamQuery(ctx, query)
		if err == nil && qerr == nil && found && q.Lag == 0 && got >= int64(want) {
			return
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("query %s did not drain its source into %d sink records within 60 s: the sink holds %d (%v), "+
				"the query reads %+v (found %v, %v)", query, want, got, err, q, found, qerr)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkSink reads the sink on n and requires exactly want (see sinkDiff).
func checkSink(t *testing.T, ctx context.Context, n *node, sink string, want map[string][]string, ordered bool) map[string][]fetchRecord {
	t.Helper()
	got, err := n.readSink(ctx, sink)
	if err != nil {
		t.Fatal(err)
	}
	if d := sinkDiff(want, got, ordered); d != "" {
		t.Fatalf("sink %s holds %d records, want exactly %d:\n%s", sink, total(got), total(want), d)
	}
	t.Logf("sink %s holds exactly the %d records the input implies", sink, total(want))
	return got
}

// checkQuery requires the query in GET /streams/v1/queries and its own
// read, as want says, with stateRows state rows and lag 0, and answers it.
func checkQuery(t *testing.T, ctx context.Context, n *node, want streamQuery, stateRows int64) streamQuery {
	t.Helper()
	qs, err := n.streamQueries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var listed *streamQuery
	for i := range qs {
		if qs[i].Name == want.Name {
			listed = &qs[i]
		}
	}
	if listed == nil {
		t.Fatalf("GET /streams/v1/queries does not list %s: %+v", want.Name, qs)
	}
	one, found, err := n.streamQuery(ctx, want.Name)
	if err != nil || !found {
		t.Fatalf("GET /streams/v1/queries/%s: found %v, %v", want.Name, found, err)
	}
	for _, q := range []streamQuery{*listed, one} {
		if q.QueryID == "" || q.SourceQueue != want.SourceQueue || q.SinkQueue != want.SinkQueue ||
			q.ConsumerGroup != want.ConsumerGroup || q.ConfigHash == "" || q.Resets != 0 || q.Lag != 0 || q.State.Rows != stateRows {
			t.Fatalf("query %s reads %+v; want source %s, sink %s, group %s, no reset, lag 0, %d state rows",
				want.Name, q, want.SourceQueue, want.SinkQueue, want.ConsumerGroup, stateRows)
		}
	}
	if listed.QueryID != one.QueryID {
		t.Fatalf("the list says query %s is %s, its own read %s", want.Name, listed.QueryID, one.QueryID)
	}
	return one
}

// checkWindowState reads each source partition's state rows: the SDK's
// watermark at the sentinel's event time, and the sentinel's window, open,
// with the sentinel's value 0; every other window was emitted and deleted.
func checkWindowState(t *testing.T, ctx context.Context, n *node, q streamQuery, in windowInput) {
	t.Helper()
	parts := n.popPartitionIDs(ctx, t, in.source, in.parts)
	ts := in.sentinelTs()
	start := ts / in.winMs * in.winMs
	for _, p := range in.parts {
		rows, err := n.streamState(ctx, q.QueryID, parts[p])
		if err != nil {
			t.Fatal(err)
		}
		wantWm := canonOf(map[string]int64{"eventTimeMs": ts})
		wantWin := canonOf(map[string]int64{"acc": 0, "windowStart": start, "windowEnd": start + in.winMs})
		ok := len(rows) == 2
		for _, r := range rows {
			switch {
			case r.Key == "__wm__":
				ok = ok && canon(r.Value) == wantWm
			case strings.HasSuffix(r.Key, "\x1f"+p+"-end"):
				ok = ok && canon(r.Value) == wantWin
			default:
				ok = false
			}
		}
		if !ok {
			t.Fatalf("partition %s holds the state rows %q; want __wm__ %s and the sentinel's window %s", p, rows, wantWm, wantWin)
		}
	}
}

// checkDeleteSource deletes the query's source queue and requires its
// state gone: the query unknown, or known with no state row, and no row
// left to read.
func checkDeleteSource(t *testing.T, ctx context.Context, n *node, q streamQuery, parts []string) {
	t.Helper()
	ids := n.popPartitionIDs(ctx, t, q.SourceQueue, parts)
	for p, id := range ids {
		if rows, err := n.streamState(ctx, q.QueryID, id); err != nil || len(rows) == 0 {
			t.Fatalf("before the delete of %s, partition %s holds %d state rows (%v): the check would prove nothing",
				q.SourceQueue, p, len(rows), err)
		}
	}
	if code, err := n.call(ctx, http.MethodDelete, "/api/v1/resources/queues/"+q.SourceQueue, nil, nil); err != nil || code != 200 {
		t.Fatalf("delete %s: %d %v", q.SourceQueue, code, err)
	}
	after, found, err := n.streamQuery(ctx, q.Name)
	if err != nil || found && after.State.Rows != 0 {
		t.Fatalf("after the delete of its source %s, query %s reads %+v (found %v, %v): its state must be gone",
			q.SourceQueue, q.Name, after, found, err)
	}
	for p, id := range ids {
		var out struct {
			Rows []stateRow `json:"rows"`
		}
		code, _ := n.call(ctx, http.MethodPost, "/streams/v1/state/get",
			map[string]any{"query_id": q.QueryID, "partition_id": id, "keys": []string{}}, &out)
		if code == http.StatusOK && len(out.Rows) != 0 || code != http.StatusOK && code != http.StatusNotFound {
			t.Fatalf("after the delete of %s, state/get of partition %s answers %d with %d rows", q.SourceQueue, p, code, len(out.Rows))
		}
	}
	t.Logf("deleting %s took query %s's state (query found after: %v)", q.SourceQueue, q.Name, found)
}

// logMetrics logs the worker's last counters and the errors it reported.
func logMetrics(t *testing.T, w *streamWorker) {
	t.Helper()
	m := w.last("stopped")
	if m == nil {
		m = w.last("metrics")
	}
	errs := w.lines("error")
	t.Logf("worker %s: cycles %v, messages %v, pushed %v, errors %v, gate denials %v", w.name, m["cyclesTotal"],
		m["messagesTotal"], m["pushItemsTotal"], len(errs), m["gateDenialsTotal"])
	for i, e := range errs {
		if i == 5 {
			t.Logf("  … %d more", len(errs)-i)
			break
		}
		t.Logf("  error %v: %v", e["phase"], e["error"])
	}
}
