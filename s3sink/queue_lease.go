package s3sink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

func (q *queueTask) leaseKey() string { return docKey(q.e.set.Sink, q.queue, "lease") }

func (q *queueTask) leaseValue() []byte {
	return mustJSON(leaseDoc{Instance: q.e.node.Instance, Incarnation: q.e.incarnation, SinceMs: q.e.now().UnixMilli()})
}

// claim takes the queue's lease: putIfAbsent with the TTL, or a take-over
// of a row under this node's own name from an earlier life. It returns
// false, with the state set, when another node holds it or ctx ended.
func (q *queueTask) claim(ctx context.Context) bool {
	q.setState(StateClaiming)
	ttl := q.e.node.LeaseTTL
	res, err := q.e.kv.Batch(ctx, q.e.tenant, Namespace, []KVOp{{Kind: KVPutIfAbsent, Key: q.leaseKey(), Value: q.leaseValue(), TTL: ttl}})
	if err != nil {
		q.fail(fmt.Errorf("claim lease: %w", err))
		q.setState(StateFailed)
		return false
	}
	r := res.Results[0]
	if r.Applied {
		q.setLease(r.Version)
		return true
	}
	var holder leaseDoc
	_ = json.Unmarshal(r.Value, &holder)
	if holder.Instance == q.e.node.Instance {
		// This node's own row, from an earlier life or an earlier run: take
		// it back at once.
		v := r.Version
		res, err := q.e.kv.Batch(ctx, q.e.tenant, Namespace, []KVOp{{Kind: KVPut, Key: q.leaseKey(), Value: q.leaseValue(),
			TTL: ttl, Expect: &v, Required: true}})
		if err == nil && res.OK {
			q.setLease(res.Results[0].Version)
			return true
		}
	}
	q.mu.Lock()
	q.holder = holder.Instance
	q.mu.Unlock()
	q.setState(StateHeld)
	return false
}

func (q *queueTask) setLease(v int64) {
	q.leaseMu.Lock()
	q.leaseVersion = v
	q.leaseMu.Unlock()
	q.mu.Lock()
	q.holder = q.e.node.Instance
	q.mu.Unlock()
}

// fenced runs a KV batch whose first op rewrites the lease row and must
// find there the version this node last wrote. A lost precondition means
// the lease moved: errFenced, and nothing of the batch was written.
func (q *queueTask) fenced(ctx context.Context, ops []KVOp) (BatchResult, error) {
	q.leaseMu.Lock()
	defer q.leaseMu.Unlock()
	v := q.leaseVersion
	all := append([]KVOp{{Kind: KVPut, Key: q.leaseKey(), Value: q.leaseValue(), TTL: q.e.node.LeaseTTL, Expect: &v, Required: true}}, ops...)
	res, err := q.e.kv.Batch(ctx, q.e.tenant, Namespace, all)
	if err != nil {
		return res, err
	}
	if !res.OK {
		if res.FailedIndex == 0 {
			return res, errFenced
		}
		return res, fmt.Errorf("%w: %s precondition lost (%s)", errFenced, all[res.FailedIndex].Key, res.Results[res.FailedIndex].Reason)
	}
	q.leaseVersion = res.Results[0].Version
	return res, nil
}

// startRefresh rewrites the lease every third of its TTL until the
// returned stop is called. A refresh that finds the lease moved fences the
// queue: it stops refreshing, and the run ends fenced at its next step.
func (q *queueTask) startRefresh(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		every := max(q.e.node.LeaseTTL/3, 100*time.Millisecond)
		for {
			select {
			case <-ctx.Done():
				return
			case <-q.e.clock.After(every):
			}
			if _, err := q.fenced(ctx, nil); err != nil && ctx.Err() == nil {
				q.log.Warn("lease refresh failed", "err", err)
				if errors.Is(err, errFenced) {
					q.mu.Lock()
					close(q.lostCh)
					q.mu.Unlock()
					return
				}
				q.resyncLease(ctx)
			}
		}
	}()
	return func() { cancel(); <-done }
}

// resyncLease reads the lease back after a refresh whose outcome is
// unknown and takes its version when it is still this node's.
func (q *queueTask) resyncLease(ctx context.Context) {
	rows, err := q.e.kv.Get(ctx, q.e.tenant, Namespace, []string{q.leaseKey()})
	if err != nil || !rows[0].Found {
		return
	}
	var lease leaseDoc
	if json.Unmarshal(rows[0].Value, &lease) == nil && lease.Instance == q.e.node.Instance && lease.Incarnation == q.e.incarnation {
		q.leaseMu.Lock()
		q.leaseVersion = rows[0].Version
		q.leaseMu.Unlock()
	}
}

// release gives the lease back: delete it if it is still ours, retrying
// for up to ten seconds, as a leader hands over can refuse a call.
func (q *queueTask) release(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	for backoff := 100 * time.Millisecond; ; backoff = min(2*backoff, time.Second) {
		q.leaseMu.Lock()
		v := q.leaseVersion
		_, err := q.e.kv.Batch(ctx, q.e.tenant, Namespace, []KVOp{{Kind: KVDelete, Key: q.leaseKey(), Expect: &v}})
		q.leaseMu.Unlock()
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			q.log.Warn("lease not given back; it expires after its TTL", "err", err)
			return
		case <-time.After(backoff):
		}
	}
}
