package chaos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"sync/atomic"
	"syscall"
	"time"
)

// pick is a random running node of c, drawn from r.
func (c *Cluster) pick(r *rand.Rand) *Node {
	for {
		if n := c.Nodes[r.IntN(len(c.Nodes))]; n.Running() {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// kvResult is one result of POST /api/v1/kv (API.md §5): a write's
// applied, reason and value (on a loss, the winner's), a get's found and
// value, getPrefix's rows.
type kvResult struct {
	Op        string          `json:"op"`
	Applied   bool            `json:"applied"`
	Reason    string          `json:"reason"`
	Found     bool            `json:"found"`
	Key       string          `json:"key"`
	Value     json.RawMessage `json:"value"`
	Version   int64           `json:"version"`
	Rows      []kvRow         `json:"rows"`
	Truncated bool            `json:"truncated"`
	NextAfter string          `json:"nextAfter"`
}

// kvRow is one row of a getMany or getPrefix result.
type kvRow struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

// kvOutcome says what a KV call's answer tells of its writes.
type kvOutcome int

const (
	// kvAnswered: 200 with one result per op.
	kvAnswered kvOutcome = iota
	// kvRefused: 400 or 429, refused before it was proposed: nothing
	// applied.
	kvRefused
	// kvUnknown: no answer, or 5xx: the writes may or may not apply.
	kvUnknown
	// kvFull: 507 storage_full, a definite refusal: nothing applied.
	kvFull
	// kvNotSent: the node refused the connection (it is starting, or
	// down): nothing was sent.
	kvNotSent
)

// refusalCounter counts the answers 507 storage_full a workload got (it
// makes the workload a refuser).
type refusalCounter struct{ n atomic.Int64 }

// refusals is how many answers 507 storage_full were counted.
func (r *refusalCounter) refusals() int { return int(r.n.Load()) }

// kvCall runs ops as one POST /api/v1/kv through n, within 5 s.
func kvCall(ctx context.Context, n *Node, ops ...map[string]any) ([]kvResult, kvOutcome) {
	return opsCall[kvResult](ctx, n, "/api/v1/kv", ops...)
}

// opsCall runs ops as one POST {"operations": ops} to path through n,
// within 5 s, and decodes one result per op (the KV's, the locks' and the
// timers' shape); a 200 with another number of results is unknown.
func opsCall[R any](ctx context.Context, n *Node, path string, ops ...map[string]any) ([]R, kvOutcome) {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var out struct{ Results []R }
	code, err := n.Call(cctx, http.MethodPost, path, map[string]any{"operations": ops}, &out)
	if o := outcomeOf(code, err); o != kvAnswered || len(out.Results) == len(ops) {
		return out.Results, o
	}
	return nil, kvUnknown
}

// opCall is opsCall of one op: its result.
func opCall[R any](ctx context.Context, n *Node, path string, op map[string]any) (R, kvOutcome) {
	res, o := opsCall[R](ctx, n, path, op)
	if o != kvAnswered {
		var zero R
		return zero, o
	}
	return res[0], o
}

// outcomeOf is what a call's status code and error tell of its writes.
func outcomeOf(code int, err error) kvOutcome {
	switch {
	case err == nil && code == http.StatusOK:
		return kvAnswered
	case code == http.StatusBadRequest || code == http.StatusTooManyRequests:
		return kvRefused
	case code == http.StatusInsufficientStorage:
		return kvFull
	case errors.Is(err, syscall.ECONNREFUSED):
		return kvNotSent
	}
	return kvUnknown
}

// readStable reads every node with read, each retried until it answers
// or timeout passes, and reads them all again until two rounds in a row
// read the same (at most 10 rounds; the last is returned, by node name
// "node<ID>"). A write whose call the workload's end cut may still commit
// while the nodes are read, and a round it straddles would show nodes, or
// one node's reads of two things, disagreeing.
func readStable[T any](ctx context.Context, c *Cluster, timeout time.Duration, read func(ctx context.Context, n *Node) (T, error)) (map[string]T, error) {
	deadline := time.Now().Add(timeout)
	var last map[string]T
	for range 10 {
		cur := map[string]T{}
		for _, n := range c.Nodes {
			for {
				v, err := read(ctx, n)
				if err == nil {
					cur[fmt.Sprintf("node%d", n.ID)] = v
					break
				}
				if time.Now().After(deadline) {
					return nil, fmt.Errorf("node %d: %w", n.ID, err)
				}
				if !sleep(ctx, 200*time.Millisecond) {
					return nil, ctx.Err()
				}
			}
		}
		if last != nil && reflect.DeepEqual(last, cur) {
			break
		}
		last = cur
		sleep(ctx, 500*time.Millisecond)
	}
	return last, nil
}

// kvPrefix reads every key of ns under prefix from n (getPrefix, paged),
// each key's value as its raw JSON.
func kvPrefix(ctx context.Context, n *Node, ns, prefix string) (map[string]string, error) {
	out := map[string]string{}
	after := ""
	for {
		op := map[string]any{"op": "getPrefix", "ns": ns, "prefix": prefix, "limit": 1000}
		if after != "" {
			op["after"] = after
		}
		res, o := kvCall(ctx, n, op)
		if o != kvAnswered {
			return nil, fmt.Errorf("getPrefix %s/%s: no answer", ns, prefix)
		}
		for _, r := range res[0].Rows {
			out[r.Key] = string(r.Value)
		}
		if !res[0].Truncated || len(res[0].Rows) == 0 {
			return out, nil
		}
		after = res[0].Rows[len(res[0].Rows)-1].Key
		if res[0].NextAfter != "" {
			after = res[0].NextAfter
		}
	}
}

// jsonString is raw as the string it encodes, or raw itself when it is
// no JSON string ("" for null or nothing).
func jsonString(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
