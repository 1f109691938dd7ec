package chaos

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/queen-mq/queen-go/tools/chaos/check"
)

// counterWorkload has several clients incr a few counters by 1 (KV incr,
// API.md §5), each incr once through a random running node: an answered
// incr returned the counter's new value; one without an answer (timeout,
// 5xx) may have applied or not; one refused (400, 429, 507) did not apply.
// At the end every node reads each counter (a linearizable read), and
// check.CheckCounter requires each answered incr counted once, the
// unknown ones at most once, and the answered values distinct; every
// node must read the same value (check.CheckSame).
type counterWorkload struct {
	c       *Cluster
	ns      string
	keys    []string
	clients int

	refusalCounter
	mu       sync.Mutex
	answered map[string][]int64 // per key, the values answered incrs returned
	unknown  map[string]int     // per key, incrs without an answer
	ops      int
}

// run incrs until ctx ends.
func (w *counterWorkload) run(ctx context.Context, seed uint64) {
	w.answered, w.unknown = map[string][]int64{}, map[string]int{}
	untilDone(ctx, w.clients, seed, 0x636e74, func(_, _ int, r *rand.Rand) {
		w.incr(ctx, r, w.keys[r.IntN(len(w.keys))])
	})
}

// incr adds 1 to key once, through a random running node, and records
// the outcome.
func (w *counterWorkload) incr(ctx context.Context, r *rand.Rand, key string) {
	res, o := kvCall(ctx, w.c.pick(r), map[string]any{"op": "incr", "ns": w.ns, "key": key, "delta": 1, "forever": true})
	if o == kvRefused || o == kvFull || o == kvNotSent { // not applied, not an op: the client tries again
		if o == kvFull {
			w.n.Add(1)
		}
		sleep(ctx, 100*time.Millisecond)
		return
	}
	if o == kvUnknown {
		defer sleep(ctx, 20*time.Millisecond) // as a client backs off; runs after the unlock below
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case o == kvAnswered && res[0].Applied:
		v, err := strconv.ParseInt(string(res[0].Value), 10, 64)
		if err != nil {
			v = -1 // not a count: CheckCounter finds it out of range
		}
		w.answered[key] = append(w.answered[key], v)
		w.ops++
	case o == kvAnswered:
		w.ops++ // refused by the store (limit, type): a counter with no bounds never is; applied nothing
	default:
		w.unknown[key]++
		w.ops++
	}
}

// finish reads every counter from every node and checks each.
func (w *counterWorkload) finish(ctx context.Context) (ops, answered int, anomalies []check.Anomaly, err error) {
	reads, err := readStable(ctx, w.c, 60*time.Second, func(ctx context.Context, n *Node) (map[string]string, error) {
		got := map[string]string{}
		for _, key := range w.keys {
			res, o := kvCall(ctx, n, map[string]any{"op": "get", "ns": w.ns, "key": key})
			if o != kvAnswered {
				return nil, fmt.Errorf("get %s: no answer", key)
			}
			got[key] = "0"
			if res[0].Found {
				got[key] = string(res[0].Value)
			}
		}
		return got, nil
	})
	if err != nil {
		return 0, 0, nil, err
	}
	finals := map[string]map[string]string{} // key → node → value
	for node, got := range reads {
		for key, v := range got {
			if finals[key] == nil {
				finals[key] = map[string]string{}
			}
			finals[key][node] = v
		}
	}
	for _, key := range w.keys {
		answered += len(w.answered[key])
		anomalies = append(anomalies, check.CheckSame("counter "+key, finals[key])...)
		for _, node := range slices.Sorted(maps.Keys(finals[key])) {
			final, err := strconv.ParseInt(finals[key][node], 10, 64)
			if err != nil {
				final = -1
			}
			for _, a := range check.CheckCounter(w.answered[key], w.unknown[key], final) {
				a.Detail = fmt.Sprintf("counter %s on %s: %s", key, node, a.Detail)
				anomalies = append(anomalies, a)
			}
		}
	}
	return w.ops, answered, anomalies, nil
}
