package chaos

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/queen-mq/queen-go/httpd/client"
	"github.com/queen-mq/queen-go/tools/chaos/lossyfs"
	"github.com/queen-mq/queen-go/tools/chaos/netproxy"
)

// Bin is the queen binary the cluster runs.
func (c *Cluster) Bin() string { return c.bin }

// Cluster is n real queen processes whose raft links run through a
// netproxy.Mesh: each node advertises its proxy and listens behind it,
// so a test can cut, delay and heal any directed link.
type Cluster struct {
	Nodes []*Node
	Mesh  *netproxy.Mesh
	bin   string
	dir   string
}

// DataDir is node n's data directory (QUEEN_DATA_DIR).
func (c *Cluster) DataDir(n *Node) string { return filepath.Join(c.dir, fmt.Sprint(n.ID)) }

// Node is one queen process of a Cluster.
type Node struct {
	// ID is the node's slot, 1..n: its place in the mesh and its data
	// directory. Replica is its raft id: ID until the node is replaced
	// by a fresh id (fault_bitflip.go).
	ID      int
	Replica int
	URL     string
	LogPath string
	DataDir string
	env     []string
	// fs serves the node's data directory when the cluster was started
	// for power losses (ClusterOptions.PowerLoss); nil otherwise.
	fs *lossyfs.FS
	// tmpfs is the node's data directory when it is a tmpfs mount of its
	// own (ClusterOptions.DiskFull), which Stop unmounts; "" otherwise.
	tmpfs string

	// mu guards cmd and exited: the workload's goroutines ask Running
	// while the fault's kill and start them.
	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
}

// freeAddr is a free 127.0.0.1 port's address (listenLow's).
func freeAddr() (string, error) {
	l, err := listenLow()
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// ClusterOptions are what a cluster needs beside its nodes.
type ClusterOptions struct {
	// PowerLoss serves each node's data directory from a lossyfs mount
	// (root and /dev/fuse), so that PowerLoss can drop what the node had
	// not fsynced.
	PowerLoss bool
	// DiskFull serves each node's data directory from a tmpfs of its own
	// (root), so that the disk-full fault can fill it (diskfull.go).
	DiskFull bool
}

// StartCluster starts n nodes of bin with their data and logs under dir,
// and waits until each answers /health 200. extra are more environment
// variables (NAME=value) for every node.
func StartCluster(ctx context.Context, bin, dir string, n int, o ClusterOptions, extra ...string) (*Cluster, error) {
	// The nodes' listen ports are held while the proxies take theirs, so
	// that no proxy is handed a port a node is about to bind.
	raft := make([]string, n)
	var held []net.Listener
	for i := range raft {
		l, err := listenLow()
		if err != nil {
			return nil, err
		}
		held = append(held, l)
		raft[i] = l.Addr().String()
	}
	mesh, err := netproxy.NewMesh(raft)
	for _, l := range held {
		l.Close()
	}
	if err != nil {
		return nil, err
	}
	c := &Cluster{Mesh: mesh, bin: bin, dir: dir}
	var members []string
	for j := 1; j <= n; j++ {
		members = append(members, fmt.Sprintf("%d=%s", j, mesh.Addr(j)))
	}
	for i := 1; i <= n; i++ {
		httpAddr, err := freeAddr()
		if err != nil {
			c.Stop()
			return nil, err
		}
		_, port, _ := net.SplitHostPort(httpAddr)
		nd := &Node{ID: i, Replica: i, URL: "http://" + httpAddr, LogPath: filepath.Join(dir, fmt.Sprintf("node%d.log", i)),
			DataDir: filepath.Join(dir, fmt.Sprint(i))}
		nd.env = append(os.Environ(), "PORT="+port, "QUEEN_BIND_ADDR=127.0.0.1", "QUEEN_DATA_DIR="+nd.DataDir,
			fmt.Sprintf("QUEEN_RAFT_NODE_ID=%d", i), "QUEEN_RAFT_ADDRESS="+mesh.Addr(i), "QUEEN_RAFT_LISTEN_ADDRESS="+raft[i-1],
			"QUEEN_RAFT_MEMBERS="+strings.Join(members, ","),
			"QUEEN_RAFT_RTT_MS=10", "QUEEN_LOG_FORMAT=json", "QUEEN_RAFT_TICK_MS=200", "QUEEN_STMT_TIMEOUT_MS=5000")
		nd.env = append(nd.env, extra...)
		c.Nodes = append(c.Nodes, nd)
		if o.PowerLoss {
			if nd.fs, err = mountLossy(filepath.Join(dir, fmt.Sprint(i))); err != nil {
				c.Stop()
				return nil, err
			}
		}
		if o.DiskFull {
			if err := mountTmpfs(c.DataDir(nd)); err != nil {
				c.Stop()
				return nil, err
			}
			nd.tmpfs = c.DataDir(nd)
			nd.env = append(nd.env, diskEnv...)
		}
	}
	for _, nd := range c.Nodes {
		if err := nd.Start(bin); err != nil {
			c.Stop()
			return nil, err
		}
	}
	for _, nd := range c.Nodes {
		if err := nd.WaitReady(ctx, 60*time.Second); err != nil {
			c.Stop()
			return nil, err
		}
	}
	return c, nil
}

// Start starts the node's process; its output goes to its log file.
// more are environment variables (NAME=value) for this start only, over
// the node's own.
func (n *Node) Start(bin string, more ...string) error {
	logf, err := os.OpenFile(n.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(bin)
	cmd.Env = append(slices.Clone(n.env), more...) // the last of a duplicate name wins
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		logf.Close()
		close(exited)
	}()
	n.mu.Lock()
	n.cmd, n.exited = cmd, exited
	n.mu.Unlock()
	return nil
}

// Running reports whether the node's process runs (or is stopped).
func (n *Node) Running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.cmd != nil
}

// proc is the node's process and the channel closed when it exits (nil:
// none runs).
func (n *Node) proc() (*exec.Cmd, chan struct{}) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.cmd, n.exited
}

// Signal sends sig to the node's process by its pid; for SIGKILL and
// SIGTERM it waits for the process to exit.
func (n *Node) Signal(sig syscall.Signal) error {
	cmd, exited := n.proc()
	if cmd == nil {
		return nil
	}
	select {
	case <-exited: // exited already: its pid may be another's now
	default:
		if err := syscall.Kill(cmd.Process.Pid, sig); err != nil {
			return err
		}
	}
	if sig != syscall.SIGKILL && sig != syscall.SIGTERM {
		return nil
	}
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		return fmt.Errorf("node %d did not exit within 60 s of signal %d", n.ID, sig)
	}
	n.mu.Lock()
	n.cmd = nil
	n.mu.Unlock()
	return nil
}

// Health answers the node's /health: its status and raft role and leader
// (role "" when it does not answer).
func (n *Node) Health(ctx context.Context) (status int, role string, leader int) {
	var body struct {
		Raft struct {
			Role   string
			Leader int
		}
	}
	code, err := n.Call(ctx, http.MethodGet, "/health", nil, &body)
	if err != nil && code == 0 {
		return 0, "", 0
	}
	return code, body.Raft.Role, body.Raft.Leader
}

// WaitReady polls /health until 200, the node's exit, or the timeout.
func (n *Node) WaitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if code, _, _ := n.Health(ctx); code == http.StatusOK {
			return nil
		}
		_, exited := n.proc()
		select {
		case <-exited:
			return fmt.Errorf("node %d exited before it was ready (log %s)", n.ID, n.LogPath)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("node %d not ready within %s (log %s)", n.ID, timeout, n.LogPath)
}

// httpClient bounds every call of the harness: a node that does not answer
// within it is a fault to record, not a reason to hang.
var httpClient = &http.Client{Timeout: 15 * time.Second}

// Call sends body as JSON (nil: none) and decodes a 2xx answer into out;
// code is 0 when no answer came.
func (n *Node) Call(ctx context.Context, method, path string, body, out any) (code int, err error) {
	return (&client.Client{Base: n.URL, HTTP: httpClient}).Call(ctx, method, path, body, out)
}

// Leader waits until the running nodes agree on one leader and returns
// it.
func (c *Cluster) Leader(ctx context.Context, timeout time.Duration) (*Node, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		var leader *Node
		agree := true
		for _, n := range c.Nodes {
			if !n.Running() {
				continue
			}
			_, role, _ := n.Health(ctx)
			if role == "leader" {
				if leader != nil {
					agree = false
				}
				leader = n
			}
		}
		if leader != nil && agree {
			return leader, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil, errors.New("no single leader within " + timeout.String())
}

// Stop kills every node (by its pid) and the mesh, and unmounts what
// the cluster mounted.
func (c *Cluster) Stop() {
	for _, n := range c.Nodes {
		if cmd, exited := n.proc(); cmd != nil {
			select {
			case <-exited:
			default:
				syscall.Kill(cmd.Process.Pid, syscall.SIGCONT)
			}
			n.Signal(syscall.SIGKILL)
		}
		if n.fs != nil {
			n.fs.Unmount()
		}
		if n.tmpfs != "" {
			if err := unmountTmpfs(n.tmpfs); err != nil {
				fmt.Fprintln(os.Stderr, "chaos:", err)
			}
			n.tmpfs = ""
		}
	}
	c.Mesh.Close()
}

// mountLossy serves the directory data from a lossyfs mount over a
// backing directory beside it (data + ".disk").
func mountLossy(data string) (*lossyfs.FS, error) {
	backing := data + ".disk"
	for _, d := range []string{backing, data} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	fs, err := lossyfs.Mount(backing, data)
	if err != nil {
		return nil, fmt.Errorf("power losses need a lossyfs mount (root and /dev/fuse): %w", err)
	}
	return fs, nil
}

// PowerLoss SIGKILLs the node and drops what it had not fsynced, as a
// power loss does: every file of its data directory goes back to its
// content at its last fsync. The node stays down until Start.
func (n *Node) PowerLoss() (lossyfs.CrashReport, error) {
	if n.fs == nil {
		return lossyfs.CrashReport{}, fmt.Errorf("node %d: no power loss without ClusterOptions.PowerLoss", n.ID)
	}
	if err := n.Signal(syscall.SIGKILL); err != nil {
		return lossyfs.CrashReport{}, err
	}
	return n.fs.Crash()
}
