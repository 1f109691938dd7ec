package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// The timers fault test: clients on three nodes schedule timers and cancel
// some while the leader that fires them is killed; then every record of
// the timers' partitions is read and checked against the history
// (tmHistory.check).
const (
	// tmSkew is the bound the checker allows a fire to come early by, and
	// the nodes' QUEEN_RAFT_MAX_CLOCK_SKEW_MS: the nodes share this
	// machine's clock, so a small bound is enough (a fire before its delay
	// at all is noted).
	tmSkew = 100 * time.Millisecond
)

var tmQueues = []string{"timed-0", "timed-1"}

// tmParts are the partitions timers fire into: "Default" when a schedule
// names none, and "p-1".
var tmParts = []tmPart{{"timed-0", "Default"}, {"timed-0", "p-1"}, {"timed-1", "Default"}, {"timed-1", "p-1"}}

type tmResult struct {
	OK        bool   `json:"ok"`
	Status    string `json:"status"`
	Queue     string `json:"queue"`
	TimerKey  string `json:"timerKey"`
	Txn       string `json:"txn"`
	MessageID string `json:"messageId"`
	DeliverAt string `json:"deliverAt"`
}

// tmClient is one scheduler, with its own random source.
type tmClient struct {
	t       *testing.T
	id      int
	h       *tmHistory
	rng     *rand.Rand
	mu      sync.Mutex // guards rng: cancels run on their own goroutines
	live    *liveSet
	cancels *sync.WaitGroup
}

func (c *tmClient) intN(n int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rng.IntN(n)
}

func (c *tmClient) node() *node {
	ns := c.live.list()
	return ns[c.intN(len(ns))]
}

// attempt makes one call through a random live node, and again through
// another while the dial is refused (nothing was sent). It answers the
// node, the times and the outcome.
func (c *tmClient) attempt(method, path string, body, out any) (n *node, invoke, complete time.Time, code int, err error) {
	for try := 0; ; try++ {
		n = c.node()
		invoke = time.Now()
		code, err = send(n, method, path, body, out, 10*time.Second)
		complete = time.Now()
		if err != nil && notSent(err) && try < 100 {
			time.Sleep(20 * time.Millisecond) // a node down: back off, then another
			continue
		}
		return
	}
}

// schedule sends one call of 1 to 4 new timers (delays 0 to 3 s, each its
// own key and txn), once, and records each timer; it starts a cancel of
// about a third of them, at a random moment up to just past the delay, so
// that cancels race fires.
func (c *tmClient) schedule(i int) {
	var ops []map[string]any
	var ss []*tmSchedule
	for j := range 1 + c.intN(4) {
		txn := fmt.Sprintf("s%d-%d-%d", c.id, i, j)
		s := &tmSchedule{Client: c.id, Queue: tmQueues[c.intN(len(tmQueues))], Partition: "Default", Key: "k/" + txn, Txn: txn, DelayMs: int64(c.intN(3001))}
		if c.intN(10) == 0 {
			s.DelayMs = 0
		}
		p, _ := json.Marshal(map[string]any{"txn": txn, "delayMs": s.DelayMs})
		s.Payload = string(p)
		op := map[string]any{"op": "schedule", "queue": s.Queue, "timerKey": s.Key, "delayMs": s.DelayMs, "txn": txn, "payload": base64.StdEncoding.EncodeToString(p)}
		if c.intN(2) == 0 {
			s.Partition = "p-1"
			op["partition"] = s.Partition
		}
		ops = append(ops, op)
		ss = append(ss, s)
	}
	var out struct{ Results []tmResult }
	n, invoke, complete, code, err := c.attempt(http.MethodPost, "/api/v1/timers", map[string]any{"operations": ops}, &out)
	known := code == 200 && err == nil
	if known && len(out.Results) != len(ops) {
		c.t.Errorf("schedule of %d timers answered %d results", len(ops), len(out.Results))
		known = false
	}
	if code >= 400 && code < 500 {
		c.t.Errorf("schedule refused: %d %v", code, err)
	}
	for j, s := range ss {
		s.Node, s.Invoke, s.Complete, s.Known = n.id, invoke, complete, known
		if err != nil {
			s.Err = strings.TrimSpace(err.Error())
		}
		if known {
			r := out.Results[j]
			s.Status, s.AnsTxn = r.Status, r.Txn
			if r.Queue != s.Queue || r.TimerKey != s.Key || !r.OK || r.MessageID == "" {
				c.t.Errorf("%s answered %+v", c.h.fmtSched(s), r)
			}
			var perr error
			if s.DeliverAt, perr = parseStamp(r.DeliverAt); perr != nil {
				c.t.Errorf("%s answered deliverAt %q", c.h.fmtSched(s), r.DeliverAt)
			}
		}
	}
	c.h.mu.Lock()
	c.h.scheds = append(c.h.scheds, ss...)
	c.h.mu.Unlock()
	for _, s := range ss {
		if c.intN(3) != 0 {
			continue
		}
		wait := time.Duration(c.intN(int(s.DelayMs)+300)) * time.Millisecond
		via := "delete"
		if c.intN(3) == 0 {
			via = "post"
		}
		c.cancels.Add(1)
		go func() {
			defer c.cancels.Done()
			time.Sleep(wait) // pacing: the cancel is meant to race the fire
			c.cancel(s, via)
		}()
	}
}

// cancel cancels a timer, retrying while the outcome is unknown (a retry
// after one that removed the timer answers absent).
func (c *tmClient) cancel(s *tmSchedule, via string) {
	first := time.Now()
	for attempt := 0; ; attempt++ {
		x := &tmCancel{Client: c.id, Queue: s.Queue, Key: s.Key, Txn: s.Txn, Via: via, Attempt: attempt}
		var r tmResult
		var code int
		var err error
		var n *node
		if via == "delete" {
			n, x.Invoke, x.Complete, code, err = c.attempt(http.MethodDelete, "/api/v1/timers/"+url.PathEscape(s.Queue)+"/"+s.Key, nil, &r)
		} else {
			var out struct{ Results []tmResult }
			n, x.Invoke, x.Complete, code, err = c.attempt(http.MethodPost, "/api/v1/timers", map[string]any{"operations": []map[string]any{
				{"op": "cancel", "queue": s.Queue, "timerKey": s.Key}}}, &out)
			if code == 200 && err == nil && len(out.Results) != 1 {
				c.t.Errorf("a cancel answered %d results", len(out.Results))
				code = -1
			} else if code == 200 && err == nil {
				r = out.Results[0]
			}
		}
		x.Node = n.id
		if code == 200 && err == nil {
			x.Known, x.Status, x.AnsTxn = true, r.Status, r.Txn
			if r.Queue != s.Queue || r.TimerKey != s.Key || r.OK != (r.Status == "cancelled") {
				c.t.Errorf("%s answered %+v", c.h.fmtCancel(x), r)
			}
		} else if err != nil {
			x.Err = strings.TrimSpace(err.Error())
		}
		c.h.mu.Lock()
		c.h.cancels = append(c.h.cancels, x)
		c.h.mu.Unlock()
		switch {
		case x.Known:
			return
		case code >= 400 && code < 500:
			c.t.Errorf("cancel refused: %d %v", code, err)
			return
		case time.Since(first) > 8*time.Second:
			return // left unknown
		}
		time.Sleep(50 * time.Millisecond) // back off before the retry
	}
}

func (c *tmClient) run(ctx context.Context) {
	for i := 0; ctx.Err() == nil; i++ {
		c.schedule(i)
		time.Sleep(time.Duration(80+c.intN(80)) * time.Millisecond) // pacing
	}
}

// tmHighWatermarks answers the timers' partitions' high watermarks on n,
// long-polling up to waitMs for a record past from (fetch's own wait).
func tmHighWatermarks(n *node, from map[tmPart]int64, waitMs int) (map[tmPart]int64, error) {
	var entries []map[string]any
	for _, p := range tmParts {
		entries = append(entries, map[string]any{"queue": p.queue, "partition": p.partition, "offset": from[p], "maxBytes": 1})
	}
	var out struct{ Entries []fetchEntry }
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(waitMs)*time.Millisecond+10*time.Second)
	defer cancel()
	if _, err := n.call(ctx, http.MethodPost, "/api/v1/fetch", map[string]any{"entries": entries, "maxWaitMs": waitMs}, &out); err != nil {
		return nil, err
	}
	if len(out.Entries) != len(tmParts) {
		return nil, fmt.Errorf("fetch answered %d entries for %d", len(out.Entries), len(tmParts))
	}
	hwm := map[tmPart]int64{}
	for i, e := range out.Entries {
		if e.Error != "" {
			return nil, fmt.Errorf("fetch %v: %s", tmParts[i], e.Error)
		}
		hwm[tmParts[i]] = e.HighWatermark
	}
	return hwm, nil
}

// tmWaitFired waits until the partitions hold n more records than they
// did when it was called, long-polling a live node.
func tmWaitFired(t *testing.T, live *liveSet, n int64) {
	t.Helper()
	var start, from map[tmPart]int64
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		ns := live.list()
		hwm, err := tmHighWatermarks(ns[rand.IntN(len(ns))], from, 1000)
		if err != nil {
			time.Sleep(20 * time.Millisecond) // a node that lags or is gone: back off, ask again
			continue
		}
		if start == nil {
			start = hwm
		}
		var grown int64
		for _, p := range tmParts {
			grown += hwm[p] - start[p]
		}
		if grown >= n {
			return
		}
		from = hwm
	}
	t.Fatalf("fewer than %d timers fired within 60 s", n)
}

// TestTimersSurviveLeaderKills: four clients, through random nodes of
// three, schedule timers (delays 0 to 3 s, a txn each) into two queues
// and cancel about a third of them at random moments that race the fires,
// while the leader, which fires them, is killed with SIGKILL and restarted
// twice. Once the load has stopped, every timer that has to fire has
// fired and none is pending, every record of the timers' partitions is
// read from every node and checked (tmHistory.check).
func TestTimersSurviveLeaderKills(t *testing.T) {
	nodes := startedCluster(t, 3, "three processes and two failovers; run without -short", fmt.Sprintf("QUEEN_RAFT_MAX_CLOCK_SKEW_MS=%d", tmSkew.Milliseconds()), "QUEEN_RAFT_TIMER_TICK_MS=50")
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	// No dedup window on the timers' queues: a fire is a deduplicated push,
	// so with one a timer the family fired twice would leave one record and
	// the checker could not see it.
	for _, q := range tmQueues {
		if err := nodes[0].configure(ctx, q, map[string]any{"dedupWindowSeconds": 0}); err != nil {
			t.Fatalf("configure %s: %v", q, err)
		}
	}
	for _, p := range tmParts { // a record in each partition, so that each can be read
		if _, err := nodes[0].push(ctx, pushItem{Queue: p.queue, Partition: p.partition, TransactionID: "seed-" + p.partition, Payload: json.RawMessage(`{"seed":true}`)}); err != nil {
			t.Fatal(err)
		}
	}
	cancel()

	live := newLiveSet(nodes)
	h := &tmHistory{t0: time.Now()}
	load, stop := context.WithCancel(context.Background())
	var wg, cancels sync.WaitGroup
	defer func() { stop(); wg.Wait(); cancels.Wait() }()
	for i := range 4 {
		wg.Add(1)
		c := &tmClient{t: t, id: i, h: h, rng: rand.New(rand.NewPCG(seed, uint64(i))), live: live, cancels: &cancels}
		go func() { defer wg.Done(); c.run(load) }()
	}
	tmWaitFired(t, live, 60)
	for range 2 {
		k := killLeader(t, nodes, live, h.t0)
		tmWaitFired(t, live, 60) // the survivors elect a leader, which fires again
		restart(t, k, live, h.t0)
		tmWaitFired(t, live, 40)
	}
	if d := 15*time.Second - time.Since(h.t0); d > 0 {
		time.Sleep(d) // pacing: the load runs for 15 s at least
	}
	stop()
	wg.Wait()
	cancels.Wait()
	t.Logf("load and cancels ended at %s", secs(h.t0, time.Now()))

	// Wait until every timer that has to fire is in the log and no timer
	// is pending on any queue (a linearizable count): nothing more fires.
	must := h.mustFire()
	deadline := time.Now().Add(45 * time.Second)
	var from map[tmPart]int64
	for {
		missing, pending := 0, int64(0)
		rctx, rcancel := context.WithTimeout(context.Background(), 20*time.Second)
		for _, p := range tmParts {
			recs, _, err := nodes[0].fetchAll(rctx, p.queue, p.partition)
			if err != nil {
				missing = -1
				break
			}
			seen := map[string]bool{}
			for _, r := range recs {
				seen[r.TransactionID] = true
			}
			for _, txn := range must[p] {
				if !seen[txn] {
					missing++
				}
			}
		}
		for _, q := range tmQueues {
			n, err := nodes[0].countTimers(rctx, q)
			if err != nil {
				n = -1
			}
			pending += n
		}
		rcancel()
		if missing == 0 && pending == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("45 s after the load: %d timers that have to fire are missing, %d pending", missing, pending)
			for _, q := range tmQueues {
				var rows map[string]any
				_, err := nodes[0].call(context.Background(), http.MethodGet, "/api/v1/timers/"+q, nil, &rows)
				t.Logf("pending on %s: %v %v", q, rows, err)
			}
			break
		}
		if hwm, err := tmHighWatermarks(nodes[0], from, 1000); err == nil {
			from = hwm // waited for the next fire, at most a second
		} else {
			time.Sleep(20 * time.Millisecond) // node 1 lags: back off, ask again
		}
	}
	t.Logf("settled at %s", secs(h.t0, time.Now()))

	records := map[tmPart][]fetchRecord{}
	for _, p := range tmParts {
		records[p] = readAgreed(t, nodes, p.queue, p.partition)
	}
	v, notes, summary := h.check(records, tmSkew)
	var unknown []string
	for _, s := range h.scheds {
		if !s.Known && (len(unknown) == 0 || !strings.Contains(unknown[len(unknown)-1], secs(h.t0, s.Invoke))) {
			unknown = append(unknown, h.fmtSched(s))
		}
	}
	for _, c := range h.cancels {
		if !c.Known {
			unknown = append(unknown, h.fmtCancel(c))
		}
	}
	verdict(t, summary, "calls of unknown outcome (one timer per schedule call)", unknown, v, notes)
}
