package main

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/queen-mq/queen-go/s3sink/s3test/versitygw"
)

// proc is a child process, stopped by its pid.
type proc struct {
	name   string
	cmd    *exec.Cmd
	log    string
	exited chan struct{}
}

// running holds every child still running (the node, versitygw), so that
// a failure or a signal stops them all before compat-gen exits.
var running struct {
	sync.Mutex
	children map[child]bool
}

// child is a process compat-gen started, stopped by its pid.
type child interface{ stop(grace time.Duration) }

func track(c child) {
	running.Lock()
	defer running.Unlock()
	if running.children == nil {
		running.children = map[child]bool{}
	}
	running.children[c] = true
}

func untrack(c child) {
	running.Lock()
	defer running.Unlock()
	delete(running.children, c)
}

func start(name, logPath string, env []string, bin string, args ...string) (*proc, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s (%s): %w", name, bin, err)
	}
	p := &proc{name: name, cmd: cmd, log: logPath, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(p.exited)
	}()
	track(p)
	return p, nil
}

// stop sends SIGTERM and waits for the exit, then SIGKILL after grace.
func (p *proc) stop(grace time.Duration) {
	_ = syscall.Kill(p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(grace):
		logf("%s (pid %d) still runs %v after SIGTERM: SIGKILL", p.name, p.cmd.Process.Pid, grace)
		_ = syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
	}
	untrack(p)
}

// alive reports whether the process still runs.
func (p *proc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// tail is the end of the process's log, for error messages.
func (p *proc) tail() string {
	b, _ := os.ReadFile(p.log)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// killAll stops every child still running, by its pid.
func killAll() {
	running.Lock()
	cs := make([]child, 0, len(running.children))
	for c := range running.children {
		cs = append(cs, c)
	}
	running.Unlock()
	for _, c := range cs {
		c.stop(10 * time.Second)
	}
}

// S3 credentials of the lake's versitygw; the runner starts its own
// versitygw over the same directory with these (lakes.json carries them).
const (
	s3Access = "queen-compat"
	s3Secret = "queen-compat-secret-key"
	s3Region = "us-east-1"
	s3Bucket = "lake"
)

// gateway is the lake's versitygw, run by s3sink's launcher (the one the
// tests and the fault campaign run too), its output appended to its log.
type gateway struct {
	*versitygw.Process
	log *os.File
}

// stop kills versitygw by its pid (its posix backend keeps nothing in
// memory that a kill loses) and closes its log.
func (g *gateway) stop(time.Duration) {
	g.Stop()
	g.log.Close()
	untrack(g)
}

// startVersitygw serves dir (posix backend: a bucket is a folder of dir) on
// a free port of 127.0.0.1 and waits until the port accepts a connection:
// versitygw prints nothing when it is ready. It returns the endpoint.
func startVersitygw(bin, dir, logPath string) (*gateway, string, error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, "", err
	}
	p, err := versitygw.Start(versitygw.Options{Bin: bin, Root: dir, Access: s3Access, Secret: s3Secret, Region: s3Region, Log: log})
	if err != nil {
		log.Close()
		return nil, "", err
	}
	g := &gateway{Process: p, log: log}
	track(g)
	return g, p.URL, nil
}

// queenNode is the one broker node: its binary, data directory, ports and
// clock offset stay the same across its restarts.
type queenNode struct {
	bin, dataDir, logDir string
	httpPort, raftPort   int
	offsetMs             int64
	url                  string
	p                    *proc
}

// env is the node's environment: ours without any QUEEN_* or PORT variable
// (a stray one must not change the node), then the node's own, then extra.
func (n *queenNode) env(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "QUEEN_") || strings.HasPrefix(kv, "PORT=") || strings.HasPrefix(kv, "RETENTION_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, fmt.Sprintf("PORT=%d", n.httpPort), "QUEEN_BIND_ADDR=127.0.0.1", "QUEEN_DATA_DIR="+n.dataDir,
		fmt.Sprintf("QUEEN_RAFT_ADDRESS=127.0.0.1:%d", n.raftPort), "QUEEN_RAFT_RTT_MS=10", "QUEEN_RAFT_TICK_MS=200",
		"QUEEN_LOG_FORMAT=json", fmt.Sprintf("QUEEN_RAFT_CLOCK_OFFSET_MS=%d", n.offsetMs))
	return append(env, extra...)
}

// start boots the node and waits until /health answers 200 (raft has a
// leader and the node caught up).
func (n *queenNode) start(phase string, extra ...string) error {
	p, err := start("queen "+phase, fmt.Sprintf("%s/queen-%s.log", n.logDir, phase), n.env(extra...), n.bin)
	if err != nil {
		return err
	}
	n.p = p
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if !p.alive() {
			return fmt.Errorf("queen (%s) exited before it was ready:\n%s", phase, p.tail())
		}
		if resp, err := http.Get(n.url + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("queen (%s) not ready within 60 s:\n%s", phase, p.tail())
}

// stop sends SIGTERM, which drains the sink and closes the raft log.
func (n *queenNode) stop() {
	if n.p != nil {
		n.p.stop(60 * time.Second)
		n.p = nil
	}
}
