package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/httpd/jwtauth/jwttest"
	"github.com/queen-mq/queen-go/s3sink/s3test"
	"github.com/queen-mq/queen-go/tools/chaos"
)

// The end-to-end tests run queenctl's run function against real queen
// processes: TestMain builds the broker once (or takes $QUEENCTL_QUEEN,
// a queen binary built already); each test starts its own node on free
// ports of 127.0.0.1 with its data in t.TempDir(), through tools/chaos's
// StartCluster, and stops it by its pid at its cleanup.

// queenBin is the broker binary TestMain built.
var queenBin string

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	if p := os.Getenv("QUEENCTL_QUEEN"); p != "" {
		queenBin = p
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "queenctl-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	queenBin = filepath.Join(dir, "queen")
	build := exec.Command("go", "build", "-o", queenBin, "./cmd/queen")
	build.Dir = filepath.Join("..", "..", "..", "queen")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build queen: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// startNode starts one queen node with env (NAME=value) and returns its URL.
func startNode(t *testing.T, env ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c, err := chaos.StartCluster(ctx, queenBin, t.TempDir(), 1, chaos.ClusterOptions{}, env...)
	if err != nil {
		t.Fatalf("start queen: %v", err)
	}
	t.Cleanup(c.Stop)
	return c.Nodes[0].URL
}

// ctl runs queenctl with args against url (QUEEN_URL) and env, stdin in.
type result struct {
	code           int
	stdout, stderr string
}

func ctl(t *testing.T, env map[string]string, stdin string, args ...string) result {
	t.Helper()
	var out, errOut strings.Builder
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut, func(k string) string { return env[k] })
	return result{code, out.String(), errOut.String()}
}

// ok fails the test unless r exited 0.
func (r result) ok(t *testing.T, what string) result {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", what, r.code, r.stdout, r.stderr)
	}
	return r
}

// decodeJSON decodes r's stdout, which must be one JSON document.
func (r result) decodeJSON(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		t.Fatalf("--json output does not parse: %v\n%s", err, r.stdout)
	}
}

// row is the row of table out whose first cells are the given ones, split
// into its cells; nil when there is none.
func row(out string, first ...string) []string {
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) >= len(first) && strings.Join(f[:len(first)], " ") == strings.Join(first, " ") {
			return f
		}
	}
	return nil
}

// column is the index of header in the first header line of table out
// that has it (headers hold spaces, "LAST WRITE": cells are split on two
// spaces or more).
func column(t *testing.T, out, header string) int {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		var cols []string
		for _, c := range strings.Split(l, "  ") {
			if c = strings.TrimSpace(c); c != "" {
				cols = append(cols, c)
			}
		}
		for i, c := range cols {
			if c == header {
				return i
			}
		}
	}
	t.Fatalf("no column %q in\n%s", header, out)
	return -1
}

func TestE2EQueuesPushPopAck(t *testing.T) {
	env := map[string]string{"QUEEN_URL": startNode(t)}

	r := ctl(t, env, "", "status").ok(t, "status")
	if v := row(r.stdout, "status"); v == nil || v[1] != "healthy" {
		t.Fatalf("status: no healthy line:\n%s", r.stdout)
	}
	if v := row(r.stdout, "raft.role"); v == nil || v[1] != "leader" {
		t.Fatalf("status: no raft.role leader line:\n%s", r.stdout)
	}
	var st struct {
		Health struct {
			Status string `json:"status"`
		} `json:"health"`
		Status struct {
			Node int `json:"node"`
		} `json:"status"`
	}
	ctl(t, env, "", "status", "--json").ok(t, "status --json").decodeJSON(t, &st)
	if st.Health.Status != "healthy" || st.Status.Node != 1 {
		t.Fatalf("status --json: %+v", st)
	}

	// Three from stdin (a blank line skipped), one from the argument.
	r = ctl(t, env, "{\"n\":1}\n\n{\"n\":2}\n{\"n\":3}\n", "push", "orders", "--partition", "p1", "-").ok(t, "push stdin")
	if n := strings.Count(r.stdout, "queued"); n != 3 {
		t.Fatalf("push from stdin: %d queued, want 3:\n%s", n, r.stdout)
	}
	var pushed []struct {
		Index  int    `json:"index"`
		Status string `json:"status"`
		TxnID  string `json:"transaction_id"`
	}
	ctl(t, env, "", "push", "orders", `{"n":4}`, "--txn", "tx-4", "--partition", "p2", "--json").ok(t, "push").decodeJSON(t, &pushed)
	if len(pushed) != 1 || pushed[0].Status != "queued" || pushed[0].TxnID != "tx-4" {
		t.Fatalf("push --json: %+v", pushed)
	}

	r = ctl(t, env, "", "queues").ok(t, "queues")
	q := row(r.stdout, "orders")
	if q == nil || q[column(t, r.stdout, "PENDING")] != "4" || q[column(t, r.stdout, "PARTITIONS")] != "2" {
		t.Fatalf("queues: want orders with 2 partitions, 4 pending:\n%s", r.stdout)
	}
	r = ctl(t, env, "", "queues", "orders").ok(t, "queues orders")
	if p := row(r.stdout, "p1"); p == nil || p[column(t, r.stdout, "PENDING")] != "3" {
		t.Fatalf("queues orders: want p1 with 3 pending:\n%s", r.stdout)
	}

	// Pop two of p1 as group billing, ack the second (an offset commit:
	// both settle).
	var popped popAnswer
	ctl(t, env, "", "pop", "orders", "--group", "billing", "--mode", "all", "--partition", "p1", "--batch", "2", "--json").
		ok(t, "pop").decodeJSON(t, &popped)
	if len(popped.Messages) != 2 {
		t.Fatalf("pop: %d messages, want 2: %+v", len(popped.Messages), popped)
	}
	m := popped.Messages[1]
	if m.LeaseID == "" || m.PartitionID == "" || m.TransactionID == "" {
		t.Fatalf("pop: a message without lease, partition or transaction id: %+v", m)
	}
	r = ctl(t, env, "", "ack", m.TransactionID, m.PartitionID, "--lease", m.LeaseID, "--group", "billing").ok(t, "ack")
	if a := row(r.stdout, "0", m.TransactionID); a == nil || a[2] != "true" {
		t.Fatalf("ack: want success true:\n%s", r.stdout)
	}

	// groups lag: billing has p1's third and p2's one still to read.
	r = ctl(t, env, "", "groups", "lag", "--min-lag", "2").ok(t, "groups lag")
	if g := row(r.stdout, "billing", "orders"); g == nil || g[column(t, r.stdout, "LAG")] != "2" {
		t.Fatalf("groups lag: want billing on orders with lag 2:\n%s", r.stdout)
	}
	r = ctl(t, env, "", "groups", "lag", "--min-lag", "3").ok(t, "groups lag 3")
	if row(r.stdout, "billing") != nil {
		t.Fatalf("groups lag --min-lag 3 lists billing, whose lag is 2:\n%s", r.stdout)
	}

	// pop --ack takes the rest and acks it; then nothing lags.
	r = ctl(t, env, "", "pop", "orders", "--group", "billing", "--batch", "10", "--partitions", "2", "--ack").ok(t, "pop --ack")
	if !strings.Contains(r.stdout, "LEASE RELEASED") {
		t.Fatalf("pop --ack printed no ack table:\n%s", r.stdout)
	}
	r = ctl(t, env, "", "groups", "lag").ok(t, "groups lag after")
	if row(r.stdout, "billing") != nil {
		t.Fatalf("groups lag after acking everything lists billing:\n%s", r.stdout)
	}
	// Seek back to the start: the four are to read again.
	r = ctl(t, env, "", "groups", "seek", "billing", "orders", "--to", "2000-01-01T00:00:00Z").ok(t, "seek")
	if g := row(r.stdout, "billing", "orders"); g == nil || g[2] != "2" {
		t.Fatalf("seek: want 2 partitions moved:\n%s", r.stdout)
	}
	r = ctl(t, env, "", "groups", "--json").ok(t, "groups --json")
	var gs struct {
		ConsumerGroups []groupSummary `json:"consumerGroups"`
	}
	r.decodeJSON(t, &gs)
	if len(gs.ConsumerGroups) != 1 || gs.ConsumerGroups[0].Name != "billing" || gs.ConsumerGroups[0].Lag != 4 {
		t.Fatalf("groups after seek: %+v; want billing with lag 4", gs)
	}

	// Nothing to pop: exit 0, no row, {"messages":[]} with --json.
	var none popAnswer
	ctl(t, env, "", "pop", "empty-queue", "--json").ok(t, "pop empty").decodeJSON(t, &none)
	if len(none.Messages) != 0 {
		t.Fatalf("pop of an empty queue: %+v", none)
	}

	// A refusal is one line, exit 1.
	r = ctl(t, env, "", "queues", "no-such-queue")
	if r.code != 1 || r.stderr != "queenctl: GET /api/v1/status/queues/no-such-queue: 404 queue_not_found: queue \"no-such-queue\" not found\n" {
		t.Fatalf("queues of a missing queue: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestE2EDLQAndKV(t *testing.T) {
	env := map[string]string{"QUEEN_URL": startNode(t)}
	ctl(t, env, "", "push", "jobs", `{"job":1}`, "--txn", "job-1").ok(t, "push")
	var p popAnswer
	ctl(t, env, "", "pop", "jobs", "--json").ok(t, "pop").decodeJSON(t, &p)
	if len(p.Messages) != 1 {
		t.Fatalf("pop: %+v", p)
	}
	m := p.Messages[0]
	r := ctl(t, env, "", "ack", m.TransactionID, m.PartitionID, "--lease", m.LeaseID, "--status", "dlq", "--error", "boom").ok(t, "ack dlq")
	if a := row(r.stdout, "0", "job-1"); a == nil || a[column(t, r.stdout, "DLQ")] != "true" {
		t.Fatalf("ack --status dlq: want dlq true:\n%s", r.stdout)
	}
	r = ctl(t, env, "", "dlq", "--queue", "jobs").ok(t, "dlq")
	if !strings.Contains(r.stdout, "job-1") || !strings.Contains(r.stdout, "boom") {
		t.Fatalf("dlq: want the letter of job-1 with its error:\n%s", r.stdout)
	}
	var letters struct {
		Messages []deadLetter `json:"messages"`
		Total    int          `json:"total"`
	}
	ctl(t, env, "", "dlq", "--queue", "jobs", "--json").ok(t, "dlq --json").decodeJSON(t, &letters)
	if letters.Total != 1 || len(letters.Messages) != 1 {
		t.Fatalf("dlq --json: %+v", letters)
	}
	id := letters.Messages[0].ID
	r = ctl(t, env, "", "dlq", "replay", id).ok(t, "replay")
	if v := row(r.stdout, id); v == nil || v[1] != "moved" {
		t.Fatalf("replay: want moved:\n%s", r.stdout)
	}
	// The copy is back in the queue, as dlq:<id>.
	ctl(t, env, "", "pop", "jobs", "--json").ok(t, "pop the copy").decodeJSON(t, &p)
	if len(p.Messages) != 1 || p.Messages[0].TransactionID != "dlq:"+id {
		t.Fatalf("pop after replay: %+v; want the copy dlq:%s", p.Messages, id)
	}
	r = ctl(t, env, "", "dlq", "replay", id)
	if r.code != 1 || !strings.HasPrefix(r.stderr, "queenctl: POST /api/v1/dlq/"+id+"/replay: 404 gone: ") {
		t.Fatalf("second replay: exit %d, stderr %q", r.code, r.stderr)
	}

	r = ctl(t, env, "", "kv", "put", "cfg", "flags/x", `{"on":true}`, "--ttl", "forever").ok(t, "kv put")
	if v := row(r.stdout, "flags/x"); v == nil || v[1] != "true" {
		t.Fatalf("kv put: want applied:\n%s", r.stdout)
	}
	ctl(t, env, "", "kv", "put", "cfg", "short", `3`, "--ttl", "60").ok(t, "kv put ttl")
	var g kvGetAnswer
	ctl(t, env, "", "kv", "get", "cfg", "flags/x", "--json").ok(t, "kv get").decodeJSON(t, &g)
	if !g.Found || string(g.Value) != `{"on":true}` || g.ExpiresAt != nil {
		t.Fatalf("kv get: %+v", g)
	}
	r = ctl(t, env, "", "kv", "get", "cfg", "short").ok(t, "kv get short")
	if v := row(r.stdout, "expires"); v == nil || v[1] == "-" {
		t.Fatalf("kv get of a key with a ttl: no expiry:\n%s", r.stdout)
	}
	r = ctl(t, env, "", "kv", "get", "cfg", "absent")
	if r.code != 1 || !strings.Contains(r.stderr, "not found") {
		t.Fatalf("kv get of an absent key: exit %d, stderr %q", r.code, r.stderr)
	}
	r = ctl(t, env, "", "kv", "put", "Bad-NS", "k", "1", "--ttl", "5")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "queenctl: PUT /api/v1/kv/Bad-NS/k: 400 kv_bad_namespace: ") {
		t.Fatalf("kv put to a bad namespace: exit %d, stderr %q", r.code, r.stderr)
	}
}

// jwtSecret is the HS256 secret of TestE2EJWT's node.
const jwtSecret = "queenctl-e2e-secret-of-at-least-32-bytes"

func TestE2EJWT(t *testing.T) {
	url := startNode(t, "JWT_ENABLED=true", "JWT_ALGORITHM=HS256", "JWT_SECRET="+jwtSecret)
	env := map[string]string{"QUEEN_URL": url}
	r := ctl(t, env, "", "queues")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "queenctl: GET /api/v1/status/queues: 401 unauthorized: ") || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("queues without a token: exit %d, stderr %q; want one 401 line", r.code, r.stderr)
	}
	now := time.Now().Unix()
	admin := jwttest.HS256(t, jwtSecret, map[string]any{"sub": "ops", "role": "admin", "iat": now, "exp": now + 3600})
	env["QUEEN_TOKEN"] = admin
	ctl(t, env, "", "push", "secured", "1").ok(t, "push with the token")
	r = ctl(t, env, "", "queues").ok(t, "queues with the token")
	if row(r.stdout, "secured") == nil {
		t.Fatalf("queues with the token: no queue secured:\n%s", r.stdout)
	}
	// --token beats $QUEEN_TOKEN.
	r = ctl(t, env, "", "--token", "not-a-jwt", "queues")
	if r.code != 1 || !strings.Contains(r.stderr, ": 401 unauthorized: ") {
		t.Fatalf("queues with a bad --token: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestE2ELake runs the broker with its S3 sink writing to versitygw,
// then lists and verifies the lake with queenctl lake, against the
// broker's log too.
func TestE2ELake(t *testing.T) {
	srv := s3test.Versitygw(t)
	set := srv.Bucket(t, "lake")
	url := startNode(t, "QUEEN_S3_EMBEDDED=true", "QUEEN_S3_QUEUES=events", "QUEEN_S3_ENDPOINT="+set.Endpoint,
		"QUEEN_S3_REGION="+set.Region, "QUEEN_S3_PATH_STYLE=true", "QUEEN_S3_BUCKET="+set.Bucket,
		"QUEEN_S3_ACCESS_KEY="+set.AccessKey, "QUEEN_S3_SECRET_KEY="+set.SecretKey, "QUEEN_S3_START=earliest",
		"QUEEN_S3_MAX_WINDOW_MS=1000", "QUEEN_S3_DISCOVERY_INTERVAL_MS=200", "QUEEN_S3_SAFE_GUARD_MS=500",
		"QUEEN_S3_LEASE_TTL_MS=3000")
	env := map[string]string{"QUEEN_URL": url, "QUEEN_S3_ACCESS_KEY": set.AccessKey, "QUEEN_S3_SECRET_KEY": set.SecretKey}
	var lines strings.Builder
	const n = 20
	for i := range n {
		fmt.Fprintf(&lines, "{\"i\":%d}\n", i)
	}
	ctl(t, env, lines.String(), "push", "events", "--partition", "a").ok(t, "push")
	flags := []string{"-endpoint", set.Endpoint, "-bucket", set.Bucket, "-path-style", "-queue", "events"}

	// The sink commits windows of a second: poll lake ls until its total
	// holds the n records.
	deadline := time.Now().Add(60 * time.Second)
	var r result
	for {
		r = ctl(t, env, "", append([]string{"lake", "ls"}, flags...)...)
		if tot := row(r.stdout, "total"); r.code == 0 && tot != nil && len(tot) > 3 && tot[3] == fmt.Sprint(n) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("lake ls: the %d records not in the lake within 60 s; last: exit %d\n%s\n%s", n, r.code, r.stdout, r.stderr)
		}
		time.Sleep(200 * time.Millisecond) // the sink's window is a second: poll, with the deadline above
	}
	if !strings.HasPrefix(r.stdout, "K ") {
		t.Fatalf("lake ls: no table:\n%s", r.stdout)
	}
	r = ctl(t, env, "", append([]string{"lake", "verify", "-broker", url}, flags...)...).ok(t, "lake verify")
	if !strings.HasSuffix(r.stdout, "\nOK\n") || !strings.Contains(r.stdout, fmt.Sprintf("records %d", n)) {
		t.Fatalf("lake verify:\n%s", r.stdout)
	}
	if r.stderr != "" {
		t.Fatalf("lake verify wrote to stderr, which is no terminal: %q", r.stderr)
	}
	// A usage error of the lake flags is exit 2, named.
	r = ctl(t, env, "", "lake", "ls", "-queue", "events", "-bucket", "b")
	if r.code != 2 || !strings.Contains(r.stderr, "endpoint") {
		t.Fatalf("lake ls without -endpoint: exit %d, stderr %q", r.code, r.stderr)
	}
}
