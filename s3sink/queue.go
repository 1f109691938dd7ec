package s3sink

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/queen-mq/queen-go/lakeformat"
)

// State is where a queue's task is: running states, then how its last run
// ended (SINK-CONFIG.md §6).
type State string

// The states of a queue on this node.
const (
	StateClaiming  State = "claiming"  // trying to take the lease
	StateHeld      State = "held"      // another node holds the lease
	StateRestoring State = "restoring" // reading the pointers, redoing an intent
	StateFilling   State = "filling"   // reading the log into the open window
	StateIntent    State = "intent"    // fixing the window's end in KV
	StateUpload    State = "upload"    // writing objects, then the manifest
	StateCommit    State = "commit"    // moving the commit pointer
	StateDrained   State = "drained"   // stopped by a drain, lease given back
	StateFenced    State = "fenced"    // the lease moved: stopped here
	StateFailed    State = "failed"    // a run ended in an error; retried later
	StateMissing   State = "missing"   // the queue does not exist (yet)
	StateCrashed   State = "crashed"   // a run panicked; retried later
	StateReleased  State = "released"  // given back to balance the nodes
)

// errFenced ends a run whose lease moved: a KV batch fenced by the lease
// lost its precondition.
var errFenced = errors.New("s3sink: lease lost")

// errLapsed ends a run whose lease ran out: its refreshes went unanswered
// past the lease's end, or a fenced batch found no lease row at all.
// Whether another node holds it by now is unknown.
var errLapsed = errors.New("s3sink: lease lapsed: it ran out before a refresh was answered")

// queueTask mirrors one queue while this node holds its lease.
type queueTask struct {
	e     *Engine
	queue string
	log   *slog.Logger

	mu    sync.Mutex // guards the fields below, read by Status
	state State
	st    queueStats

	// The lease. leaseMu serialises every KV batch that rewrites the lease
	// row, so leaseVersion is always the version this node last wrote.
	leaseMu      chanMutex
	leaseVersion int64
	holder       string // the holder's instance when another node holds it
	// leaseUntil is when the lease ends unless refreshed: the start of the
	// last call that wrote it, plus its TTL (the row's own end comes
	// later, from the stamp of the entry). Guarded by mu.
	leaseUntil time.Time
	lapsed     bool // the refreshes failed past leaseUntil; guarded by mu

	// The pointers, as this node last read or wrote them.
	intentVersion    int64
	committedVersion int64
	k                uint64 // the next window to commit
	committedEnd     int64  // tEnd of the last committed window (0: none)

	// The open window.
	tStart   int64 // -1 until the first read fixes it
	parts    map[string]*partBuf
	order    []string // partition names, sorted
	discover string   // the partitions cursor of the current discovery pass
	buffered int64
	safeTime int64         // of the last discovery: every record below is read
	ckptAge  int           // windows committed since the last checkpoint
	closeAt  int64         // the end fillRound chose for the closing window
	closeWhy closeReason   // and why it closes
	giveCh   chan struct{} // closed to give the queue back (balance)
	lostCh   chan struct{} // closed when a lease refresh found the lease moved or lapsed
	// pending is the intent written for window k and not yet committed:
	// the next thing the run does is finish it.
	pending *intentDoc
	// notes are the queue's lost notes, read at restore (lost.go).
	notes []note
}

// queueStats are a queue's figures for status and metrics.
type queueStats struct {
	windowsCommitted int64
	records, bytes   int64
	recordsLost      int64
	redo             bool
	lastError        *queueError
	completeThrough  int64
	// Copies of the run's own fields, for Report (the run writes those
	// without the lock).
	k          uint64 // the last committed window
	tEnd       int64  // its end
	safeTime   int64  // of the last discovery
	partitions int
	ckptAge    int
}

type queueError struct {
	At      time.Time
	Message string
}

func newQueueTask(e *Engine, queue string) *queueTask {
	return &queueTask{e: e, queue: queue, log: e.log.With("queue", queue), state: StateClaiming, tStart: -1, leaseMu: newChanMutex(),
		parts: map[string]*partBuf{}}
}

func (q *queueTask) setState(s State) {
	q.mu.Lock()
	q.state = s
	q.mu.Unlock()
}

func (q *queueTask) getState() State {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.state
}

func (q *queueTask) fail(err error) {
	q.mu.Lock()
	q.st.lastError = &queueError{At: q.e.now(), Message: err.Error()}
	q.mu.Unlock()
	q.log.Warn("queue error", "err", err)
}

// run mirrors the queue, whose lease claim took, until ctx ends, the
// lease is lost, or a drain finishes. It returns the state the run ended
// in.
func (q *queueTask) run(ctx context.Context) (end State) {
	defer func() {
		if r := recover(); r != nil {
			q.fail(fmt.Errorf("panic: %v", r))
			end = StateCrashed
		}
		q.resetWindow(-1) // the buffers go with the run; the next one restores
		q.mu.Lock()
		if end != StateHeld {
			q.holder = "" // this node no longer holds it, and knows no holder
		}
		q.state = end
		// Under q.mu, as report sets them: no report after this one can
		// set the gauges of a queue this node no longer runs.
		q.e.metrics.forget(q.e.tenant, q.queue)
		q.mu.Unlock()
	}()
	q.e.metrics.queueStarted(q.e.tenant, q.e.set.Sink, q.queue)
	stopRefresh := q.startRefresh(ctx)
	defer func() {
		if r := recover(); r != nil {
			q.fail(fmt.Errorf("panic: %v", r))
			end = StateCrashed
		}
		stopRefresh()
		// A run that ends here gives the lease back; a lapsed one has none,
		// unless a later write of the run took it again.
		if (end == StateMissing || end == StateFailed || end == StateCrashed) && (!q.leaseLapsed() || q.owned(q.e.now())) {
			q.release(ctx)
		}
	}()
	if err := q.restore(ctx); err != nil {
		if end := q.endWith(ctx, err); end != "" {
			return end
		}
		return StateFailed // restore again on the next run
	}
	for {
		if q.leaseLost() {
			if q.leaseLapsed() {
				// No refresh was answered within the TTL: the lease may be
				// anyone's now. Look again soon, as after a failure.
				return q.endWith(ctx, fmt.Errorf("lease refresh: %w", errLapsed))
			}
			// A refresh found the lease moved: the queue is another node's.
			return q.endWith(ctx, fmt.Errorf("lease refresh: %w", errFenced))
		}
		var closed bool
		var err error
		if q.pending != nil {
			// A window whose intent is written is finished before anything
			// else: its end is fixed, and another end would orphan objects.
			closed, err = q.finishPending(ctx)
		} else {
			q.setState(StateFilling)
			closed, err = q.fillRound(ctx)
			if err == nil && closed {
				err = q.commitWindow(ctx)
			}
		}
		if err != nil {
			if !errors.Is(err, errFenced) && !errors.Is(err, errLapsed) && ctx.Err() == nil {
				// The outcome of a KV write that erred is unknown: read back
				// what the store holds before writing again.
				if rerr := q.resync(ctx); rerr != nil {
					err = rerr
				}
			}
			if end := q.endWith(ctx, err); end != "" {
				return end
			}
			continue
		}
		if q.isDraining() && !closed && q.pending == nil {
			q.release(ctx)
			if q.givingBack() {
				return StateReleased
			}
			return StateDrained
		}
		if q.pending != nil && !closed && q.isDraining() {
			// The window in its commit sequence waits for this node's log
			// to reach its end, drain or not: look again after the
			// interval (wait would answer at once).
			if !q.pause(ctx, q.e.node.DiscoveryInterval) {
				return q.endWith(ctx, ctx.Err())
			}
			continue
		}
		if !closed && !q.wait(ctx) {
			return q.endWith(ctx, ctx.Err())
		}
	}
}

// endWith decides what an error means for the run: the state it ends in,
// or "" to carry on after a pause.
func (q *queueTask) endWith(ctx context.Context, err error) State {
	switch {
	case errors.Is(err, errFenced):
		q.e.metrics.preconditionLost(q.e.tenant, q.e.set.Sink)
		q.fail(err)
		return StateFenced
	case errors.Is(err, errLapsed):
		// Not another node's, as far as this one knows: failed, so that it
		// claims again soon (a fence waits a minute).
		q.mu.Lock()
		q.lapsed = true
		q.mu.Unlock()
		q.fail(err)
		return StateFailed
	case errors.Is(err, ErrQueueNotFound):
		return StateMissing
	case ctx.Err() != nil:
		return StateDrained
	}
	q.fail(err)
	if !q.pause(ctx, time.Second) {
		return StateDrained
	}
	return ""
}

// wait pauses until the next discovery is due; false when ctx ended.
func (q *queueTask) wait(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return false
	case <-q.e.clock.After(q.e.node.DiscoveryInterval):
		return true
	case <-q.e.drainCh:
		return true
	case <-q.giveChan():
		return true
	case <-q.lostChan():
		return true
	}
}

// owned reports whether this node holds the queue's lease, as far as it
// knows at now: it runs the queue and the lease has not run out.
func (q *queueTask) owned(now time.Time) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return running(q.state) && now.Before(q.leaseUntil)
}

func (q *queueTask) lostChan() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.lostCh
}

// leaseLost reports whether a refresh of this run found the lease moved
// or let it lapse (leaseLapsed says which).
func (q *queueTask) leaseLost() bool {
	select {
	case <-q.lostChan():
		return true
	default:
		return false
	}
}

func (q *queueTask) giveChan() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.giveCh
}

// pause waits d (a second after a failure); false when ctx ended.
func (q *queueTask) pause(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-q.e.clock.After(d):
		return true
	}
}

// isDraining reports a drain of the engine or a give-back of this queue.
func (q *queueTask) isDraining() bool {
	select {
	case <-q.e.drainCh:
		return true
	default:
		return q.givingBack()
	}
}

func (q *queueTask) givingBack() bool {
	q.mu.Lock()
	ch := q.giveCh
	q.mu.Unlock()
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// giveBack asks the running task to drain and release its lease.
func (q *queueTask) giveBack() {
	q.mu.Lock()
	defer q.mu.Unlock()
	select {
	case <-q.giveCh:
	default:
		close(q.giveCh)
	}
}

// sortedParts returns the partition buffers in name order.
func (q *queueTask) sortedParts() []*partBuf {
	out := make([]*partBuf, 0, len(q.order))
	for _, n := range q.order {
		out = append(out, q.parts[n])
	}
	return out
}

// addPart starts buffering a partition found by discovery.
func (q *queueTask) addPart(name string, next int64) *partBuf {
	p := &partBuf{name: name, next: next}
	q.parts[name] = p
	i, _ := slices.BinarySearch(q.order, name)
	q.order = append(q.order, "")
	copy(q.order[i+1:], q.order[i:])
	q.order[i] = name
	return p
}

func (q *queueTask) codec() lakeformat.Codec { return q.e.set.Codec() }
