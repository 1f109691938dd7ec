package s3sink

import (
	"context"
	"math/rand/v2"
	"time"
)

// randomJitter is the claim jitter: below 200 ms.
func randomJitter(string) time.Duration {
	return time.Duration(rand.Int64N(int64(200 * time.Millisecond)))
}

// running reports whether a state holds the queue's lease on this node.
func running(s State) bool {
	switch s {
	case StateRestoring, StateFilling, StateIntent, StateUpload, StateCommit:
		return true
	}
	return false
}

// held counts the queues this node runs.
func (e *Engine) held() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, q := range e.tasks {
		if running(q.getState()) {
			n++
		}
	}
	return n
}

// share is the fair share of queues per node: ceil(queues / nodes).
func (e *Engine) share() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return (len(e.queues) + e.nodes - 1) / max(e.nodes, 1)
}

// beat writes this node's presence row and counts the nodes running the
// sink from everyone's rows; false when a call failed.
func (e *Engine) beat(ctx context.Context) bool {
	v := mustJSON(leaseDoc{Instance: e.node.Instance, Incarnation: e.incarnation, SinceMs: e.now().UnixMilli()})
	if _, err := e.kv.Batch(ctx, e.tenant, Namespace, []KVOp{{Kind: KVPut, Key: presenceKey(e.set.Sink, e.node.Instance),
		Value: v, TTL: leaseTTL(e.node.LeaseTTL)}}); err != nil {
		e.log.Warn("presence beat", "err", err)
		return false
	}
	n := 0
	for after := ""; ; {
		rows, next, err := e.kv.Prefix(ctx, e.tenant, Namespace, presencePrefix(e.set.Sink), after, 1000)
		if err != nil {
			e.log.Warn("count nodes", "err", err)
			return false
		}
		n += len(rows)
		if next == "" {
			break
		}
		after = next
	}
	e.mu.Lock()
	e.nodes = max(n, 1)
	e.mu.Unlock()
	return true
}

// leavePresence deletes this node's presence row on a clean stop.
func (e *Engine) leavePresence() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e.kv.Batch(ctx, e.tenant, Namespace, []KVOp{{Kind: KVDelete, Key: presenceKey(e.set.Sink, e.node.Instance)}})
}

// balance gives one queue back when this node has held more than its share
// for a whole TTL: the one with the least buffered (ties by name), drained
// first as a SIGTERM would.
func (e *Engine) balance() {
	held, share := e.held(), e.share()
	e.mu.Lock()
	defer e.mu.Unlock()
	if held <= share {
		e.overFrom = time.Time{}
		return
	}
	if e.overFrom.IsZero() {
		e.overFrom = e.now()
		return
	}
	if e.giving != "" || e.now().Sub(e.overFrom) < e.node.LeaseTTL {
		return
	}
	var pick *queueTask
	var least int64
	for _, name := range e.queues {
		q := e.tasks[name]
		if !running(q.getState()) {
			continue
		}
		if b := e.mem.of(q); pick == nil || b < least {
			pick, least = q, b
		}
	}
	if pick != nil {
		e.giving = pick.queue
		pick.giveBack()
		e.metrics.givenBack(e.tenant)
		e.log.Info("giving a queue back to balance the nodes", "queue", pick.queue, "held", held, "share", share)
	}
}

// claimDelay is how long a node waits before it claims a free queue: one
// second per queue it runs already, so the least loaded claims first, and a
// TTL more at or above its share (over); plus up to 200 ms of jitter,
// capped at half the TTL (the TTL itself past the share).
func (e *Engine) claimDelay(q *queueTask) (d time.Duration, over bool) {
	held, share := e.held(), e.share()
	d = time.Duration(held)*time.Second + e.jitter(q.queue)
	d = min(d, e.node.LeaseTTL/2)
	if held >= share {
		d += e.node.LeaseTTL
	}
	return d, held >= share
}

// claimTurn claims q's lease, one claim of the node at a time. A node that
// reached its share while q waited a delay chosen below it does not claim
// now (paced): q waits again, a share-holder's delay this time, so that
// the nodes below their share claim first. A claim still waiting its turn
// when the engine drains is not made (paced too: the supervisor's next
// sleep ends it).
func (e *Engine) claimTurn(ctx context.Context, q *queueTask, over bool) (claimed, paced bool) {
	e.claimMu.Lock()
	defer e.claimMu.Unlock()
	select {
	case <-e.drainCh:
		return false, true
	case <-ctx.Done():
		return false, true
	default:
	}
	if !over && e.held() >= e.share() {
		return false, true
	}
	return q.claim(ctx), false
}

// supervise runs a queue's task again and again: claim it when it is free,
// mirror it while the lease holds, look again after each end. The first
// claim waits until the node has counted the nodes around it (settled),
// unless the lease row is this node's from an earlier life (mine): that
// one it takes back at once.
func (e *Engine) supervise(ctx context.Context, q *queueTask, mine bool) {
	if !mine {
		select {
		case <-e.settled:
		case <-ctx.Done():
			return
		case <-e.drainCh:
			return
		}
	}
	failures := 0
	for {
		var d time.Duration
		over := mine
		if !mine {
			d, over = e.claimDelay(q)
		}
		mine = false
		if !e.sleep(ctx, d) {
			return
		}
		claimed, paced := e.claimTurn(ctx, q, over)
		if paced {
			continue
		}
		end := q.getState() // held, or failed
		if claimed {
			end = q.run(ctx)
		}
		e.mu.Lock()
		if e.giving == q.queue && end != StateReleased {
			// A give-back that ended otherwise (failed, fenced, lapsed)
			// ends too: balance may pick again.
			e.giving, e.overFrom = "", time.Time{}
		}
		e.mu.Unlock()
		var next time.Duration
		switch end {
		case StateHeld:
			next = max(e.node.LeaseTTL/3, 100*time.Millisecond)
		case StateMissing:
			next = 5 * time.Second
		case StateFailed:
			failures++
			next = min(time.Second<<min(failures, 10), e.node.LeaseTTL)
		case StateCrashed, StateFenced:
			next = 60 * time.Second
		case StateReleased:
			e.mu.Lock()
			e.giving, e.overFrom = "", time.Time{}
			e.mu.Unlock()
			next = 2 * e.node.LeaseTTL
		case StateDrained:
			return
		}
		if end != StateFailed {
			failures = 0
		}
		if !e.sleep(ctx, next) {
			return
		}
	}
}

// sleep waits d; false when the engine drains or ctx ends.
func (e *Engine) sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-e.drainCh:
		return false
	case <-e.clock.After(d):
		return true
	}
}
