package raftlog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lni/dragonboat/v4"
)

// The errors a write can end with, besides the context's own. Only
// ErrTimeout leaves the outcome unknown: the entry may still apply, and the
// caller retries with the same ids (transactionId, KV expect) to be safe.
var (
	// ErrTimeout: the deadline passed after the entry was proposed; it may
	// or may not apply.
	ErrTimeout = errors.New("raftlog: timeout, outcome unknown")
	// ErrNoLeader: no leader was known until the deadline; nothing was
	// proposed.
	ErrNoLeader = errors.New("raftlog: no leader")
)

// Shard is one raft group on this node: its replicated state machine and
// the calls that propose to it and read from it.
type Shard struct {
	id    uint64
	host  *Host
	sm    atomic.Pointer[stateMachine] // set by dragonboat's factory when the replica starts
	watch *watchers
	log   *slog.Logger
	// appliers are the shard's, by kind, for the storage gate (disk.go).
	appliers map[OpKind]Applier
	refused  atomic.Uint64 // proposals the storage gate refused
	// leader is the leader named by the latest LeaderUpdated event, 0 for none.
	leader atomic.Uint64

	tickMu   sync.Mutex
	tickStop chan struct{}
	tickDone chan struct{}
}

// ID returns the shard's id.
func (s *Shard) ID() uint64 { return s.id }

// now is the proposer's clock: microseconds since the epoch, shifted by
// the host's ClockOffset.
func (s *Shard) now() int64 { return time.Now().Add(s.host.cfg.ClockOffset).UnixMicro() }

// Propose commits cmd and returns what applying it answered. It returns
// only once the entry is committed (written and fsynced on a majority) and
// applied on this node. cmd.Clock is set to this node's clock when zero.
//
// A proposal the shard could not take (no leader yet, or too busy) is
// retried until ctx ends, with ErrNoLeader then; a proposal that was taken
// but not answered before ctx ended returns ErrTimeout: its outcome is
// unknown. A command that may grow the store while a voter's disk is
// full is refused before it is proposed (ErrStorageFull, disk.go).
func (s *Shard) Propose(ctx context.Context, cmd Command) (Result, error) {
	if err := s.gate(ctx, &cmd); err != nil {
		return Result{}, err
	}
	ctx, cancel := withDefaultDeadline(ctx)
	defer cancel()
	if cmd.Clock == 0 {
		cmd.Clock = s.now()
	}
	data := AppendCommand(nil, &cmd)
	session := s.host.nh.GetNoOPSession(s.id)
	for backoff := time.Millisecond; ; backoff = min(2*backoff, 100*time.Millisecond) {
		r, err := s.host.nh.SyncPropose(ctx, session, data)
		if err == nil {
			res, err := DecodeResult(r.Data)
			res.Index = r.Value // Update puts the entry's index there
			return res, err
		}
		if !retryable(err) {
			return Result{}, s.proposeError(err)
		}
		select {
		case <-ctx.Done():
			return Result{}, ErrNoLeader
		case <-time.After(backoff):
		}
	}
}

// DefaultTimeout bounds a Propose or Read whose context has no deadline
// (dragonboat needs one).
const DefaultTimeout = 30 * time.Second

func withDefaultDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, DefaultTimeout)
}

// retryable errors mean the proposal or read was not taken: trying again
// cannot apply it twice.
func retryable(err error) bool {
	return errors.Is(err, dragonboat.ErrShardNotReady) || errors.Is(err, dragonboat.ErrSystemBusy)
}

// proposeError maps dragonboat's errors to raftlog's. A deadline too short
// to propose at all (ErrTimeoutTooSmall, ErrInvalidDeadline) is a timeout
// too: nothing was proposed, so a retry is safe, as after any ErrTimeout.
func (s *Shard) proposeError(err error) error {
	switch {
	case errors.Is(err, dragonboat.ErrTimeout), errors.Is(err, dragonboat.ErrCanceled),
		errors.Is(err, dragonboat.ErrAborted), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, context.Canceled), errors.Is(err, dragonboat.ErrTimeoutTooSmall),
		errors.Is(err, dragonboat.ErrInvalidDeadline):
		return fmt.Errorf("%w: %w", ErrTimeout, err)
	case errors.Is(err, dragonboat.ErrClosed), errors.Is(err, dragonboat.ErrShardClosed),
		errors.Is(err, dragonboat.ErrShardNotFound):
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	return fmt.Errorf("raftlog: shard %d: %w", s.id, err)
}

// Read runs fn on a linearizable view of the state: it sees every write
// answered before Read was called (dragonboat's ReadIndex). It returns fn's
// answer and error, or ErrNoLeader, ErrTimeout or ErrClosed.
//
// dragonboat drops a ReadIndex request now and then (to a peer not yet
// connected, across a change of leader) and answers it only at the
// deadline. A read changes nothing, so Read asks again on a short deadline
// of its own that doubles from readTry up to maxReadTry, until ctx ends.
func (s *Shard) Read(ctx context.Context, fn func(*View) (any, error)) (any, error) {
	var fnErr error // Lookup runs fn on this goroutine, inside SyncRead
	return s.syncRead(ctx, func(v *View) (any, error) {
		r, err := fn(v)
		fnErr = err
		return r, err
	}, &fnErr)
}

// DryRun runs fn as an applier would, through a Txn over the applied state
// of a linearizable read (as Read), stamped as an entry proposed now would
// be (this node's clock, at least one past the last entry), and drops its
// writes: fn sees what an entry proposed now would most likely see, and
// tx.Writes() says whether it would change anything. A caller that finds
// nothing to do proposes nothing (an empty pop); a caller that does
// proposes, and the entry decides.
func (s *Shard) DryRun(ctx context.Context, fn func(tx *Txn, at ApplyInfo) (any, error)) (any, error) {
	var fnErr error
	return s.syncRead(ctx, dryRun{fn: func(tx *Txn, at ApplyInfo) (any, error) {
		r, err := fn(tx, at)
		fnErr = err
		return r, err
	}, clock: s.now()}, &fnErr)
}

// syncRead runs the Lookup query q at a read index, asking again when
// dragonboat loses a read; *fnErr is the error q's own function returned.
func (s *Shard) syncRead(ctx context.Context, q any, fnErr *error) (any, error) {
	ctx, cancel := withDefaultDeadline(ctx)
	defer cancel()
	try := readTry
	for backoff := time.Millisecond; ; backoff = min(2*backoff, 100*time.Millisecond) {
		tctx, cancel := context.WithTimeout(ctx, try)
		v, err := s.host.nh.SyncRead(tctx, s.id, q)
		cancel()
		switch {
		case *fnErr != nil:
			return nil, *fnErr
		case err == nil:
			return v, nil
		case !retryable(err) && !lostRead(err):
			return nil, s.proposeError(err)
		}
		try = min(2*try, maxReadTry)
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		if ctx.Err() != nil {
			if retryable(err) {
				return nil, ErrNoLeader // the shard never had a leader to ask
			}
			return nil, fmt.Errorf("%w: %w", ErrTimeout, ctx.Err())
		}
	}
}

// The first and the longest deadline of one ReadIndex try.
const (
	readTry    = 250 * time.Millisecond
	maxReadTry = 2 * time.Second
)

// lostRead reports a read that ran out of its own try's time: ask again.
func lostRead(err error) bool {
	return errors.Is(err, dragonboat.ErrTimeout) || errors.Is(err, dragonboat.ErrTimeoutTooSmall) ||
		errors.Is(err, dragonboat.ErrInvalidDeadline) || errors.Is(err, context.DeadlineExceeded)
}

// LocalRead runs fn on this node's applied state, which may trail the
// leader but never holds anything uncommitted. It does not wait for the
// network.
func (s *Shard) LocalRead(fn func(*View) (any, error)) (any, error) {
	m := s.sm.Load()
	if m == nil {
		return nil, ErrClosed
	}
	return m.Lookup(fn)
}

// SafeTime returns the stamp of the last entry this node applied: every
// entry it has not applied yet will get a greater stamp.
func (s *Shard) SafeTime() int64 {
	if m := s.sm.Load(); m != nil {
		return m.stamp.Load()
	}
	return 0
}

// Applied returns the index of the last entry this node applied.
func (s *Shard) Applied() uint64 {
	if m := s.sm.Load(); m != nil {
		return m.applied.Load()
	}
	return 0
}

// Watch returns a channel closed when an entry that notified key (see
// Txn.Notify) is applied on this node, or when a snapshot replaced the
// state. Read the state after Watch, then wait: nothing is missed between.
func (s *Shard) Watch(key string) <-chan struct{} { return s.watch.watch(key) }

// leaderKey is the watch key woken when the shard's leader changes.
const leaderKey = "\x00leader"

// LeaderChanged returns a channel closed at this node's next news of a
// change of leader. Take it, then call Leader: no change is missed between.
func (s *Shard) LeaderChanged() <-chan struct{} { return s.watch.watch(leaderKey) }

// WaitApplied returns once this node has applied the entry at index (see
// Result.Index), or with ctx's error. A read on this node after it sees
// that entry's writes.
func (s *Shard) WaitApplied(ctx context.Context, index uint64) error {
	for {
		wake := s.watch.watch(appliedKey)
		if s.sm.Load() == nil {
			return ErrClosed
		}
		if s.Applied() >= index {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
		}
	}
}

// appliedKey is the watch key woken by every Update.
const appliedKey = "\x00applied"

// Leader returns the leader's node id, or 0 when none is known.
func (s *Shard) Leader() uint64 { return s.leader.Load() }

// startTicker proposes an empty command every interval in which this node
// was the leader and applied nothing new, so safeTime moves on an idle
// cluster.
func (s *Shard) startTicker(interval time.Duration) {
	s.tickMu.Lock()
	defer s.tickMu.Unlock()
	s.tickStop, s.tickDone = make(chan struct{}), make(chan struct{})
	go func(stop, done chan struct{}) {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		var last uint64
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			if applied := s.Applied(); applied != last || s.Leader() != s.host.cfg.NodeID {
				last = applied
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), interval)
			if _, err := s.Propose(ctx, Command{}); err != nil {
				s.log.Debug("tick not committed", "err", err)
			}
			cancel()
			last = s.Applied()
		}
	}(s.tickStop, s.tickDone)
}

func (s *Shard) stopTicker() {
	s.tickMu.Lock()
	defer s.tickMu.Unlock()
	if s.tickStop != nil {
		close(s.tickStop)
		<-s.tickDone
		s.tickStop = nil
	}
}
