package chaos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"syscall"
	"time"

	"github.com/queen-mq/queen-go/tools/chaos/check"
)

// kvWorkload runs puts and linearizable gets of a few keys from several
// clients, each op through a random running node, and keeps the history
// with each op's call and return on one monotonic clock: an op without an
// answer is Unknown (a put that may have applied, at any time after its
// call; a get that tells nothing).
type kvWorkload struct {
	c       *Cluster
	ns      string
	keys    []string
	clients int
	start   time.Time

	history history[check.KVOp]
	refusalCounter
}

func (k *kvWorkload) now() int64 { return time.Since(k.start).Nanoseconds() }

func (k *kvWorkload) run(ctx context.Context, seed uint64) {
	k.start = time.Now()
	untilDone(ctx, k.clients, seed, 0x6b76, func(cl, n int, r *rand.Rand) {
		op := check.KVOp{Client: cl, Key: k.keys[r.IntN(len(k.keys))], Kind: "get"}
		if r.IntN(2) == 0 {
			op.Kind, op.Value = "put", fmt.Sprintf("c%d-%d", cl, n)
		}
		if !k.do(ctx, r, &op) {
			sleep(ctx, 20*time.Millisecond) // no node took it: nothing happened, nothing to record
			return
		}
		if op.Unknown || op.Refused {
			sleep(ctx, 50*time.Millisecond) // a fault: do not pile up ops of unknown outcome, nor refusals
		}
		k.history.add(op)
	})
}

// do runs op once through a random running node; false when it reached
// none (none runs, or the node refused the connection): the op was not
// sent.
func (k *kvWorkload) do(ctx context.Context, r *rand.Rand, op *check.KVOp) bool {
	n := k.c.Nodes[r.IntN(len(k.c.Nodes))]
	if !n.Running() {
		return false
	}
	path := "/api/v1/kv/" + k.ns + "/" + op.Key
	octx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var got struct {
		Found bool            `json:"found"`
		Value json.RawMessage `json:"value"`
	}
	op.Call = k.now()
	var code int
	var err error
	if op.Kind == "put" {
		code, err = n.Call(octx, http.MethodPut, path, map[string]any{"value": op.Value, "forever": true}, nil)
	} else {
		code, err = n.Call(octx, http.MethodGet, path, nil, &got)
	}
	op.Return = k.now()
	if errors.Is(err, syscall.ECONNREFUSED) {
		return false
	}
	if code == http.StatusInsufficientStorage {
		// A definite refusal: the put did not happen.
		op.Refused = true
		k.n.Add(1)
		return true
	}
	if err != nil || code != http.StatusOK {
		op.Unknown = true
		return true
	}
	if op.Kind == "get" && got.Found {
		op.Found = true
		if json.Unmarshal(got.Value, &op.Value) != nil {
			op.Value = string(got.Value) // not a string this workload put: the checker finds it never written
		}
	}
	return true
}

// finish checks the history for linearizability: the ops' answers are
// all it needs.
func (k *kvWorkload) finish(context.Context) (ops, answered int, anomalies []check.Anomaly, err error) {
	return len(k.history.ops), k.history.answered(func(op check.KVOp) bool { return !op.Unknown }), check.CheckKV(k.history.ops), nil
}
