// Command queen is the Queen broker: one node of a replicated message
// broker, configured from the environment (see package config).
//
//	queen                                   # one node, port 6632, data in ./queen-data
//	QUEEN_RAFT_NODE_ID=2 QUEEN_RAFT_MEMBERS=1=10.0.0.1:6633,2=10.0.0.2:6633,3=10.0.0.3:6633 queen
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/lmittmann/tint"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"golang.org/x/term"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/httpd/jwtauth"
	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/queen/config"
	"github.com/queen-mq/queen-go/queen/internal/broker"
	"github.com/queen-mq/queen-go/queen/internal/controlplane"
	"github.com/queen-mq/queen-go/queen/internal/ephemeral"
	"github.com/queen-mq/queen-go/queen/internal/retention"
	"github.com/queen-mq/queen-go/queen/internal/seal"
	"github.com/queen-mq/queen-go/queen/internal/sinks"
	"github.com/queen-mq/queen-go/queen/internal/timers"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/s3sink"
)

// version is the broker's version; release builds set it with -ldflags.
var version = "0.1.0-dev"

// shardID is the one raft shard that holds every queue and the KV today.
const shardID = 1

// The analytics routes' history (httpd.Sampler): a sample of the metrics
// every sampleEvery, the last hour kept, in memory.
const (
	sampleEvery = 10 * time.Second
	sampleKeep  = 360
)

func main() {
	// `queen healthcheck` (healthcheck.go) asks a running node's /health.
	runSubcommand(os.Args)

	cfg, err := config.Load(os.Getenv)
	exitRefused(err)
	sinkCfg, err := config.LoadS3(os.Getenv, cfg.NodeID, cfg.Hostname)
	exitRefused(err)
	log := newLogger(cfg)
	if err := run(cfg, sinkCfg, log); err != nil {
		line, code := bootFailure(cfg, err)
		log.Error(line, "component", "boot")
		os.Exit(code)
	}
}

// exitRefused prints a configuration's refusal, one line, and exits 1;
// nil goes on.
func exitRefused(err error) {
	if err == nil {
		return
	}
	var be *config.BootError
	if errors.As(err, &be) {
		fmt.Fprintln(os.Stderr, be.Line())
	} else {
		fmt.Fprintln(os.Stderr, "ERROR boot: FATAL: "+err.Error())
	}
	os.Exit(1)
}

func newLogger(cfg *config.Config) *slog.Logger {
	format := cfg.LogFormat
	if format == "auto" {
		format = "json"
		if term.IsTerminal(int(os.Stderr.Fd())) {
			format = "text"
		}
	}
	if format == "text" {
		return slog.New(tint.NewHandler(os.Stderr, &tint.Options{Level: cfg.LogLevel, TimeFormat: time.RFC3339Nano,
			NoColor: !term.IsTerminal(int(os.Stderr.Fd()))}))
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
}

// run starts the node and serves until SIGTERM or SIGINT, then drains.
func run(cfg *config.Config, sinkCfg *config.S3, log *slog.Logger) error {
	log.Info("queen starting", "version", version, "node", cfg.NodeID, "members", cfg.Members, "join", cfg.Join,
		"raftAddress", cfg.RaftAddress, "http", net.JoinHostPort(cfg.BindAddr, strconv.Itoa(cfg.Port)),
		"dataDir", cfg.DataDir, "rttMs", cfg.RTT.Milliseconds(), "electionRtt", cfg.ElectionRTT,
		"heartbeatRtt", cfg.HeartbeatRTT, "snapshotEntries", cfg.SnapshotEntries, "tenancyHeader", cfg.TenancyHeader,
		"requestTimeoutMs", cfg.RequestTimeout.Milliseconds(), "maxBodyBytes", cfg.MaxBodyBytes,
		"ephemeralMaxBytes", cfg.EphemeralMaxBytes, "raftLogDB", cfg.RaftLogDB, "diskHighPct", cfg.DiskHighPct, "diskLowPct", cfg.DiskLowPct)
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return fmt.Errorf("data directory QUEEN_DATA_DIR=%s: %w", cfg.DataDir, err)
	}
	// The store is read strictly before raft starts on it: a node whose
	// data fails a check refuses at once, naming the file (corrupt.go).
	vst, err := raftlog.VerifyStore(cfg.DataDir)
	if err != nil {
		return err
	}
	log.Info("store verified", "component", "boot", "tookMs", vst.Took.Milliseconds(), "tables", vst.Tables,
		"tableBytes", vst.TableBytes, "wals", vst.Logs, "walBytes", vst.LogBytes, "manifests", vst.Manifests,
		"segmentRecords", vst.Records, "segmentBytes", vst.SegmentBytes)
	members := cfg.Members
	if cfg.Join {
		members = nil
	}
	host, err := raftlog.NewHost(raftlog.Config{NodeID: cfg.NodeID, RaftAddress: cfg.RaftAddress,
		ListenAddress: cfg.RaftListenAddress, DataDir: cfg.DataDir,
		Members: members, Join: cfg.Join, RTT: cfg.RTT, ElectionRTT: cfg.ElectionRTT, HeartbeatRTT: cfg.HeartbeatRTT,
		SnapshotEntries: cfg.SnapshotEntries, CompactionOverhead: cfg.CompactionOverhead, TickInterval: cfg.TickInterval,
		ClockOffset: cfg.ClockOffset, LogDB: raftlog.LogDBSize(cfg.RaftLogDB),
		Disk:      raftlog.DiskConfig{HighPct: float64(cfg.DiskHighPct), LowPct: float64(cfg.DiskLowPct), Interval: cfg.DiskPoll},
		OnCorrupt: stopCorrupt(cfg, log),
		Logger:    log.With("component", "raft")})
	if err != nil {
		return err
	}
	defer host.Close()
	shard, err := host.StartShard(shardID, broker.Appliers())
	if err != nil {
		return err
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	kv := kvstore.New(shard)
	ctx, stopBackground := context.WithCancel(context.Background())
	defer stopBackground()
	ret := &retention.Job{Shard: shard, KV: kv, NodeID: cfg.NodeID, Interval: cfg.RetentionInterval, Log: log.With("component", "retention")}
	go ret.Run(ctx)
	firer := &timers.Firer{Shard: shard, Node: cfg.NodeID, Tick: cfg.TimerTick, Log: log.With("component", "timers"),
		Fired: timerMetrics(reg)}
	go firer.Run(ctx)
	var sealer *seal.Sealer
	if cfg.EncryptionKey != nil {
		if sealer, err = seal.New(cfg.EncryptionKey); err != nil {
			return err
		}
	}
	// Ephemeral queues live in this process's memory only: no raft, lost
	// when it stops (guarantees.md).
	eph, err := ephemeral.New(ephemeral.Options{MaxBytes: cfg.EphemeralMaxBytes, Logger: log.With("component", "ephemeral"),
		Registerer: reg})
	if err != nil {
		return err
	}
	go eph.Run(ctx, time.Second)
	b := broker.New(host, shard, broker.Options{Version: version, ReadyLag: cfg.ReadyLag, Skew: cfg.MaxClockSkew, Sealer: sealer,
		Ephemeral: eph, TraceRetention: cfg.TraceRetention})
	reg.MustRegister(b.StreamCollector(), b.DiskCollector(), b.RaftCollector(), b.QueueCollector(log.With("component", "metrics")))
	auth, err := authenticators(ctx, cfg.JWT, log)
	if err != nil {
		return err
	}
	samples := httpd.NewSampler(reg, sampleEvery, sampleKeep)
	ho := httpd.Options{MaxBodyBytes: cfg.MaxBodyBytes,
		TenancyHeader: cfg.TenancyHeader, Logger: log.With("component", "http"), Registry: reg, Version: version,
		TimerHorizon: cfg.TimerHorizon, DefaultSubscriptionMode: cfg.DefaultSubscriptionMode, Sampler: samples,
		Authenticators: auth, SkipPaths: cfg.JWT.SkipPaths}
	// The control plane (API.md §10), its rows in the replicated KV under
	// the system tenant, and the source of the control-plane tenants' sinks.
	var cpSinks sinks.Source
	if cfg.CPToken != "" {
		plane := controlplane.New(controlplane.Options{KV: kv, Sealer: sealer, TenancyHeader: cfg.TenancyHeader,
			S3Embedded: sinkCfg.Embedded, Queues: b})
		ho.ControlPlane, ho.CPToken, cpSinks = plane, cfg.CPToken, plane
		// Its API keys guard the data plane, ahead of a JWT: with the
		// control plane on, every data-plane request needs a credential.
		ho.Authenticators = append([]httpd.Authenticator{plane}, ho.Authenticators...)
		if !cfg.JWT.SkipPathsSet {
			// The metrics carry every tenant's id and queue names: with
			// tenants on one broker they are the operator's (the control
			// plane's token, or a JWT), not anyone's.
			ho.SkipPaths = []string{"/health", "/"}
		}
		log.Info("control plane on", "routes", "/api/cp/", "dataPlane", "API keys (qk_…) required")
	}
	// The S3 sinks: the default tenant's from QUEEN_S3_*, and one per
	// control-plane sink row. nil when QUEEN_S3_EMBEDDED is off.
	s3sinks, err := sinks.Start(ctx, sinks.Options{Env: sinkCfg, Source: cpSinks, Sealer: sealer, Shard: shard, KV: kv, Registry: reg,
		Logger: log, ClusterNodes: len(members), Crash: func(s3sink.CrashPoint) {
			// QUEEN_S3_CRASH_AT: die as a crash does, nothing flushed.
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}})
	if err != nil {
		return err
	}
	if s3sinks != nil {
		b.StatusExtra = func(ctx context.Context) map[string]any { return map[string]any{"s3": s3sinks.Status(ctx)} }
	}
	// Every route: a method the broker lacks fails this line's build.
	api := httpd.NewFull(b, ho)
	samples.Sample(time.Now()) // the history starts before the first request
	go samples.Run(ctx)
	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.BindAddr, strconv.Itoa(cfg.Port)))
	if err != nil {
		return fmt.Errorf("listen on PORT=%d QUEEN_BIND_ADDR=%s: %w", cfg.Port, cfg.BindAddr, err)
	}
	if err := servePprof(cfg.PprofAddr, log); err != nil {
		return err
	}
	srv := &http.Server{Handler: withDeadline(api, cfg.RequestTimeout), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.Info("queen listening", "http", ln.Addr().String())
	go logReady(ctx, shard, log, ln.Addr().String())

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	select {
	case err := <-served:
		return fmt.Errorf("http server: %w", err)
	case s := <-sig:
		log.Info("queen stopping", "signal", s.String(), "graceMs", cfg.ShutdownGrace.Milliseconds())
	}
	// Stop taking requests and finish the ones in flight; beside it, the
	// sink drains (it needs raft up: its KV writes). Then close raft.
	sinkDone := make(chan struct{})
	go func() { defer close(sinkDone); s3sinks.Drain() }()
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("requests still in flight at the end of the grace", "err", err)
	}
	<-sinkDone
	stopBackground()
	host.Close()
	log.Info("queen stopped")
	return nil
}

// authenticators are the HTTP API's credentials: the broker JWT's
// verifier when JWT_ENABLED, none otherwise (every route open). A JWKS
// is fetched until ctx ends.
func authenticators(ctx context.Context, c config.JWT, log *slog.Logger) ([]httpd.Authenticator, error) {
	if !c.Enabled {
		return nil, nil
	}
	vc := c.Verifier
	vc.Logger = log.With("component", "jwt")
	v, err := jwtauth.New(ctx, vc)
	if err != nil {
		return nil, fmt.Errorf("JWT_ENABLED=true: %w", err)
	}
	log.Info("jwt auth on", "component", "jwt", "algorithms", v.Methods(), "jwks", vc.JWKSURL, "issuer", vc.Issuer,
		"audience", vc.Audience, "clockSkewS", int(vc.Leeway.Seconds()), "skipPaths", c.SkipPaths)
	return []httpd.Authenticator{v}, nil
}

// timerMetrics counts what this node's fires did:
// queen_timers_fires_total{result="fired"|"failed"|"filed"} (filed: put in
// the queue's dead-letter group __timer__ after too many failures).
func timerMetrics(reg *prometheus.Registry) func(timers.FireAnswer) {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "queen_timers_fires_total",
		Help: "Timers this node's fire entries handled, by result: fired, failed (retried later), filed (to the DLQ group __timer__)."},
		[]string{"result"})
	reg.MustRegister(c)
	fired, failed, filed := c.WithLabelValues("fired"), c.WithLabelValues("failed"), c.WithLabelValues("filed")
	return func(a timers.FireAnswer) {
		fired.Add(float64(a.Fired))
		failed.Add(float64(a.Failed))
		filed.Add(float64(a.Filed))
	}
}

// logReady logs "queen ready" once the node knows its shard's leader:
// from then on it serves requests (a node without a leader answers 503).
func logReady(ctx context.Context, shard *raftlog.Shard, log *slog.Logger, addr string) {
	start := time.Now()
	for {
		changed := shard.LeaderChanged()
		if leader := shard.Leader(); leader != 0 {
			log.Info("queen ready", "http", addr, "leader", leader, "waitedMs", time.Since(start).Milliseconds())
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}
