package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/queen-mq/queen-go/tools/chaos/check"
)

// txnWorkload has several clients send transactions (API.md §3), each of
// three writes that must be all or nothing: a push to partition "a" and
// one to partition "b" of one queue, each with a transaction id of its
// own, and a KV put of a key of its own. A transaction not answered (no
// answer, 5xx, or a rollback other than duplicate) is sent again with
// the same ids through another random node until it is answered
// committed: success, or the rollback "duplicate" (an earlier attempt
// committed, and dedup refused the whole retry). At the end, once the
// nodes show the same high watermarks, every node's log of both
// partitions and its KV keys are read, and check.CheckTxn requires each
// transaction's effects all present once or all absent on every node,
// all present for a committed one.
type txnWorkload struct {
	c       *Cluster
	queue   string
	ns      string
	clients int

	txns history[check.Txn]
}

// txnAnswer is the answer of POST /api/v1/transaction.
type txnAnswer struct {
	Success bool   `json:"success"`
	Reason  string `json:"reason"`
	Error   string `json:"error"`
}

// run sends transactions until ctx ends; client c's k-th has id
// "x<c>-<k>".
func (w *txnWorkload) run(ctx context.Context, seed uint64) {
	untilDone(ctx, w.clients, seed, 0x74786e, func(cl, k int, r *rand.Rand) {
		t := check.Txn{ID: fmt.Sprintf("x%d-%d", cl, k)}
		t.Effects = []string{"a/" + t.ID + "-a", "b/" + t.ID + "-b", "kv/" + t.ID}
		t.Committed = w.send(ctx, r, t.ID)
		w.txns.add(t)
	})
}

// send sends transaction id through random running nodes until it is
// answered committed (true) or ctx ends (false: it may have committed).
func (w *txnWorkload) send(ctx context.Context, r *rand.Rand, id string) bool {
	body := map[string]any{
		"operations": []map[string]any{
			{"type": "push", "queue": w.queue, "partition": "a", "transactionId": id + "-a", "payload": map[string]string{"t": id}},
			{"type": "push", "queue": w.queue, "partition": "b", "transactionId": id + "-b", "payload": map[string]string{"t": id}},
		},
		"kv": []map[string]any{{"op": "put", "ns": w.ns, "key": id, "value": id, "forever": true}},
	}
	for ctx.Err() == nil {
		var out txnAnswer
		tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		code, err := w.c.pick(r).Call(tctx, http.MethodPost, "/api/v1/transaction", body, &out)
		cancel()
		if err == nil && code == http.StatusOK && (out.Success || out.Reason == "duplicate") {
			return true
		}
		sleep(ctx, 50*time.Millisecond)
	}
	return false
}

// finish waits for the nodes to converge, reads every node's state and
// checks the transactions against it.
func (w *txnWorkload) finish(ctx context.Context) (ops, answered int, anomalies []check.Anomaly, err error) {
	parts := []string{"a", "b"}
	if err := converge(ctx, w.c, w.queue, parts, 60*time.Second); err != nil {
		return 0, 0, nil, err
	}
	state, err := readStable(ctx, w.c, 60*time.Second, func(ctx context.Context, n *Node) (map[string]int, error) {
		seen := map[string]int{}
		for _, p := range parts {
			recs, err := fetchAll(ctx, n, w.queue, p)
			if err != nil {
				return nil, err
			}
			for _, rec := range recs {
				seen[p+"/"+rec.TxnID]++
			}
		}
		keys, err := kvPrefix(ctx, n, w.ns, "x")
		if err != nil {
			return nil, err
		}
		for k, v := range keys {
			if jsonString([]byte(v)) == k { // each put wrote its own key as its value
				seen["kv/"+k]++
			} else {
				seen["kv/"+k+"="+v]++ // not what any transaction wrote: a phantom
			}
		}
		return seen, nil
	})
	if err != nil {
		return 0, 0, nil, err
	}
	return len(w.txns.ops), w.txns.answered(func(t check.Txn) bool { return t.Committed }), check.CheckTxn(w.txns.ops, state), nil
}
