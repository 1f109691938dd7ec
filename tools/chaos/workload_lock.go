package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/queen-mq/queen-go/tools/chaos/check"
)

// lockWorkload has several clients contend for a few locks (API.md §6),
// each call through a random running node, each acquire once. A client
// that acquires writes one KV key guarded by its permit (the guard the
// acquire answered, a required check of the permit at its token), works
// 0–200 ms and releases; now and then it abandons the permit, which then
// expires. A hold runs from the acquire's return until the client sent
// its release, or the acquire's call plus the TTL, whichever is first; a
// permit answered again (already: the client's own, abandoned or
// acquired without an answer) is released at once, ending the abandoned
// hold, and is no hold of its own. check.CheckLock requires no two holds of one lock at once for
// more than skew, tokens rising from one hold to the next, and the
// guarded writes applied in token order.
type lockWorkload struct {
	c       *Cluster
	ns      string
	locks   []string
	clients int
	ttl     time.Duration
	skew    time.Duration
	start   time.Time

	refusalCounter
	mu            sync.Mutex
	holds         []check.Hold
	writes        []check.GuardedWrite
	ops, answered int
}

// lockResult is one result of POST /api/v1/locks.
type lockResult struct {
	Acquired *bool           `json:"acquired"`
	Already  bool            `json:"already"`
	Slot     int             `json:"slot"`
	Token    int64           `json:"token"`
	Guard    json.RawMessage `json:"guard"`
}

// now is the workload's clock: ns since its run began (monotonic).
func (w *lockWorkload) now() int64 { return time.Since(w.start).Nanoseconds() }

// run contends until ctx ends.
func (w *lockWorkload) run(ctx context.Context, seed uint64) {
	w.start = time.Now()
	untilDone(ctx, w.clients, seed, 0x6c636b, func(cl, _ int, r *rand.Rand) {
		w.once(ctx, r, cl, w.locks[r.IntN(len(w.locks))])
		sleep(ctx, time.Duration(20+r.IntN(30))*time.Millisecond)
	})
}

// once tries to acquire name and, holding it, writes under its guard and
// releases it (or abandons it).
func (w *lockWorkload) once(ctx context.Context, r *rand.Rand, client int, name string) {
	owner := fmt.Sprintf("c%d", client)
	call := w.now()
	got, o := opCall[lockResult](ctx, w.c.pick(r), "/api/v1/locks", map[string]any{"op": "acquire", "name": name, "ttlSeconds": int(w.ttl.Seconds()), "owner": owner})
	ret := w.now()
	if o == kvFull {
		w.n.Add(1)
	}
	if o == kvRefused || o == kvFull || o == kvNotSent { // refused, or not sent: no op
		return
	}
	w.mu.Lock()
	w.ops++
	if o == kvAnswered {
		w.answered++
	}
	w.mu.Unlock()
	if o != kvAnswered || got.Acquired == nil || !*got.Acquired {
		return
	}
	release := func() {
		opCall[lockResult](context.WithoutCancel(ctx), w.c.pick(r), "/api/v1/locks", map[string]any{"op": "release", "name": name, "token": got.Token, "slot": got.Slot})
	}
	if got.Already {
		w.mu.Lock()
		for i := range w.holds { // the client's abandoned hold of this permit ends now
			if h := &w.holds[i]; h.Client == client && h.Lock == name && h.Token == got.Token {
				h.To = min(h.To, w.now())
			}
		}
		w.mu.Unlock()
		release()
		return
	}
	hold := check.Hold{Client: client, Lock: name, Token: got.Token, Call: call, Return: ret, From: ret, To: call + w.ttl.Nanoseconds()}
	if r.IntN(10) > 0 {
		var guard map[string]any
		json.Unmarshal(got.Guard, &guard)
		res, o := kvCall(ctx, w.c.pick(r), guard, map[string]any{"op": "put", "ns": w.ns, "key": name, "value": fmt.Sprintf("%s-%d", owner, got.Token), "forever": true})
		if o == kvAnswered && res[1].Applied {
			w.mu.Lock()
			w.writes = append(w.writes, check.GuardedWrite{Lock: name, Token: got.Token, Version: res[1].Version})
			w.mu.Unlock()
		}
		sleep(ctx, time.Duration(r.IntN(200))*time.Millisecond)
		hold.To = min(hold.To, w.now())
		release()
	}
	w.mu.Lock()
	w.holds = append(w.holds, hold)
	w.mu.Unlock()
}

// finish checks the history: the answers are all it needs.
func (w *lockWorkload) finish(context.Context) (ops, answered int, anomalies []check.Anomaly, err error) {
	return w.ops, w.answered, check.CheckLock(w.holds, w.writes, w.skew), nil
}

// allowSkew widens the skew bound of the check to at least d.
func (w *lockWorkload) allowSkew(d time.Duration) { w.skew = max(w.skew, d) }
