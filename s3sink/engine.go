package s3sink

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/queen-mq/queen-go/lakeformat"
)

// Clock is the wall clock the engine paces itself by (never the broker's:
// windows follow stamps). Tests give a fake.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Deps are what an engine runs against.
type Deps struct {
	Log   Log
	KV    KV
	Store ObjectStore
	// Memory is the node's buffer budget, shared by every sink of the
	// node; nil gives the engine a budget of its own.
	Memory *Memory
	// Metrics, nil for none.
	Metrics *Metrics
	Logger  *slog.Logger
	Clock   Clock // nil: the real one
	// Crash is called at the commit step named by NodeSettings.CrashAt;
	// the broker exits there (QUEEN_S3_CRASH_AT, for tests).
	Crash func(CrashPoint)
	// ClusterNodes is how many broker nodes may run the sink, when known
	// (0: unknown). The first claims wait until the presence rows of that
	// many nodes are counted (at most a TTL); with one, there is no wait.
	ClusterNodes int
}

// Engine is one sink: the tenant's queues mirrored into one bucket. Every
// node runs the same engine for every queue; leases decide who writes.
type Engine struct {
	tenant      string
	set         Settings
	node        NodeSettings
	logs        Log
	kv          KV
	store       ObjectStore
	keys        lakeformat.Keys
	mem         *Memory
	metrics     *Metrics
	log         *slog.Logger
	clock       Clock
	crash       func(CrashPoint)
	incarnation string // new per process life
	// jitter is the random part of a queue's claim delay (below 200 ms);
	// tests make it a function of the queue for repeatable runs.
	jitter  func(queue string) time.Duration
	drainCh chan struct{}
	bucket  bucketState
	// settled is closed once the node has counted the nodes around it, so
	// that the first claims keep to the share (settles): scripts that are
	// not about placement settle at the first beat (settleAfter 0).
	settled      chan struct{}
	settleAfter  time.Duration
	clusterNodes int
	// claimMu makes the node's claims one at a time, each judged against
	// the share with the claims before it counted.
	claimMu chanMutex

	mu       sync.Mutex
	tasks    map[string]*queueTask
	nodes    int // nodes running the sink, from the presence rows
	queues   []string
	giving   string // the queue being given back, or ""
	overFrom time.Time
	wg       sync.WaitGroup
}

// NewEngine makes the sink of tenant with its settings. Run starts it.
// Settings that set.Validate or node.Validate refuses are refused with
// that error (a *ConfigError naming the variable), before anything is
// built: settings made by hand get the checks ParseEnv's had.
func NewEngine(tenant string, set Settings, node NodeSettings, d Deps) (*Engine, error) {
	if err := set.Validate(); err != nil {
		return nil, err
	}
	if err := node.Validate(); err != nil {
		return nil, err
	}
	return newEngine(tenant, set, node, d)
}

// newEngine builds the engine without checking the settings' ranges. Only
// the engine scripts call it, for budgets no boot accepts (a 400-byte
// target, a 600-byte memory) so that a few small records close windows.
func newEngine(tenant string, set Settings, node NodeSettings, d Deps) (*Engine, error) {
	keys, err := lakeformat.NewKeys(set.Prefix)
	if err != nil {
		return nil, err
	}
	if d.Memory == nil {
		d.Memory = NewMemory(node.MemoryBytes)
	}
	if d.Metrics == nil {
		d.Metrics = NewMetrics(nil)
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.Clock == nil {
		d.Clock = realClock{}
	}
	inc := make([]byte, 8)
	rand.Read(inc)
	kv := boundedKV{kv: d.KV, timeout: CallTimeout(node.LeaseTTL), clock: d.Clock, metrics: d.Metrics, tenant: tenant}
	return &Engine{tenant: tenant, set: set, node: node, logs: d.Log, kv: kv, store: d.Store, keys: keys, mem: d.Memory,
		metrics: d.Metrics, log: d.Logger.With("sink", set.Sink, "tenant", tenant), clock: d.Clock, crash: d.Crash,
		incarnation: hex.EncodeToString(inc), jitter: randomJitter, drainCh: make(chan struct{}), settled: make(chan struct{}),
		settleAfter: node.LeaseTTL / 3, clusterNodes: d.ClusterNodes, claimMu: newChanMutex(), tasks: map[string]*queueTask{}, nodes: 1}, nil
}

func (e *Engine) now() time.Time { return e.clock.Now() }

// crashAt aborts the broker at step p when QUEEN_S3_CRASH_AT names it.
func (e *Engine) crashAt(p CrashPoint) {
	if e.node.CrashAt == p && e.crash != nil {
		e.log.Error("QUEEN_S3_CRASH_AT: aborting", "at", string(p))
		e.crash(p)
	}
}

// Run runs the sink until ctx ends or Drain finishes: presence beats,
// queue discovery, one supervisor per queue, and the gauges of the queues
// it runs, set at every tick.
func (e *Engine) Run(ctx context.Context) {
	e.log.Info("sink running", "queues", e.queueSpec(), "bucket", e.set.Bucket, "prefix", e.set.Prefix,
		"format", e.set.Format.String(), "codec", e.set.Codec().String(), "layout", e.set.Layout.String())
	if !e.probe(ctx) {
		return
	}
	var nextBeat, firstBeat time.Time
	settled := false
	for tick := 0; ; tick++ {
		if now := e.now(); !now.Before(nextBeat) {
			// A beat that fails is tried again at the next tick.
			if e.beat(ctx) {
				if firstBeat.IsZero() {
					firstBeat = now
				}
				if !settled && e.settles(now.Sub(firstBeat)) {
					close(e.settled)
					settled = true
				}
				nextBeat = now.Add(max(e.node.LeaseTTL/3, e.node.DiscoveryInterval))
				if !settled {
					nextBeat = now // count again at the next tick
				}
			}
		}
		if tick%10 == 0 || !e.set.AllQueues {
			e.listQueues(ctx, tick)
		}
		e.balance()
		e.Report(ctx) // the gauges move while a queue is stuck too
		select {
		case <-ctx.Done():
			e.wg.Wait()
			return
		case <-e.drainCh:
			e.wg.Wait()
			e.leavePresence()
			return
		case <-e.clock.After(e.node.DiscoveryInterval):
		}
	}
}

// settles reports whether a beat since the first one, counting the nodes
// it did, is the one after which the node claims: when it counted every
// node of the cluster (ClusterNodes), at once; when the count is short of
// it, after a TTL, by when a node that was starting has beaten and the row
// of one that is down has run out; when the size is unknown, a third of
// the TTL, one beat of every node started with this one.
func (e *Engine) settles(since time.Duration) bool {
	e.mu.Lock()
	n := e.nodes
	e.mu.Unlock()
	switch {
	case e.settleAfter == 0:
		return true
	case e.clusterNodes > 0 && n >= e.clusterNodes:
		return true
	case e.clusterNodes > 0:
		return since >= e.node.LeaseTTL
	}
	return since >= e.settleAfter
}

func (e *Engine) queueSpec() string {
	if e.set.AllQueues {
		return "*"
	}
	return fmt.Sprint(e.set.Queues)
}

// listQueues starts a supervisor for every queue it has not seen yet.
func (e *Engine) listQueues(ctx context.Context, tick int) {
	names := e.set.Queues
	if e.set.AllQueues {
		var err error
		if names, err = e.logs.Queues(ctx, e.tenant); err != nil {
			e.log.Warn("list queues", "err", err)
			return
		}
	}
	var fresh []*queueTask
	e.mu.Lock()
	for _, n := range names {
		if _, ok := e.tasks[n]; ok {
			continue
		}
		q := newQueueTask(e, n)
		e.tasks[n] = q
		e.queues = append(e.queues, n)
		fresh = append(fresh, q)
	}
	slices.Sort(e.queues)
	e.mu.Unlock()
	mine := e.leftByEarlierLife(ctx, fresh)
	// Drain closes drainCh under e.mu and then waits for wg: an Add made
	// under e.mu before the close is one the wait sees, and none comes
	// after it.
	e.mu.Lock()
	defer e.mu.Unlock()
	select {
	case <-e.drainCh:
		return
	default:
	}
	for _, q := range fresh {
		e.wg.Add(1)
		go func() { defer e.wg.Done(); e.supervise(ctx, q, mine[q.queue]) }()
	}
}

// Drain stops the sink: every queue finishes the window in its commit
// sequence, commits the one it fills when worth it, and gives its lease
// back. It returns when all are done or ctx ends.
func (e *Engine) Drain(ctx context.Context) {
	e.mu.Lock()
	select {
	case <-e.drainCh:
	default:
		close(e.drainCh)
	}
	e.mu.Unlock()
	done := make(chan struct{})
	go func() { e.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		e.log.Warn("drain cut short; the next owners redo from the intents")
	}
}
