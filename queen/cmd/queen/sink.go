package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/queen/internal/seal"
	"github.com/queen-mq/queen-go/queen/internal/sinkadapter"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/s3sink"
	"github.com/queen-mq/queen-go/s3sink/s3store"
)

// sinkRunner is the embedded S3 sink of the default tenant (issue 5 runs
// the environment's sink only; control-plane sinks come later).
type sinkRunner struct {
	cfg     *s3sink.EnvConfig
	engine  *s3sink.Engine
	started time.Time
	done    chan struct{}
	log     *slog.Logger
}

// startSink starts the sink when QUEEN_S3_EMBEDDED=true and QUEEN_S3_QUEUES
// is set; it returns nil otherwise. A bucket that does not answer does not
// stop the boot: the engine probes it with backoff, its queues waiting.
//
// clusterNodes is the number of raft members the node was started with (0
// for a node that joined a running cluster): one lets the sink claim at
// once, with no peers to wait for.
func startSink(ctx context.Context, cfg *s3sink.EnvConfig, shard *raftlog.Shard, kv *kvstore.Store, sealer *seal.Sealer,
	reg *prometheus.Registry, log *slog.Logger, clusterNodes int) (*sinkRunner, error) {
	if !cfg.Embedded {
		return nil, nil
	}
	sl := log.With("target", "queen-s3")
	for _, w := range cfg.Warnings {
		sl.Warn(w)
	}
	if cfg.Sink == nil {
		sl.Info("sink on, no default-tenant sink (QUEEN_S3_QUEUES is unset)")
		return nil, nil
	}
	sl.Info(cfg.LogLine())
	metrics := s3sink.NewMetrics(reg)
	store, err := s3store.New(ctx, *cfg.Sink, s3store.Options{Metrics: func(op string, status int) {
		metrics.S3Request(s3sink.DefaultTenant, op, status)
	}})
	if err != nil {
		return nil, err
	}
	e, err := s3sink.NewEngine(s3sink.DefaultTenant, *cfg.Sink, cfg.Node, s3sink.Deps{
		Log: sinkadapter.Log{Shard: shard, Open: sealer.Open}, KV: sinkadapter.KV{Store: kv}, Store: store, Metrics: metrics, Logger: sl,
		ClusterNodes: clusterNodes,
		Crash: func(p s3sink.CrashPoint) {
			// QUEEN_S3_CRASH_AT: die as a crash does, nothing flushed.
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		},
	})
	if err != nil {
		return nil, err
	}
	r := &sinkRunner{cfg: cfg, engine: e, started: time.Now(), done: make(chan struct{}), log: sl}
	go func() { defer close(r.done); e.Run(ctx) }()
	return r, nil
}

// drain stops the sink within QUEEN_S3_SHUTDOWN_GRACE_MS.
func (r *sinkRunner) drain() {
	if r == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.cfg.Node.ShutdownGrace)
	defer cancel()
	r.engine.Drain(ctx)
	select {
	case <-r.done:
	case <-ctx.Done():
	}
}

// status is the s3 block of GET /status (SINK-CONFIG.md §6).
func (r *sinkRunner) status(ctx context.Context) map[string]any {
	rep := r.engine.Report(ctx)
	unit := map[string]any{}
	b, _ := json.Marshal(rep)
	json.Unmarshal(b, &unit)
	for k, v := range map[string]any{"tenant": s3sink.DefaultTenant, "source": "env", "cluster": nil, "phase": "running",
		"error": nil, "restarts": 0, "lastExit": nil, "uptimeMs": time.Since(r.started).Milliseconds(), "backoffMs": 0} {
		unit[k] = v
	}
	return map[string]any{"mode": "in-process", "phase": "running", "threads": r.cfg.Node.Threads,
		"controlPlane": map[string]any{"error": nil}, "sinks": []any{unit}}
}
