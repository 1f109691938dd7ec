// Package inproc runs one broker node inside the calling process, wired as
// cmd/queen wires it (raftlog, kvstore, consume, the broker, httpd), for
// tests that drive the real HTTP API without starting a process: the
// hostile-input regression tests and the fuzz target over the whole
// handler. It listens for raft on a free 127.0.0.1 port and keeps its data
// in a directory of its own.
package inproc

import (
	"bytes"
	"context"
	"fmt"
	"github.com/prometheus/client_golang/prometheus"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/queen/internal/broker"
	"github.com/queen-mq/queen-go/queen/internal/controlplane"
	"github.com/queen-mq/queen-go/queen/internal/retention"
	"github.com/queen-mq/queen-go/queen/internal/seal"
	"github.com/queen-mq/queen-go/queen/internal/timers"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/testkit/freeport"
)

// Node is one single-node broker.
type Node struct {
	// Dir holds the node's data (raft log and state machine).
	Dir       string
	Host      *raftlog.Host
	Shard     *raftlog.Shard
	KV        *kvstore.Store
	Broker    *broker.Broker
	Retention *retention.Job
	// CP is the control plane (nil without Options.CPToken).
	CP *controlplane.Plane
	// Handler is the HTTP API, as cmd/queen serves it.
	Handler http.Handler
	tmp     string
	stop    context.CancelFunc // the timers' firer
}

// Options are a Node's settings.
type Options struct {
	// Dir is the data directory; "" makes a temporary one that Close
	// removes.
	Dir string
	// TenancyHeader is QUEEN_TENANCY_HEADER.
	TenancyHeader bool
	// Logger gets the node's logs; nil discards them.
	Logger *slog.Logger
	// CPToken is QUEEN_PROXY_CP_TOKEN: set, the node serves the control
	// plane (Node.CP) under /api/cp/.
	CPToken string
	// S3Embedded is QUEEN_S3_EMBEDDED, as the control plane sees it (no
	// sink runs in an inproc node).
	S3Embedded bool
	// Sealer is the QUEEN_ENCRYPTION_KEY's (nil: none).
	Sealer *seal.Sealer
	// DiskUsage, when set, turns the storage gate on (marks 85 and 80,
	// polled every 5 ms) and reads the disk's use from it, in percent:
	// tests fill no real disk.
	DiskUsage func(dir string) (float64, error)
}

// Start starts a node and waits until it leads its shard.
func Start(o Options) (*Node, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	dir := o.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "queen-inproc")
		if err != nil {
			return nil, err
		}
		dir = d
	}
	addr, err := freeport.Addr()
	if err != nil {
		return nil, err
	}
	var disk raftlog.DiskConfig
	if o.DiskUsage != nil {
		disk = raftlog.DiskConfig{HighPct: 85, LowPct: 80, Interval: 5 * time.Millisecond, Usage: o.DiskUsage}
	}
	host, err := raftlog.NewHost(raftlog.Config{NodeID: 1, RaftAddress: addr, DataDir: filepath.Join(dir, "raft"),
		Members: map[uint64]string{1: addr}, RTT: 5 * time.Millisecond, Logger: o.Logger, Disk: disk})
	if err != nil {
		return nil, err
	}
	shard, err := host.StartShard(1, broker.Appliers())
	if err != nil {
		host.Close()
		return nil, err
	}
	n := &Node{Dir: dir, Host: host, Shard: shard, KV: kvstore.New(shard)}
	if o.Dir == "" {
		n.tmp = dir
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for shard.Leader() != 1 {
		select {
		case <-ctx.Done():
			n.Close()
			return nil, fmt.Errorf("inproc: no leader: %w", ctx.Err())
		case <-shard.LeaderChanged():
		}
	}
	n.Retention = &retention.Job{Shard: shard, KV: n.KV, NodeID: 1, Interval: time.Hour, Log: o.Logger}
	n.Broker = broker.New(host, shard, broker.Options{Version: "inproc", ReadyLag: 2 * time.Second, Skew: 500 * time.Millisecond})
	reg := prometheus.NewRegistry()
	reg.MustRegister(n.Broker.StreamCollector(), n.Broker.DiskCollector())
	ho := httpd.Options{TenancyHeader: o.TenancyHeader, Logger: o.Logger, Registry: reg}
	if o.CPToken != "" {
		n.CP = controlplane.New(controlplane.Options{KV: n.KV, Sealer: o.Sealer, TenancyHeader: o.TenancyHeader,
			S3Embedded: o.S3Embedded, Queues: n.Broker})
		ho.ControlPlane, ho.CPToken = n.CP, o.CPToken
		ho.Authenticators = []httpd.Authenticator{n.CP} // as cmd/queen: API keys guard the data plane
		ho.SkipPaths = []string{"/health", "/metrics/prometheus", "/metrics", "/"}
	}
	n.Handler = httpd.New(n.Broker, ho)
	fctx, stop := context.WithCancel(context.Background())
	n.stop = stop
	go (&timers.Firer{Shard: shard, Node: 1, Tick: 10 * time.Millisecond, Log: o.Logger}).Run(fctx)
	return n, nil
}

// Close stops the node, and removes its data when Start made the directory.
func (n *Node) Close() {
	if n.stop != nil {
		n.stop()
	}
	n.Host.Close()
	if n.tmp != "" {
		os.RemoveAll(n.tmp)
	}
}

// Do serves one request and returns the recorded answer. header holds
// name, value pairs.
func (n *Node) Do(ctx context.Context, method, target string, body []byte, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequestWithContext(ctx, method, target, bytes.NewReader(body))
	if len(body) > 0 {
		r.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	n.Handler.ServeHTTP(w, r)
	return w
}
