package sinks

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/queen-mq/queen-go/queen/internal/sinkadapter"
	"github.com/queen-mq/queen-go/s3sink"
	"github.com/queen-mq/queen-go/s3sink/s3store"
)

// The phases of a unit (SINK-CONFIG.md §6). A runner keeps running while
// its engine is up; the status shows starting until the bucket answered
// the engine's probe.
const (
	phaseStarting = "starting"
	phaseRunning  = "running"
	phaseBackoff  = "backoff"
	phaseStopped  = "stopped"
	phaseError    = "error"
)

// The sources of a unit.
const (
	sourceEnv = "env"
	sourceCP  = "cp"
)

// engine is what a runner needs of an s3sink.Engine.
type engine interface {
	Run(ctx context.Context)
	Drain(ctx context.Context)
	Report(ctx context.Context) s3sink.Report
}

var _ engine = (*s3sink.Engine)(nil)

// The engine writes through s3store: its Store is the engine's ObjectStore.
var _ s3sink.ObjectStore = (*s3store.Store)(nil)

// runner is one unit: the goroutine that starts, drains, rebuilds and
// restarts its sink's engine, one engine at a time.
type runner struct {
	s       *Supervisor
	key     string
	source  string
	cluster string // "" for the environment's sink
	log     *slog.Logger
	wake    chan struct{} // cap 1: a new target is waiting
	done    chan struct{} // closed when the loop returns

	// stamp is the stamp of the last target reconcile set (hasStamp), and
	// gone says its row is gone: reconcile's alone, under s.mu.
	stamp    stamp
	hasStamp bool
	gone     bool

	mu       sync.Mutex
	next     *target // set by reconcile, taken by the loop
	tenant   string
	phase    string
	err      *string
	restarts int
	lastExit *s3sink.ErrorEntry
	backoff  time.Duration // the wait before the next start, while in backoff
	// INVARIANT: cur is the engine running or draining, nil when none; a
	// unit runs one engine at a time, so the node never runs a tenant's
	// queues under two incarnations of its lease identity at once.
	cur *engineRun
}

// engineRun is one life of an engine.
type engineRun struct {
	eng     engine
	cancel  context.CancelFunc
	started time.Time
	done    chan struct{} // closed when Run returned
	// exit is why Run returned, read once done is closed. The runner
	// drains an engine and waits for it in one step, so a Run it sees
	// return by itself was never asked to.
	exit string
}

func (s *Supervisor) newRunner(key, source, cluster, tenant string) *runner {
	l := s.log.With(logSource, source)
	if cluster != "" {
		l = l.With(logCluster, cluster)
	}
	r := &runner{s: s, key: key, source: source, cluster: cluster, log: l, wake: make(chan struct{}, 1),
		done: make(chan struct{}), tenant: tenant, phase: phaseStarting}
	go r.loop()
	return r
}

// set gives the runner its next target; a later one replaces one not yet
// taken.
func (r *runner) set(t target) {
	r.mu.Lock()
	r.next = &t
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *runner) take() *target {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.next
	r.next = nil
	return t
}

func (r *runner) setPhase(phase string, err string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.phase, r.err = phase, nil
	if err != "" {
		r.err = &err
	}
}

// loop is the runner's life: it takes targets, and restarts an engine
// that exits when nothing asked it to, after a backoff (RestartMin
// doubling to RestartMax; back to RestartMin after a run that lasted
// RestartMax).
func (r *runner) loop() {
	defer close(r.done)
	var (
		want  *target
		retry <-chan time.Time
		wait  = r.s.o.RestartMin
	)
	for {
		var exited <-chan struct{}
		if cur := r.running(); cur != nil {
			exited = cur.done
		}
		select {
		case <-r.s.stopping:
			r.stop(r.s.hard, "the node stops")
			r.setPhase(phaseStopped, "")
			return
		case <-r.s.ctx.Done():
			r.stop(r.s.ctx, "the node's context ended")
			r.setPhase(phaseStopped, "")
			return
		case <-r.wake:
			t := r.take()
			if t == nil {
				continue
			}
			retry, want, wait = nil, t, r.s.o.RestartMin
			if r.running() != nil {
				why := "its row changed"
				if t.settings == nil {
					why = t.why
				}
				ctx, cancel := r.drainCtx()
				r.stop(ctx, why)
				cancel()
			}
			r.mu.Lock()
			r.tenant = t.tenant
			r.mu.Unlock()
			switch {
			case t.refusal != "":
				r.log.Error("sink refused", logErr, t.refusal)
				r.setPhase(phaseError, t.refusal)
			case t.settings == nil:
				r.log.Info("sink stopped", "why", t.why)
				r.setPhase(phaseStopped, "")
				if t.removed && r.leave() {
					return
				}
			case r.s.isStopping():
				// The stopping case ends the loop at the next turn.
			default:
				r.start(t)
			}
		case <-exited:
			cur := r.running()
			if r.s.ctx.Err() != nil { // the node's context ended: no crash
				r.stop(r.s.ctx, "the node's context ended")
				r.setPhase(phaseStopped, "")
				return
			}
			if time.Since(cur.started) >= r.s.o.RestartMax {
				wait = r.s.o.RestartMin
			}
			r.reap(cur, wait)
			r.log.Error("sink exited unexpectedly; restarting after a backoff", logErr, cur.exit, "backoffMs", wait.Milliseconds())
			retry = time.After(wait)
			wait = min(2*wait, r.s.o.RestartMax)
		case <-retry:
			retry = nil
			r.mu.Lock()
			r.restarts++
			r.backoff = 0
			r.mu.Unlock()
			r.start(want)
		}
	}
}

func (r *runner) running() *engineRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur
}

// drainCtx is the budget of a drain for a rebuild or a stop: the node's
// QUEEN_S3_SHUTDOWN_GRACE_MS, cut short when the node's own drain runs
// out.
func (r *runner) drainCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.s.hard, r.s.o.Env.Node.ShutdownGrace)
}

// start builds and runs an engine for t. A sink that cannot be built
// (the store or the engine refuses its settings) is the unit's error.
func (r *runner) start(t *target) {
	set := *t.settings
	s := r.s
	if r.source == sourceCP {
		r.log.Info("sink starting", logTenant, t.tenant, "settings", set, "node", s.o.Env.Node)
	}
	tenant := t.tenant
	store, err := s3store.New(s.ctx, storeConfig(set), s3store.Options{Metrics: func(op string, status int) {
		s.metrics.S3Request(tenant, op, status)
	}})
	var eng engine
	if err == nil {
		eng, err = s.newEngine(tenant, set, s.o.Env.Node, s3sink.Deps{
			Log: sinkadapter.Log{Shard: s.o.Shard, Open: s.o.Sealer.Open}, KV: sinkadapter.KV{Store: s.o.KV}, Store: store,
			Memory: s.mem, Metrics: s.metrics, Logger: r.log, Crash: s.o.Crash, ClusterNodes: s.o.ClusterNodes,
		})
	}
	if err != nil {
		msg := fmt.Sprintf("%s cannot start: %v", r.name(tenant), err)
		r.log.Error("sink refused", logErr, msg)
		r.setPhase(phaseError, msg)
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	run := &engineRun{eng: eng, cancel: cancel, started: s.now(), done: make(chan struct{})}
	r.mu.Lock()
	r.cur, r.phase, r.err = run, phaseRunning, nil
	r.mu.Unlock()
	go func() {
		defer close(run.done)
		defer func() {
			if p := recover(); p != nil {
				run.exit = fmt.Sprintf("panic: %v", p)
			}
		}()
		run.exit = "the engine returned on its own"
		eng.Run(ctx)
	}()
}

func (r *runner) name(tenant string) string {
	if r.source == sourceEnv {
		return "the default tenant's sink (QUEEN_S3_*)"
	}
	return unitName(Unit{Cluster: r.cluster, Tenant: tenant})
}

// stop drains the running engine within ctx, then ends what is left of it.
// The unit runs nothing afterwards.
func (r *runner) stop(ctx context.Context, why string) {
	cur := r.running()
	if cur == nil {
		return
	}
	r.log.Info("sink draining", "why", why)
	cur.eng.Drain(ctx)
	select {
	case <-cur.done:
	case <-ctx.Done():
	}
	cur.cancel()
	<-cur.done
	r.mu.Lock()
	r.cur, r.phase = nil, phaseStopped
	r.mu.Unlock()
}

// reap ends what is left of an engine whose Run returned unasked, and
// the unit backs off for wait. The engine leaves the status first (a Run
// that panicked may have left its lock taken); then its queues, which may
// still run, stop with its context, and Drain waits for them, within the
// drain budget.
func (r *runner) reap(cur *engineRun, wait time.Duration) {
	r.mu.Lock()
	r.cur = nil
	r.lastExit = &s3sink.ErrorEntry{At: r.s.now().UTC().Format(isoMicros), Message: cur.exit}
	r.backoff, r.phase = wait, phaseBackoff
	r.mu.Unlock()
	cur.cancel()
	ctx, cancel := r.drainCtx()
	defer cancel()
	drained := make(chan struct{})
	go func() { defer close(drained); cur.eng.Drain(ctx) }()
	select {
	case <-drained:
	case <-ctx.Done():
	}
}

// isoMicros is how the status writes a wall-clock time.
const isoMicros = "2006-01-02T15:04:05.000000Z"

// leave removes a runner whose row is gone, unless a new target came
// meanwhile (the row is back): then it stays.
func (r *runner) leave() bool {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.next != nil {
		return false
	}
	if r.s.units[r.key] == r {
		delete(r.s.units, r.key)
	}
	return true
}

// storeConfig is the bucket part of a sink's settings, as s3store takes it.
func storeConfig(s s3sink.Settings) s3store.Config {
	return s3store.Config{Endpoint: s.Endpoint, Region: s.Region, Bucket: s.Bucket, AccessKey: s.AccessKey,
		SecretKey: s.SecretKey, PathStyle: s.PathStyle, SSE: s.SSE, SSEKMSKeyID: s.SSEKMSKeyID}
}
