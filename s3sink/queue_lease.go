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
// false, with the state set, when another node holds it or the call
// failed; true with the state restoring, so that the node's count of the
// queues it runs holds this one from now on.
func (q *queueTask) claim(ctx context.Context) bool {
	q.mu.Lock()
	q.state = StateClaiming
	q.giveCh, q.lostCh, q.lapsed = make(chan struct{}), make(chan struct{}), false
	q.mu.Unlock()
	ttl := leaseTTL(q.e.node.LeaseTTL)
	start := q.e.now()
	res, err := q.e.kv.Batch(ctx, q.e.tenant, Namespace, []KVOp{{Kind: KVPutIfAbsent, Key: q.leaseKey(), Value: q.leaseValue(), TTL: ttl}})
	if err != nil {
		q.fail(fmt.Errorf("claim lease: %w", err))
		q.mu.Lock()
		q.state, q.holder = StateFailed, ""
		q.mu.Unlock()
		return false
	}
	r := res.Results[0]
	if r.Applied {
		q.setLease(r.Version, start)
		q.log.Info("queue taken: this node writes it to the bucket", "leaseVersion", r.Version)
		return true
	}
	var holder leaseDoc
	_ = json.Unmarshal(r.Value, &holder)
	if holder.Instance == q.e.node.Instance {
		// This node's own row, from an earlier life or an earlier run: take
		// it back at once.
		v := r.Version
		start := q.e.now()
		res, err := q.e.kv.Batch(ctx, q.e.tenant, Namespace, []KVOp{{Kind: KVPut, Key: q.leaseKey(), Value: q.leaseValue(),
			TTL: ttl, Expect: &v, Required: true}})
		if err == nil && res.OK {
			q.setLease(res.Results[0].Version, start)
			q.log.Info("queue taken back from this node's earlier run", "leaseVersion", res.Results[0].Version)
			return true
		}
	}
	q.mu.Lock()
	q.holder, q.state = holder.Instance, StateHeld
	q.mu.Unlock()
	return false
}

// leftByEarlierLife names the queues of tasks whose lease row is under
// this node's name from an earlier life (a restart within the TTL), read
// in one call per 100 queues. A read that fails names none: those queues
// wait their turn like the others, and the claim takes the row back then.
func (e *Engine) leftByEarlierLife(ctx context.Context, tasks []*queueTask) map[string]bool {
	mine := map[string]bool{}
	for len(tasks) > 0 {
		chunk := tasks[:min(len(tasks), 100)]
		tasks = tasks[len(chunk):]
		keys := make([]string, len(chunk))
		for i, q := range chunk {
			keys[i] = q.leaseKey()
		}
		rows, err := e.kv.Get(ctx, e.tenant, Namespace, keys)
		if err != nil {
			e.log.Warn("read the lease rows of an earlier life", "err", err)
			continue
		}
		for i, r := range rows {
			var lease leaseDoc
			if r.Found && json.Unmarshal(r.Value, &lease) == nil && lease.Instance == e.node.Instance && lease.Incarnation != e.incarnation {
				mine[chunk[i].queue] = true
			}
		}
	}
	return mine
}

// setLease records a claim that took, written by a call started at start.
func (q *queueTask) setLease(v int64, start time.Time) {
	q.leaseMu.Lock()
	q.leaseVersion = v
	q.leaseMu.Unlock()
	q.mu.Lock()
	q.holder, q.state = q.e.node.Instance, StateRestoring
	q.leaseUntil = start.Add(leaseTTL(q.e.node.LeaseTTL))
	q.mu.Unlock()
}

// fenced runs a KV batch whose first op rewrites the lease row and must
// find there the version this node last wrote. A lost precondition on the
// lease row means the lease moved (errFenced, nothing of the batch was
// written), or ran out when there is no row at all (errLapsed), unless
// the row holds a later write of this very life, one whose answer was
// lost: then the batch failed on a stale version, and the error says to
// read back and go on (errStale). A lost precondition on another op while
// the lease held is the same: a late write of this node's.
func (q *queueTask) fenced(ctx context.Context, ops []KVOp) (BatchResult, error) {
	q.leaseMu.Lock()
	defer q.leaseMu.Unlock()
	v := q.leaseVersion
	all := append([]KVOp{{Kind: KVPut, Key: q.leaseKey(), Value: q.leaseValue(), TTL: leaseTTL(q.e.node.LeaseTTL), Expect: &v, Required: true}}, ops...)
	start := q.e.now()
	res, err := q.e.kv.Batch(ctx, q.e.tenant, Namespace, all)
	if err != nil {
		return res, err
	}
	if !res.OK {
		if res.FailedIndex > 0 {
			return res, fmt.Errorf("%s precondition lost under a held lease (a late write of this node): %w", all[res.FailedIndex].Key, errStale)
		}
		found, ours, version, rerr := q.readLease(ctx)
		switch {
		case rerr != nil:
			return res, fmt.Errorf("lease precondition lost, and the read-back failed: %w", rerr)
		case ours:
			q.leaseVersion = version
			return res, fmt.Errorf("lease row holds a later write of this node: %w", errStale)
		case !found:
			return res, errLapsed
		}
		return res, errFenced
	}
	q.leaseVersion = res.Results[0].Version
	q.mu.Lock()
	q.leaseUntil = start.Add(leaseTTL(q.e.node.LeaseTTL))
	q.mu.Unlock()
	return res, nil
}

// errStale is a fenced batch that failed on a version this node's own
// late write had moved: read back and go on (not a fence).
var errStale = errors.New("s3sink: stale version")

// readLease reads the lease row: whether there is one, whether it is this
// life's, and its version.
func (q *queueTask) readLease(ctx context.Context) (found, ours bool, version int64, err error) {
	rows, err := q.e.kv.Get(ctx, q.e.tenant, Namespace, []string{q.leaseKey()})
	if err != nil || !rows[0].Found {
		return false, false, 0, err
	}
	return true, q.isOurs(rows[0]), rows[0].Version, nil
}

// isOurs reports whether a lease row is this life's.
func (q *queueTask) isOurs(r Row) bool {
	var lease leaseDoc
	return r.Found && json.Unmarshal(r.Value, &lease) == nil && lease.Instance == q.e.node.Instance && lease.Incarnation == q.e.incarnation
}

// startRefresh rewrites the lease every third of its TTL until the
// returned stop is called. A refresh that fails is tried again at once
// (after a read-back, as its outcome is unknown), until one is answered or
// the lease runs out: then the queue is lost (lostCh) as lapsed. A refresh
// that finds the lease moved fences the queue. Either way the run ends at
// its next step.
func (q *queueTask) startRefresh(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		every := max(leaseTTL(q.e.node.LeaseTTL)/3, 100*time.Millisecond)
		wait := every
		for {
			select {
			case <-ctx.Done():
				return
			case <-q.e.clock.After(wait):
			}
			_, err := q.fenced(ctx, nil)
			switch {
			case err == nil:
				wait = every
				continue
			case ctx.Err() != nil:
				return
			case errors.Is(err, errFenced), errors.Is(err, errLapsed):
				q.log.Warn("lease refresh found the lease gone", "err", err)
				q.lose(errors.Is(err, errLapsed))
				return
			}
			q.log.Warn("lease refresh failed", "err", err)
			if !q.owned(q.e.now()) {
				q.log.Warn("lease lapsed: no refresh answered within its TTL")
				q.lose(true)
				return
			}
			if !errors.Is(err, errStale) {
				q.resyncLease(ctx)
			}
			wait = min(every, 100*time.Millisecond)
		}
	}()
	return func() { cancel(); <-done }
}

// lose marks the run's lease lost, lapsed or moved.
func (q *queueTask) lose(lapsed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.lapsed = lapsed
	close(q.lostCh)
}

// leaseLapsed reports whether the lease was lost by running out.
func (q *queueTask) leaseLapsed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.lapsed
}

// resyncLease reads the lease back after a refresh whose outcome is
// unknown and takes its version when it is still this node's.
func (q *queueTask) resyncLease(ctx context.Context) {
	q.leaseMu.Lock()
	defer q.leaseMu.Unlock()
	if _, ours, v, err := q.readLease(ctx); err == nil && ours {
		q.leaseVersion = v
	}
}

// release gives the lease back: delete it if it is still ours, retrying
// for up to ten seconds, as a leader hands over can refuse a call. The
// node stops reporting the queue as its own at once, whatever the delete
// answers: a delete that applied with its answer lost must not leave two
// owners reported. A delete that finds the row at another version of this
// life's (a late write of its own) reads it back and deletes again.
func (q *queueTask) release(ctx context.Context) {
	q.mu.Lock()
	q.leaseUntil = time.Time{}
	q.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	for backoff := 100 * time.Millisecond; ; backoff = min(2*backoff, time.Second) {
		q.leaseMu.Lock()
		v := q.leaseVersion
		res, err := q.e.kv.Batch(ctx, q.e.tenant, Namespace, []KVOp{{Kind: KVDelete, Key: q.leaseKey(), Expect: &v}})
		if err == nil && len(res.Results) > 0 && !res.Results[0].Applied {
			switch _, ours, version, rerr := q.readLease(ctx); {
			case rerr != nil:
				err = rerr
			case ours:
				q.leaseVersion, err = version, errStale
			}
		}
		q.leaseMu.Unlock()
		if err == nil {
			q.log.Info("queue given back: another node may take it")
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
