package sinks

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/queen/config"
	"github.com/queen-mq/queen-go/queen/internal/seal"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/s3sink"
)

// The log keys of the supervisor's lines (the engines add sink and tenant).
const (
	logSource  = "source"
	logCluster = "cluster"
	logTenant  = "tenant"
	logErr     = "err"
)

// The defaults of Options.
const (
	DefaultInterval   = 5 * time.Second
	DefaultRestartMin = time.Second
	DefaultRestartMax = 30 * time.Second
)

// Options are a Supervisor's.
type Options struct {
	// Env is what the QUEEN_S3_* environment says (config.LoadS3):
	// Embedded off runs nothing; Sink, when set, is the default tenant's
	// sink; Node is shared by every sink of the node.
	Env *config.S3
	// Source lists the control-plane sinks; nil when the control plane is
	// off: the node runs the environment's sink alone.
	Source Source
	// Sealer opens the control-plane sinks' secrets (QUEEN_ENCRYPTION_KEY);
	// nil when the node has no key: every such sink is then an error.
	// It opens the payloads of encrypted queues too, for every sink.
	Sealer *seal.Sealer
	// Shard and KV are the broker the sinks run in (sinkadapter).
	Shard *raftlog.Shard
	KV    *kvstore.Store
	// Registry gets the sinks' one set of series; nil registers none.
	Registry prometheus.Registerer
	// Logger gets the lines, under target queen-s3; nil discards them.
	Logger *slog.Logger
	// ClusterNodes is how many raft members the node started with (0
	// when it joined a running cluster): s3sink.Deps.ClusterNodes.
	ClusterNodes int
	// Crash is called at QUEEN_S3_CRASH_AT's step (s3sink.Deps.Crash).
	Crash func(s3sink.CrashPoint)
	// Interval is how often the control plane's rows are read again
	// (DefaultInterval when 0).
	Interval time.Duration
	// RestartMin and RestartMax bound the backoff before an engine that
	// exited unasked starts again: RestartMin doubling to RestartMax
	// (DefaultRestartMin, DefaultRestartMax when 0).
	RestartMin, RestartMax time.Duration

	// wrap, in tests, wraps each engine the supervisor builds.
	wrap func(tenant string, e engine) engine
}

// Supervisor runs the node's sinks: the default tenant's from the
// environment and one per control-plane row, on one buffer budget and one
// set of metrics. See the package doc.
type Supervisor struct {
	o       Options
	log     *slog.Logger
	mem     *s3sink.Memory
	metrics *s3sink.Metrics
	// ctx is the engines' (Start's), cut at the end of Drain.
	ctx    context.Context
	cancel context.CancelFunc
	// stopping is closed when Drain starts; hard ends when its budget is
	// spent.
	stopping   chan struct{}
	hard       context.Context
	hardCancel context.CancelFunc
	loopDone   chan struct{}
	drainOnce  sync.Once

	mu    sync.Mutex
	units map[string]*runner // by key: envKey, cpKey(cluster)
	// INVARIANT: no runner is added once stopping is closed.
	cpErr *string // the last error reading the rows, nil once a read succeeds
	phase string  // starting, running, stopped
}

const envKey = "env"

func cpKey(cluster string) string { return "cp/" + cluster }

// Start starts the node's sinks. It returns nil and no error when
// QUEEN_S3_EMBEDDED is off: nothing runs, and a nil *Supervisor's methods
// do nothing. The sinks run until Drain, or until ctx ends.
func Start(ctx context.Context, o Options) (*Supervisor, error) {
	if o.Env == nil || !o.Env.Embedded {
		return nil, nil
	}
	if o.Shard == nil || o.KV == nil {
		return nil, errors.New("sinks: Options.Shard and Options.KV are required")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.RestartMin <= 0 {
		o.RestartMin = DefaultRestartMin
	}
	if o.RestartMax <= 0 {
		o.RestartMax = DefaultRestartMax
	}
	o.RestartMax = max(o.RestartMax, o.RestartMin)
	s := &Supervisor{o: o, log: o.Logger.With("target", "queen-s3"), mem: s3sink.NewMemory(o.Env.Node.MemoryBytes),
		metrics: s3sink.NewMetrics(o.Registry), stopping: make(chan struct{}), loopDone: make(chan struct{}),
		units: map[string]*runner{}, phase: phaseStarting}
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.hard, s.hardCancel = context.WithCancel(s.ctx)
	for _, w := range o.Env.Warnings {
		s.log.Warn(w)
	}
	s.log.Info(o.Env.LogLine())
	if o.Env.Sink != nil {
		r := s.newRunner(envKey, sourceEnv, "", s3sink.DefaultTenant)
		s.units[envKey] = r
		r.set(target{tenant: s3sink.DefaultTenant, settings: o.Env.Sink})
	}
	if o.Source == nil {
		s.phase = phaseRunning
		close(s.loopDone)
		if o.Env.Sink == nil {
			s.log.Info("no sink runs on this node: QUEEN_S3_QUEUES is unset and the control plane is off")
		}
		return s, nil
	}
	go s.loop()
	return s, nil
}

func (s *Supervisor) now() time.Time { return time.Now() }

func (s *Supervisor) isStopping() bool {
	select {
	case <-s.stopping:
		return true
	default:
		return false
	}
}

// newEngine builds an engine: s3sink's, wrapped in tests.
func (s *Supervisor) newEngine(tenant string, set s3sink.Settings, node s3sink.NodeSettings, d s3sink.Deps) (engine, error) {
	e, err := s3sink.NewEngine(tenant, set, node, d)
	if err != nil {
		return nil, err
	}
	if s.o.wrap != nil {
		return s.o.wrap(tenant, e), nil
	}
	return e, nil
}

// loop reads the control plane's rows every Interval and reconciles.
func (s *Supervisor) loop() {
	defer close(s.loopDone)
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	go func() {
		select {
		case <-s.stopping:
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		s.reconcile(ctx)
		select {
		case <-ctx.Done():
			return
		case <-time.After(s.o.Interval):
		}
	}
}

// reconcile reads the rows once and gives every unit whose row moved its
// new target. A read that fails changes nothing but controlPlane.error.
func (s *Supervisor) reconcile(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, max(s.o.Interval, DefaultInterval))
	units, err := s.o.Source.Units(rctx)
	cancel()
	if ctx.Err() != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		msg := err.Error()
		if s.cpErr == nil || *s.cpErr != msg {
			s.log.Warn("reading the control plane's sinks failed; the sinks running carry on", logErr, msg)
		}
		s.cpErr = &msg
		return
	}
	if s.cpErr != nil {
		s.log.Info("the control plane's sinks are read again")
	}
	s.cpErr, s.phase = nil, phaseRunning
	if s.isStopping() {
		return
	}
	gate := gates(units)
	seen := map[string]bool{}
	for _, u := range units {
		key := cpKey(u.Cluster)
		if seen[key] {
			continue // one row per cluster: a second one is the source's mistake
		}
		seen[key] = true
		st := stampOf(u, gate[u.Cluster])
		r := s.units[key]
		if s.tenantBusy(key, u.Tenant) {
			// Another unit's engine of this tenant still runs (a row
			// that went as this one came, draining): one tenant, one
			// engine on a node, so this one waits for the next round.
			continue
		}
		if r == nil {
			r = s.newRunner(key, sourceCP, u.Cluster, u.Tenant)
			s.units[key] = r
		} else if r.hasStamp && r.stamp == st && !r.gone {
			continue
		}
		r.stamp, r.hasStamp, r.gone = st, true, false
		r.set(plan(u, gate[u.Cluster], s.o.Sealer))
	}
	for key, r := range s.units {
		if key == envKey || seen[key] {
			continue
		}
		if r.gone {
			continue // told to leave already
		}
		r.gone = true
		r.set(target{tenant: r.tenantNow(), why: "its row is gone", removed: true})
	}
}

// tenantBusy reports whether a unit other than key runs an engine of
// tenant.
func (s *Supervisor) tenantBusy(key, tenant string) bool {
	for k, r := range s.units {
		if k != key && r.tenantNow() == tenant && r.running() != nil {
			return true
		}
	}
	return false
}

func (r *runner) tenantNow() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tenant
}

// Drain stops every sink within QUEEN_S3_SHUTDOWN_GRACE_MS, one budget
// for all, counted from the call: each queue finishes the window in its
// commit sequence, commits the one it fills when worth it, and gives its
// lease back. What is still running when the budget is spent is cut (the
// next owners redo from the intents). A second call does nothing.
func (s *Supervisor) Drain() {
	if s == nil {
		return
	}
	s.drainOnce.Do(func() {
		grace := s.o.Env.Node.ShutdownGrace
		timer := time.AfterFunc(grace, s.hardCancel)
		defer timer.Stop()
		s.mu.Lock()
		close(s.stopping)
		runners := make([]*runner, 0, len(s.units))
		for _, r := range s.units {
			runners = append(runners, r)
		}
		s.mu.Unlock()
		s.log.Info("sinks draining", "sinks", len(runners), "graceMs", grace.Milliseconds())
		select {
		case <-s.loopDone:
		case <-s.hard.Done():
		}
		for _, r := range runners {
			select {
			case <-r.done:
			case <-s.hard.Done():
			}
		}
		if s.hard.Err() != nil {
			s.log.Warn("the sinks' drain ran out of QUEEN_S3_SHUTDOWN_GRACE_MS; the next owners redo from the intents")
		}
		s.mu.Lock()
		s.phase = phaseStopped
		s.mu.Unlock()
		s.hardCancel()
		s.cancel()
	})
}
