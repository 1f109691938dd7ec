package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// lockTTL is the ttlSeconds of every acquire: long enough that no permit
// expires while its pair runs, short enough that one left by a failed
// release frees itself soon.
const lockTTL = 30

// runLocks is -mode locks: -c connections, each a loop of an acquire
// (ttlSeconds 30, an owner of its own) and the release of the permit it
// got, until -duration. Each connection has a lock name of its own
// (-queue, the run's prefix and its number), so nothing contends; with
// -shared every connection loops on one name, and an acquire refused
// (held or contended) is sent again at once and counted. records counts
// pairs (an acquire that got the lock and its release), requests every
// call, and the latency runs from a pair's first acquire attempt to its
// release's answer. Under -shared every token granted must be new: a
// token granted twice is two holders at once, reported as such.
func runLocks(o options) (*report, error) {
	client := newClient(o.conns)
	prefix := o.queue + "-" + runPrefix()
	ctx, cancel := context.WithTimeout(context.Background(), o.duration)
	defer cancel()
	var twice atomic.Int64
	var mu sync.Mutex
	tokens := map[int64]bool{}
	// records counts the pairs; empty the acquires refused under -shared.
	t := newTally()
	t.each(o.conns, func(c int) (mine []time.Duration) {
		url := o.urls[c%len(o.urls)]
		owner := fmt.Sprintf("%sowner-%d", prefix, c)
		gen := 0         // a new name after a release that failed: the old one is held for the TTL
		var t0 time.Time // the pair's first acquire attempt
		for ctx.Err() == nil {
			name := fmt.Sprintf("%s%d-%d", prefix, c, gen)
			if o.shared {
				name = prefix + "shared"
			}
			if t0.IsZero() {
				t0 = time.Now()
			}
			tok, ok, err := acquireLock(ctx, client, url, name, owner)
			if ctx.Err() != nil {
				break // cut by -duration
			}
			t.requests.Add(1)
			switch {
			case err != nil:
				t.fail(err)
				t0 = time.Time{}
				continue
			case !ok && !o.shared:
				t.fail(fmt.Errorf("acquire of %s, a name no other connection uses, was refused", name))
				gen++
				t0 = time.Time{}
				continue
			case !ok:
				t.empty.Add(1)
				continue
			}
			if o.shared {
				mu.Lock()
				if tokens[tok] {
					twice.Add(1)
					t.firstErr.CompareAndSwap(nil, fmt.Sprintf("token %d of %s granted twice", tok, name))
				}
				tokens[tok] = true
				mu.Unlock()
			}
			// A permit got is released even past -duration: left, it
			// would hold its name for the TTL.
			err = releaseLock(context.Background(), client, url, name, tok)
			t.requests.Add(1)
			if err != nil {
				t.fail(err)
				gen++
				t0 = time.Time{}
				continue
			}
			mine = append(mine, time.Since(t0))
			t0 = time.Time{}
			t.records.Add(1)
		}
		return mine
	})
	r := t.report()
	e, failed := t.first()
	if failed && r.records == 0 {
		return nil, fmt.Errorf("no acquire and release went through; the first error: %s", e)
	}
	if o.shared {
		r.notes = append(r.notes, fmt.Sprintf("one lock name shared by all %d connections; tokens granted twice %d", o.conns, twice.Load()))
	}
	r.notes = append(r.notes, "latency: from a pair's first acquire attempt to its release's answer (with -shared, the refused attempts between)")
	if failed {
		r.notes = append(r.notes, "first error: "+e)
	}
	return r, nil
}

// lockResult is the part of a locks call's result the bench reads.
type lockResult struct {
	Acquired bool   `json:"acquired"`
	Released bool   `json:"released"`
	Token    int64  `json:"token"`
	Reason   string `json:"reason"`
}

// lockCall sends one locks call of one operation and returns its result.
func lockCall(ctx context.Context, client *http.Client, url string, op map[string]any) (lockResult, []byte, error) {
	body, err := json.Marshal(map[string]any{"operations": []any{op}})
	if err != nil {
		return lockResult{}, nil, err
	}
	a, err := send(ctx, client, url+"/api/v1/locks", body)
	if err != nil {
		return lockResult{}, a.body, err
	}
	var out struct {
		Results []lockResult `json:"results"`
	}
	if err := json.Unmarshal(a.body, &out); err != nil || len(out.Results) != 1 {
		return lockResult{}, a.body, fmt.Errorf("locks call answered %.200s", a.body)
	}
	return out.Results[0], a.body, nil
}

// acquireLock asks for name's permit; ok is false when the broker refused
// it as held or contended, any other answer without a permit is an error.
func acquireLock(ctx context.Context, client *http.Client, url, name, owner string) (token int64, ok bool, err error) {
	res, body, err := lockCall(ctx, client, url, map[string]any{"op": "acquire", "name": name, "ttlSeconds": lockTTL, "owner": owner})
	switch {
	case err != nil:
		return 0, false, err
	case res.Acquired && res.Token > 0:
		return res.Token, true, nil
	case !res.Acquired && (res.Reason == "held" || res.Reason == "contended"):
		return 0, false, nil
	}
	return 0, false, fmt.Errorf("acquire of %s answered %.200s", name, body)
}

// releaseLock releases name's permit of token; anything but released is an
// error.
func releaseLock(ctx context.Context, client *http.Client, url, name string, token int64) error {
	res, body, err := lockCall(ctx, client, url, map[string]any{"op": "release", "name": name, "token": token})
	if err == nil && !res.Released {
		err = fmt.Errorf("release of %s token %d answered %.200s", name, token, body)
	}
	return err
}
