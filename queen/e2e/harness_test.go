// Package e2e runs the real queen binary: nodes started as processes on
// 127.0.0.1 free ports, stopped by their pid with SIGTERM or SIGKILL.
package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/httpd/client"
	"github.com/queen-mq/queen-go/testkit/freeport"
)

// queenBin and lakeBin are the binaries built once by TestMain: the broker
// and the lake's verifier (tools/cmd/queen-lake).
var queenBin, lakeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "queen-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	queenBin, lakeBin = filepath.Join(dir, "queen"), filepath.Join(dir, "queen-lake")
	for bin, pkg := range map[string]string{queenBin: "github.com/queen-mq/queen-go/queen/cmd/queen",
		lakeBin: "github.com/queen-mq/queen-go/tools/cmd/queen-lake"} {
		build := exec.Command("go", "build", "-o", bin, pkg)
		build.Stdout, build.Stderr = os.Stdout, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build", pkg+":", err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// node is one queen process and what it needs to start again.
type node struct {
	t       testing.TB
	id      int
	env     []string
	dataDir string
	url     string
	logPath string
	child
}

// cluster makes n nodes (not started) that know each other.
func cluster(t testing.TB, n int, extra ...string) []*node {
	dir := t.TempDir()
	raft := make([]string, n)
	var members []string
	for i := range raft {
		raft[i] = fmt.Sprintf("127.0.0.1:%d", freeport.Take(t))
		members = append(members, fmt.Sprintf("%d=%s", i+1, raft[i]))
	}
	nodes := make([]*node, n)
	for i := range nodes {
		port := freeport.Take(t)
		nd := &node{t: t, id: i + 1, dataDir: filepath.Join(dir, fmt.Sprint(i+1)), url: fmt.Sprintf("http://127.0.0.1:%d", port),
			logPath: filepath.Join(dir, fmt.Sprintf("node%d.log", i+1))}
		nd.env = append(os.Environ(), "PORT="+fmt.Sprint(port), "QUEEN_BIND_ADDR=127.0.0.1", "QUEEN_DATA_DIR="+nd.dataDir,
			fmt.Sprintf("QUEEN_RAFT_NODE_ID=%d", i+1), "QUEEN_RAFT_MEMBERS="+strings.Join(members, ","),
			"QUEEN_RAFT_RTT_MS=10", "QUEEN_LOG_FORMAT=json", "QUEEN_RAFT_TICK_MS=200", "QUEEN_STMT_TIMEOUT_MS=5000")
		nd.env = append(nd.env, extra...)
		nodes[i] = nd
		t.Cleanup(nd.kill)
	}
	return nodes
}

// start starts the process; its output goes to its log file.
func (n *node) start() {
	n.t.Helper()
	logf, err := os.OpenFile(n.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		n.t.Fatal(err)
	}
	cmd := exec.Command(queenBin)
	cmd.Env = n.env
	if err := n.spawn(cmd, logf); err != nil {
		n.t.Fatal(err)
	}
}

// signal sends sig to the process by its pid and waits for it to exit.
func (n *node) signal(sig syscall.Signal) *os.ProcessState {
	n.t.Helper()
	if n.cmd == nil {
		return nil
	}
	if !n.signalWait(n.t, sig, 60*time.Second) {
		n.t.Fatalf("node %d did not exit within 60 s of signal %d\n%s", n.id, sig, n.log())
	}
	return n.state
}

func (n *node) log() string {
	b, _ := os.ReadFile(n.logPath)
	return string(b)
}

// health returns the node's /health status and body.
func (n *node) health() (int, map[string]any) {
	resp, raw, err := n.send(context.Background(), http.MethodGet, "/health", nil, nil)
	if err != nil {
		return 0, nil
	}
	var body map[string]any
	json.Unmarshal(raw, &body)
	return resp.StatusCode, body
}

// startAll starts every node, then waits until each is ready: they start
// together, so a cluster can elect its leader while the later ones boot.
func startAll(nodes []*node) {
	for _, n := range nodes {
		n.start()
	}
	for _, n := range nodes {
		n.waitReady()
	}
}

// startedCluster skips t under -short with skip (what the test runs, and
// "run without -short"), else makes n nodes with extra and starts them.
func startedCluster(t *testing.T, n int, skip string, extra ...string) []*node {
	t.Helper()
	if testing.Short() {
		t.Skip(skip)
	}
	nodes := cluster(t, n, extra...)
	startAll(nodes)
	return nodes
}

// waitReady polls /health until it answers 200: the process offers no
// other signal that its raft shard has a leader and has caught up.
func (n *node) waitReady() {
	n.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if code, _ := n.health(); code == http.StatusOK {
			return
		}
		select {
		case <-n.exited:
			n.t.Fatalf("node %d exited before it was ready:\n%s", n.id, n.log())
		case <-time.After(50 * time.Millisecond):
		}
	}
	n.t.Fatalf("node %d not ready within 60 s:\n%s", n.id, n.log())
}

// role is the node's raft role from /health, or "" when it does not answer.
func (n *node) role() string {
	_, body := n.health()
	raft, _ := body["raft"].(map[string]any)
	role, _ := raft["role"].(string)
	return role
}

// call posts body (or GETs when body is nil) and decodes a JSON answer.
func (n *node) call(ctx context.Context, method, path string, body any, out any) (int, error) {
	return n.api().Call(ctx, method, path, body, out)
}

// send sends one request with header and a JSON body (nil: none; []byte:
// sent as it is) and returns the answer with its body read; resp is nil
// when no answer came.
func (n *node) send(ctx context.Context, method, path string, body any, header http.Header) (resp *http.Response, raw []byte, err error) {
	return n.api().Do(ctx, method, path, body, header)
}

// exposition is the node's /metrics/prometheus; no answer, or one that
// is not 200, ends the test.
func (n *node) exposition(t testing.TB) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, body, err := n.send(ctx, http.MethodGet, "/metrics/prometheus", nil, nil)
	if err != nil {
		t.Fatalf("node %d metrics: %v", n.id, err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics/prometheus: %d", resp.StatusCode)
	}
	return body
}

// api is the node's HTTP API, as a client without credentials calls it.
func (n *node) api() *client.Client { return &client.Client{Base: n.url} }

// leaderOf waits until one node says it leads and returns it and the others.
func leaderOf(t *testing.T, nodes []*node) (*node, []*node) {
	t.Helper()
	var leader *node
	var followers []*node
	waitFor(t, "one node to say it leads", 30*time.Second, func() bool {
		leader, followers = nil, nil
		for _, n := range nodes {
			if n.cmd != nil && n.role() == "leader" {
				if leader != nil {
					return false
				}
				leader = n
			} else {
				followers = append(followers, n)
			}
		}
		return leader != nil
	})
	return leader, followers
}

// configure sets a queue's options. A 503 (no leader yet, or a proposal an
// election dropped: its outcome unknown) is asked again until ctx ends:
// configure is idempotent, so a retry is what a client does.
func (n *node) configure(ctx context.Context, queue string, options map[string]any) error {
	body := map[string]any{"queue": queue, "options": options}
	for {
		code, err := n.call(ctx, http.MethodPost, "/api/v1/configure", body, nil)
		if code != http.StatusServiceUnavailable || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// single starts one node with extra settings and waits until it is ready.
func single(t *testing.T, extra ...string) *node {
	n := cluster(t, 1, extra...)[0]
	n.start()
	n.waitReady()
	return n
}

// deadline is a context that ends after d, or when the test ends.
func deadline(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
