package sinks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/queen/config"
	"github.com/queen-mq/queen-go/queen/internal/seal"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
	"github.com/queen-mq/queen-go/s3sink"
	"github.com/queen-mq/queen-go/s3sink/kvdoc"
	"github.com/queen-mq/queen-go/s3sink/s3test"
	"github.com/queen-mq/queen-go/testkit/syncbuf"
)

// Two tenants of the control plane's, and the queue every test mirrors.
const (
	tenantA = "0a000000-0000-4000-8000-00000000000a"
	tenantB = "0b000000-0000-4000-8000-00000000000b"
	queue   = "orders"
)

// fakeSource is a control plane whose rows the test sets.
type fakeSource struct {
	mu    sync.Mutex
	units []Unit
	err   error
}

func (f *fakeSource) Units(ctx context.Context) ([]Unit, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	return append([]Unit(nil), f.units...), nil
}

// set replaces the rows.
func (f *fakeSource) set(units ...Unit) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.units, f.err = units, nil
}

// fail makes the reads fail with err.
func (f *fakeSource) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

// broker is one raft node with the KV: what the sinks run in.
type broker struct {
	shard *raftlog.Shard
	kv    *kvstore.Store
}

func newBroker(t *testing.T) *broker {
	c := raftlogtest.New(t, 1, kvstore.Appliers())
	c.StartAll()
	_, shard := c.Leader()
	return &broker{shard: shard, kv: kvstore.New(shard)}
}

// push appends records to a tenant's queue, one partition.
func (b *broker) push(t *testing.T, tenant string, payloads ...string) {
	t.Helper()
	op := queuelog.PushOp{Tenant: tenant}
	for i, p := range payloads {
		op.Items = append(op.Items, queuelog.PushItem{Queue: queue, Partition: "p", TransactionID: fmt.Sprint(time.Now().UnixNano(), i), Payload: []byte(p)})
	}
	if _, err := b.shard.Propose(raftlogtest.Ctx(t, 10*time.Second), raftlog.Command{Clock: time.Now().UnixMicro(), Ops: []raftlog.Op{op.Op()}}); err != nil {
		t.Fatal(err)
	}
}

// world is what a test's sinks run against: a broker, an S3 server with
// the bucket "lake", and the node's key.
type world struct {
	t   *testing.T
	b   *broker
	srv *s3test.Server
	key *seal.Sealer
}

func newWorld(t *testing.T, srv *s3test.Server) *world {
	srv.Bucket(t, "lake")
	return &world{t: t, b: newBroker(t), srv: srv, key: newSealer(t, 1)}
}

// row is an enabled and runnable row of tenant, into the bucket "lake",
// with the server's secret sealed under the node's key.
func (w *world) row(cluster, tenant string, at int64) Unit {
	return Unit{Cluster: cluster, Tenant: tenant, Enabled: true, Runnable: true, Config: doc(w.srv, "lake"),
		SecretSealed: sealed(w.t, w.key, w.srv.Secret), UpdatedAtUs: at}
}

// start starts a supervisor of the node's key on w's broker, reading src.
func (w *world) start(src *fakeSource, o Options) *rig {
	w.t.Helper()
	o.Sealer = w.key
	return startRig(w.t, w.b, src, o)
}

// startWithEnv pushes one record to the queue of tenantA and one to the
// default tenant's, and starts a supervisor reading src whose environment
// runs the default tenant's sink into "lake" as well.
func (w *world) startWithEnv(src *fakeSource) *rig {
	w.t.Helper()
	w.b.push(w.t, tenantA, `{"n":1}`)
	w.b.push(w.t, s3sink.DefaultTenant, `{"n":1}`)
	return w.start(src, Options{Env: env(w.t, envSink(w.srv, "lake")...)})
}

// lease reads the lease row of the test's queue in a tenant's KV.
func (b *broker) lease(t *testing.T, tenant string) (string, bool) {
	t.Helper()
	a, err := b.kv.Do(raftlogtest.Ctx(t, 10*time.Second), tenant, []kvstore.Op{{Op: kvstore.OpGetMany, NS: kvdoc.Namespace,
		Keys: []string{"s3:default:" + queue + ":lease"}}})
	if err != nil {
		t.Fatal(err)
	}
	if rows := a.Results[0].Rows; len(rows) == 1 {
		return string(rows[0].Value), true
	}
	return "", false
}

// env is the QUEEN_S3_* environment of a test node: short intervals, and
// the variables given as name, value pairs.
func env(t *testing.T, vars ...string) *config.S3 {
	t.Helper()
	m := map[string]string{"QUEEN_S3_EMBEDDED": "true", "QUEEN_S3_DISCOVERY_INTERVAL_MS": "50", "QUEEN_S3_SAFE_GUARD_MS": "0",
		"QUEEN_S3_LEASE_TTL_MS": "1000", "QUEEN_S3_SHUTDOWN_GRACE_MS": "10000", "QUEEN_S3_MEMORY_MB": "64"}
	for i := 0; i+1 < len(vars); i += 2 {
		m[vars[i]] = vars[i+1]
	}
	c, err := config.LoadS3(func(k string) string { return m[k] }, 1, "test")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// envSink is the environment of a default-tenant sink into bucket.
func envSink(srv *s3test.Server, bucket string) []string {
	return []string{"QUEEN_S3_QUEUES", queue, "QUEEN_S3_ENDPOINT", srv.URL, "QUEEN_S3_REGION", srv.Region,
		"QUEEN_S3_BUCKET", bucket, "QUEEN_S3_ACCESS_KEY", srv.Access, "QUEEN_S3_SECRET_KEY", srv.Secret,
		"QUEEN_S3_PATH_STYLE", "true", "QUEEN_S3_START", "earliest", "QUEEN_S3_MAX_WINDOW_MS", "100"}
}

// doc is a control-plane settings document for bucket on srv, with
// fields added or replaced by name, value pairs.
func doc(srv *s3test.Server, bucket string, fields ...any) json.RawMessage {
	m := map[string]any{"queues": queue, "endpoint": srv.URL, "region": srv.Region, "bucket": bucket,
		"accessKey": srv.Access, "pathStyle": true, "start": "earliest", "maxWindowMs": 100}
	for i := 0; i+1 < len(fields); i += 2 {
		m[fields[i].(string)] = fields[i+1]
	}
	b, _ := json.Marshal(m)
	return b
}

func newSealer(t *testing.T, fill byte) *seal.Sealer {
	t.Helper()
	s, err := seal.New(bytes.Repeat([]byte{fill}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sealed(t *testing.T, s *seal.Sealer, secret string) []byte {
	t.Helper()
	b, err := s.Seal([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rig is a supervisor under test, with what it runs against.
type rig struct {
	t    *testing.T
	b    *broker
	src  *fakeSource
	sup  *Supervisor
	logs *syncbuf.Buffer
	reg  *prometheus.Registry
}

// startRig starts a supervisor on o, filling in the broker, the logger (a
// JSON one at debug, into a buffer and the test's log), the registry and
// a short interval where o leaves them unset.
func startRig(t *testing.T, b *broker, src *fakeSource, o Options) *rig {
	t.Helper()
	r := &rig{t: t, b: b, src: src, logs: &syncbuf.Buffer{}, reg: prometheus.NewRegistry()}
	o.Shard, o.KV, o.Registry, o.ClusterNodes = b.shard, b.kv, r.reg, 1
	if src != nil {
		o.Source = src
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewJSONHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if o.Interval == 0 {
		o.Interval = 20 * time.Millisecond
	}
	sup, err := Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	r.sup = sup
	t.Cleanup(func() {
		sup.Drain()
		if t.Failed() {
			t.Logf("supervisor log:\n%s", r.logs.String())
		}
	})
	return r
}

// status is the s3 block as GET /status answers it (through JSON).
func (r *rig) status() map[string]any {
	r.t.Helper()
	b, err := json.Marshal(r.sup.Status(context.Background()))
	if err != nil {
		r.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		r.t.Fatal(err)
	}
	return m
}

// unit is the status entry of a source's sink (cluster "" for env), nil
// when there is none.
func (r *rig) unit(cluster string) map[string]any {
	r.t.Helper()
	sinks, _ := r.status()["sinks"].([]any)
	for _, s := range sinks {
		u := s.(map[string]any)
		if c, _ := u["cluster"].(string); c == cluster {
			return u
		}
	}
	return nil
}

// waitUnit waits until cond holds of a unit's entry (nil when absent).
func (r *rig) waitUnit(cluster, what string, cond func(u map[string]any) bool) map[string]any {
	r.t.Helper()
	var u map[string]any
	waitFor(r.t, what, func() bool { u = r.unit(cluster); return cond(u) })
	return u
}

// waitCommitted waits until a unit's first queue has committed a window.
func (r *rig) waitCommitted(cluster, what string) map[string]any {
	r.t.Helper()
	return r.waitUnit(cluster, what, func(u map[string]any) bool { return committed(u) >= 1 })
}

// committed reports a unit's first queue's last committed window.
func committed(u map[string]any) float64 {
	qs, _ := u["queues"].([]any)
	if len(qs) == 0 {
		return 0
	}
	k, _ := qs[0].(map[string]any)["k"].(float64)
	return k
}

func phase(u map[string]any) string {
	p, _ := u["phase"].(string)
	return p
}

// waitFor polls cond until it holds, for 30 s at most.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("%s: not within 30 s", what)
}

// metrics is the registry's exposition.
func (r *rig) metrics() string {
	w := httptest.NewRecorder()
	promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{}).ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	return w.Body.String()
}

// keys lists a bucket's keys under prefix.
func keys(t *testing.T, srv *s3test.Server, bucket, prefix string) []string {
	t.Helper()
	out, err := srv.Client().ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	if err != nil {
		t.Fatal(err)
	}
	var ks []string
	for _, o := range out.Contents {
		ks = append(ks, *o.Key)
	}
	return ks
}

// lakeOf is the key prefix of a tenant's data objects.
func lakeOf(tenant string) string { return "queen/tenant=" + tenant + "/queue=" + queue + "/" }

func contains(v any, sub string) bool {
	s, _ := v.(string)
	return strings.Contains(s, sub)
}
