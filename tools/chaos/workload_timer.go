package chaos

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/queen-mq/queen-go/tools/chaos/check"
)

// timerWorkload has several clients schedule timers (API.md §7) with
// delays of 0.2–2 s, each once through a random running node, and cancel
// one in five after a random part of its delay; a watcher reads the
// timers' queue from random nodes every 50 ms and keeps when it first saw
// each timer's record (its txn is the record's transactionId). At the
// end, once every timer that must fire did (or 30 s passed) and the nodes
// show the same high watermark, every node's queue is read, and check.CheckTimers
// requires each timer fired at most once, not before its delay (by its
// answered deliverAt, and in real time within skew), never after a cancel
// answered cancelled, and every one answered scheduled and not cancelled
// fired.
type timerWorkload struct {
	c       *Cluster
	queue   string
	clients int
	skew    time.Duration

	refusalCounter
	mu     sync.Mutex
	timers []check.Timer
	seen   map[string]int64 // txn → µs when the watcher first saw it
}

// timerResult is one result of POST /api/v1/timers.
type timerResult struct {
	OK        bool   `json:"ok"`
	Status    string `json:"status"`
	DeliverAt string `json:"deliverAt"`
}

// run schedules (and watches) until ctx ends.
func (w *timerWorkload) run(ctx context.Context, seed uint64) {
	w.seen = map[string]int64{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); w.watch(ctx, rand.New(rand.NewPCG(seed, 0x77617463))) }()
	spawn(&wg, w.clients, seed, 0x746d72, func(cl int, r *rand.Rand) {
		for k := 0; ctx.Err() == nil; k++ {
			w.schedule(ctx, r, &wg, fmt.Sprintf("k%d-%d", cl, k), fmt.Sprintf("t%d-%d", cl, k), int64(200+r.IntN(1800)))
			sleep(ctx, time.Duration(20+r.IntN(60))*time.Millisecond)
		}
	})
	wg.Wait()
}

// schedule schedules one timer and, one time in five, cancels it from a
// goroutine of wg after a random part of its delay; it records both.
func (w *timerWorkload) schedule(ctx context.Context, r *rand.Rand, wg *sync.WaitGroup, key, txn string, delayMs int64) {
	t := check.Timer{Key: key, Txn: txn, DelayMs: delayMs, Call: time.Now().UnixMicro()}
	got, o := opCall[timerResult](ctx, w.c.pick(r), "/api/v1/timers", map[string]any{"op": "schedule", "queue": w.queue, "timerKey": key, "delayMs": delayMs, "txn": txn,
		"payload": base64.StdEncoding.EncodeToString(fmt.Appendf(nil, `{"key":%q}`, key))})
	if o == kvFull {
		w.n.Add(1)
	}
	if o == kvRefused || o == kvFull || o == kvNotSent { // no timer: not an op
		return
	}
	if o == kvAnswered && got.Status == "scheduled" {
		t.Scheduled = true
		if at, err := time.Parse(time.RFC3339Nano, got.DeliverAt); err == nil {
			t.DeliverAt = at.UnixMicro()
		}
	}
	w.mu.Lock()
	i := len(w.timers)
	w.timers = append(w.timers, t)
	w.mu.Unlock()
	if r.IntN(5) > 0 {
		return
	}
	wait, n := time.Duration(r.Int64N(delayMs))*time.Millisecond, w.c.pick(r)
	wg.Add(1)
	go func() {
		defer wg.Done()
		sleep(ctx, wait)
		cancel := "unknown"
		switch got, o := opCall[timerResult](context.WithoutCancel(ctx), n, "/api/v1/timers", map[string]any{"op": "cancel", "queue": w.queue, "timerKey": key, "txn": txn}); o {
		case kvAnswered:
			cancel = got.Status
		case kvRefused, kvFull, kvNotSent:
			cancel = "" // no cancel happened
		}
		w.mu.Lock()
		w.timers[i].Cancel = cancel
		w.mu.Unlock()
	}()
}

// watch reads the queue from random nodes every 50 ms until ctx ends,
// noting when each record was first seen (the read's return).
func (w *timerWorkload) watch(ctx context.Context, r *rand.Rand) {
	var next int64
	for sleep(ctx, 50*time.Millisecond) {
		e, err := fetchPage(ctx, w.c.pick(r), w.queue, "Default", next)
		now := time.Now().UnixMicro()
		if err != nil || e.Error != "" {
			continue
		}
		w.mu.Lock()
		for _, rec := range e.Records {
			if _, ok := w.seen[rec.TransactionID]; !ok {
				w.seen[rec.TransactionID] = now
			}
			next = max(next, rec.Offset+1)
		}
		w.mu.Unlock()
	}
}

// finish waits until every timer that must fire did (30 s at most: a
// leader's clock ahead sets deliverAt ahead, a failed fire waits 1 s and
// more), reads every node's queue once the nodes converged, and checks.
func (w *timerWorkload) finish(ctx context.Context) (ops, answered int, anomalies []check.Anomaly, err error) {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && sleep(ctx, 500*time.Millisecond); {
		got, err := w.readFired(ctx, w.c.Nodes[0])
		if err != nil {
			continue
		}
		fired := map[string]bool{}
		for _, f := range got {
			fired[f.Txn] = true
		}
		all := true
		for _, t := range w.timers {
			all = all && (!t.Scheduled || t.Cancel == "cancelled" || t.Cancel == "unknown" || fired[t.Txn])
		}
		if all {
			break
		}
	}
	if err := converge(ctx, w.c, w.queue, []string{"Default"}, 60*time.Second); err != nil {
		return 0, 0, nil, err
	}
	fired, err := readStable(ctx, w.c, 60*time.Second, w.readFired)
	if err != nil {
		return 0, 0, nil, err
	}
	for i := range w.timers {
		w.timers[i].Seen = w.seen[w.timers[i].Txn]
		if w.timers[i].Scheduled {
			answered++
		}
	}
	return len(w.timers), answered, check.CheckTimers(w.timers, fired, w.skew), nil
}

// readFired reads the timers' queue on n: each record's txn and stamp.
func (w *timerWorkload) readFired(ctx context.Context, n *Node) ([]check.Fired, error) {
	var got []check.Fired
	for off := int64(0); ; {
		e, err := fetchPage(ctx, n, w.queue, "Default", off)
		if err != nil {
			return nil, err
		}
		for _, rec := range e.Records {
			at, _ := time.Parse(time.RFC3339Nano, rec.TS)
			got = append(got, check.Fired{Txn: rec.TransactionID, Stamp: at.UnixMicro()})
		}
		if e.Error != "" || len(e.Records) == 0 || off+int64(len(e.Records)) >= e.HighWatermark {
			return got, nil
		}
		off += int64(len(e.Records))
	}
}

// allowSkew widens the skew bound of the check to at least d.
func (w *timerWorkload) allowSkew(d time.Duration) { w.skew = max(w.skew, d) }
