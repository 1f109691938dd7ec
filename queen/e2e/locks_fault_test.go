package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// The locks fault test: clients on three nodes take locks, push a record
// under each lock's guard and let go, while the leader is killed; each
// client records what it asked and what it was told, and the history and
// the records alone are checked (lkHistory.check).
const (
	lkQueue = "guarded"
	// lkSkew is the bound the checker allows two holders to overlap by, and
	// the QUEEN_RAFT_MAX_CLOCK_SKEW_MS the nodes get. All the nodes run on
	// this machine and read one clock, so a small bound (not the default
	// 500 ms) is enough; any overlap at all would be a bug, and is noted.
	lkSkew = 100 * time.Millisecond
)

var lkLocks = []string{"lk-a", "lk-b", "lk-c"}

// lkGrant is a token a client holds and the guard that carries it.
type lkGrant struct {
	token    uint64
	guard    json.RawMessage
	answered time.Time // when the grant was answered
	ttl      int
}

type lkAnswer struct {
	Results []struct {
		Op       string          `json:"op"`
		Name     string          `json:"name"`
		Acquired *bool           `json:"acquired"`
		Renewed  *bool           `json:"renewed"`
		Released *bool           `json:"released"`
		Already  bool            `json:"already"`
		Reason   string          `json:"reason"`
		Token    uint64          `json:"token"`
		Owner    string          `json:"owner"`
		Guard    json.RawMessage `json:"guard"`
	} `json:"results"`
}

// lkClient is one client, with its own random source.
type lkClient struct {
	t    *testing.T
	id   int
	h    *lkHistory
	rng  *rand.Rand
	live *liveSet
	ctx  context.Context // the load: no retry starts after it ends
}

// attempt sends one attempt of a call through a random live node, and
// again through another while the dial is refused (nothing was sent).
func (c *lkClient) attempt(call *lkCall, path string, body, out any) (int, error) {
	for try := 0; ; try++ {
		ns := c.live.list()
		n := ns[c.rng.IntN(len(ns))]
		call.Node = n.id
		call.Invoke = time.Now()
		code, err := send(n, http.MethodPost, path, body, out, 10*time.Second)
		call.Complete = time.Now()
		if err != nil && notSent(err) && try < 100 {
			time.Sleep(20 * time.Millisecond) // a node down: back off, then another
			continue
		}
		if err != nil {
			call.Err = strings.TrimSpace(err.Error())
		}
		return code, err
	}
}

// retry says whether to send an attempt of unknown outcome again.
func (c *lkClient) retry(call *lkCall, code int, err error, first time.Time) bool {
	if code >= 400 && code < 500 {
		c.t.Errorf("%s refused: %d %v", call.Op, code, err)
		return false
	}
	if c.ctx.Err() != nil || time.Since(first) > 8*time.Second {
		return false // left unknown
	}
	time.Sleep(50 * time.Millisecond) // back off before the retry, as a client should
	return true
}

// lockCall makes one attempt of one lock operation; it answers the
// operation's result when the attempt was answered.
func (c *lkClient) lockCall(call *lkCall, op map[string]any) (*lkAnswer, int, error) {
	var out lkAnswer
	code, err := c.attempt(call, "/api/v1/locks", map[string]any{"operations": []any{op}}, &out)
	if code == 200 && err == nil {
		if len(out.Results) != 1 || out.Results[0].Op != call.Op || out.Results[0].Name != call.Lock {
			c.t.Errorf("%s answered %+v", c.h.fmt(call), out)
			return nil, -1, err
		}
		call.Known = true
		return &out, code, nil
	}
	return nil, code, err
}

// checkGuard checks that a grant's guard is the check of its permit at
// its token.
func (c *lkClient) checkGuard(call *lkCall, raw json.RawMessage, token uint64) {
	var g struct {
		Op       string `json:"op"`
		NS       string `json:"ns"`
		Key      string `json:"key"`
		Expect   uint64 `json:"expect"`
		Required bool   `json:"required"`
	}
	if err := json.Unmarshal(raw, &g); err != nil || g.Op != "check" || g.NS != "queen-locks" || g.Key != call.Lock+"#0" || g.Expect != token || !g.Required || token == 0 {
		c.t.Errorf("%s answered guard %s: %v", c.h.fmt(call), raw, err)
	}
}

// acquire takes lock for owner, retrying with the same owner while the
// outcome is unknown (a retry then gets the permit an earlier attempt
// took, answered already). It returns nil when the lock is held.
func (c *lkClient) acquire(lock, owner string, ttl int) *lkGrant {
	first := time.Now()
	for attempt := 0; ; attempt++ {
		call := &lkCall{Client: c.id, Op: "acquire", Lock: lock, Owner: owner, TTL: ttl, Attempt: attempt}
		out, code, err := c.lockCall(call, map[string]any{"op": "acquire", "name": lock, "ttlSeconds": ttl, "owner": owner})
		if out != nil {
			r := out.Results[0]
			call.OK, call.Already, call.Got, call.Reason = r.Acquired != nil && *r.Acquired, r.Already, r.Token, r.Reason
			switch {
			case r.Acquired == nil:
				c.t.Errorf("%s answered no acquired: %+v", c.h.fmt(call), r)
			case call.OK && r.Owner != owner:
				c.t.Errorf("%s answered owner %q", c.h.fmt(call), r.Owner)
			case call.OK:
				c.checkGuard(call, r.Guard, r.Token)
			case r.Reason != "held":
				c.t.Errorf("%s answered reason %q", c.h.fmt(call), r.Reason)
			}
			c.h.add(call)
			if !call.OK {
				return nil
			}
			return &lkGrant{token: r.Token, guard: r.Guard, answered: call.Complete, ttl: ttl}
		}
		c.h.add(call)
		if !c.retry(call, code, err, first) {
			return nil
		}
	}
}

// renew renews a grant once (an attempt of unknown outcome is not sent
// again: if it applied, the token it sent is dead). It answers the new
// grant, or nil and whether the renew was answered.
func (c *lkClient) renew(lock, owner string, g *lkGrant, ttl int) (*lkGrant, bool) {
	call := &lkCall{Client: c.id, Op: "renew", Lock: lock, Owner: owner, TTL: ttl, Token: g.token}
	out, _, _ := c.lockCall(call, map[string]any{"op": "renew", "name": lock, "token": g.token, "ttlSeconds": ttl, "owner": owner})
	if out == nil {
		c.h.add(call)
		return nil, false
	}
	r := out.Results[0]
	call.OK, call.Got, call.Reason = r.Renewed != nil && *r.Renewed, r.Token, r.Reason
	switch {
	case r.Renewed == nil:
		c.t.Errorf("%s answered no renewed: %+v", c.h.fmt(call), r)
	case call.OK:
		c.checkGuard(call, r.Guard, r.Token)
	case r.Reason != "lost":
		c.t.Errorf("%s answered reason %q", c.h.fmt(call), r.Reason)
	}
	c.h.add(call)
	if !call.OK {
		return nil, true
	}
	return &lkGrant{token: r.Token, guard: r.Guard, answered: call.Complete, ttl: ttl}, true
}

// release releases a grant, retrying while the outcome is unknown; it
// answers whether an attempt answered released.
func (c *lkClient) release(lock, owner string, g *lkGrant) bool {
	first := time.Now()
	for attempt := 0; ; attempt++ {
		call := &lkCall{Client: c.id, Op: "release", Lock: lock, Owner: owner, Token: g.token, Attempt: attempt}
		out, code, err := c.lockCall(call, map[string]any{"op": "release", "name": lock, "token": g.token})
		if out != nil {
			r := out.Results[0]
			call.OK, call.Reason = r.Released != nil && *r.Released, r.Reason
			if r.Released == nil || !call.OK && r.Reason != "lost" {
				c.t.Errorf("%s answered %+v", c.h.fmt(call), r)
			}
			c.h.add(call)
			return call.OK
		}
		c.h.add(call)
		if !c.retry(call, code, err, first) {
			return false
		}
	}
}

// txn pushes one record naming the holder and its token to the lock's
// partition, guarded by g, retrying the same body (same transactionId)
// while the outcome is unknown.
func (c *lkClient) txn(lock, owner string, g *lkGrant, k int, intent string) {
	id := fmt.Sprintf("%s/%d", owner, k)
	body := map[string]any{
		"operations": []map[string]any{{"type": "push", "items": []map[string]any{{"queue": lkQueue, "partition": lock, "transactionId": id,
			"payload": lkPayload{Lock: lock, Owner: owner, Token: g.token, TxID: id}}}}},
		"kv": []json.RawMessage{g.guard},
	}
	first := time.Now()
	for attempt := 0; ; attempt++ {
		call := &lkCall{Client: c.id, Op: "txn", Lock: lock, Owner: owner, Token: g.token, TxID: id, Intent: intent, Attempt: attempt}
		var out txnAnswer
		code, err := c.attempt(call, "/api/v1/transaction", body, &out)
		if code == 200 && err == nil {
			call.Known, call.OK, call.Reason = true, out.Success, out.Reason
			c.h.add(call)
			return
		}
		c.h.add(call)
		if !c.retry(call, code, err, first) {
			return
		}
	}
}

// run loops over acquisitions until the load ends. Most push one record
// under the lock and release it; some renew and push again; some try on
// purpose a guard that must be refused: after the release, with the token
// a renew replaced, or once the lifetime is over.
func (c *lkClient) run() {
	for ep := 0; c.ctx.Err() == nil; ep++ {
		lock := lkLocks[c.rng.IntN(len(lkLocks))]
		owner := fmt.Sprintf("c%d-%d", c.id, ep)
		ttl := 1 + c.rng.IntN(3)
		g := c.acquire(lock, owner, ttl)
		if g == nil {
			time.Sleep(time.Duration(10+c.rng.IntN(40)) * time.Millisecond) // held: back off
			continue
		}
		r := c.rng.Float64()
		if r < 0.03 {
			// Past the lifetime (plus the skew bound) the guard must fail.
			time.Sleep(time.Until(g.answered.Add(time.Duration(ttl)*time.Second + lkSkew + 100*time.Millisecond)))
			c.txn(lock, owner, g, 0, "expired")
			c.release(lock, owner, g)
			continue
		}
		c.txn(lock, owner, g, 0, "")
		if r < 0.25 {
			ng, known := c.renew(lock, owner, g, ttl)
			if !known {
				c.release(lock, owner, g) // lost if the renew applied; the permit then expires
				continue
			}
			if ng == nil {
				continue
			}
			if r < 0.12 {
				c.txn(lock, owner, g, 1, "renewed")
			}
			g = ng
			c.txn(lock, owner, g, 2, "")
		}
		if c.release(lock, owner, g) && c.rng.IntN(12) == 0 {
			c.txn(lock, owner, g, 3, "released")
		}
		time.Sleep(time.Duration(5+c.rng.IntN(20)) * time.Millisecond) // pacing
	}
}

// TestLocksSurviveLeaderKills: six clients, through random nodes of three,
// loop acquire → guarded transaction → release on three locks for about
// 20 s while the leader is killed with SIGKILL and restarted twice; then
// the history and the records the transactions pushed are checked against
// the guarantees of locks (see lkHistory.check).
func TestLocksSurviveLeaderKills(t *testing.T) {
	nodes := startedCluster(t, 3, "three processes and two failovers; run without -short", fmt.Sprintf("QUEEN_RAFT_MAX_CLOCK_SKEW_MS=%d", lkSkew.Milliseconds()))
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	for _, l := range lkLocks { // a record in each partition, so that each can be read
		if _, err := nodes[0].push(ctx, pushItem{Queue: lkQueue, Partition: l, TransactionID: "seed-" + l, Payload: json.RawMessage(`{"seed":true}`)}); err != nil {
			t.Fatal(err)
		}
	}
	cancel()

	live := newLiveSet(nodes)
	h := &lkHistory{t0: time.Now()}
	load, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { stop(); wg.Wait() }()
	for i := range 6 {
		wg.Add(1)
		c := &lkClient{t: t, id: i, h: h, rng: rand.New(rand.NewPCG(seed, uint64(i))), live: live, ctx: load}
		go func() { defer wg.Done(); c.run() }()
	}
	waitCommitted := func(n int) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for h.committed() < n {
			if time.Now().After(deadline) {
				t.Fatalf("only %d guarded transactions committed within 60 s, waiting for %d", h.committed(), n)
			}
			time.Sleep(20 * time.Millisecond) // commits carry no event a test can wait on: poll the count
		}
	}
	waitCommitted(100)
	for _, at := range []time.Duration{4 * time.Second, 11 * time.Second} {
		time.Sleep(time.Until(h.t0.Add(at))) // pacing: the kills spread over the load
		k := killLeader(t, nodes, live, h.t0)
		waitCommitted(h.committed() + 30) // the survivors elect a leader and commit again
		restart(t, k, live, h.t0)
		waitCommitted(h.committed() + 30)
	}
	if d := 20*time.Second - time.Since(h.t0); d > 0 {
		time.Sleep(d) // pacing: the load runs for 20 s at least
	}
	stop()
	wg.Wait()
	t.Logf("load ended at %s", secs(h.t0, time.Now()))

	records := map[string][]fetchRecord{}
	for _, l := range lkLocks {
		records[l] = readAgreed(t, nodes, lkQueue, l)
	}
	v, notes, summary := h.check(records, lkSkew)
	var unknown []string
	for _, c := range h.calls {
		if !c.Known {
			unknown = append(unknown, h.fmt(c))
		}
	}
	verdict(t, summary, "calls of unknown outcome", unknown, v, notes)
}
