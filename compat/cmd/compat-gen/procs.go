package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a child process, stopped by its pid.
type proc struct {
	name   string
	cmd    *exec.Cmd
	log    string
	exited chan struct{}
}

// running holds every child still running, so that a failure or a signal
// stops them all before compat-gen exits.
var running struct {
	sync.Mutex
	procs map[*proc]bool
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
	running.Lock()
	if running.procs == nil {
		running.procs = map[*proc]bool{}
	}
	running.procs[p] = true
	running.Unlock()
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
	running.Lock()
	delete(running.procs, p)
	running.Unlock()
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
	ps := make([]*proc, 0, len(running.procs))
	for p := range running.procs {
		ps = append(ps, p)
	}
	running.Unlock()
	for _, p := range ps {
		p.stop(10 * time.Second)
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// S3 credentials of the lake's versitygw; the runner starts its own
// versitygw over the same directory with these (lakes.json carries them).
const (
	s3Access = "queen-compat"
	s3Secret = "queen-compat-secret-key"
	s3Region = "us-east-1"
	s3Bucket = "lake"
)

// startVersitygw serves dir (posix backend: a bucket is a folder of dir) on
// a free port of 127.0.0.1 and waits until the port accepts a connection:
// versitygw prints nothing when it is ready.
func startVersitygw(bin, dir, logPath string) (*proc, string, error) {
	for range 3 { // a free port can be taken between the probe and the bind
		port, err := freePort()
		if err != nil {
			return nil, "", err
		}
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		// Only what it needs of our environment: versitygw reads many VGW_*
		// and ROOT_* variables.
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + os.TempDir()}
		p, err := start("versitygw", logPath, env, bin, "--port", addr, "--access", s3Access, "--secret", s3Secret,
			"--region", s3Region, "--quiet", "posix", dir)
		if err != nil {
			return nil, "", err
		}
		deadline := time.Now().Add(20 * time.Second)
		for p.alive() && time.Now().Before(deadline) {
			if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
				c.Close()
				return p, "http://" + addr, nil
			}
			time.Sleep(20 * time.Millisecond)
		}
		if p.alive() {
			p.stop(5 * time.Second)
			return nil, "", fmt.Errorf("versitygw did not listen on %s within 20 s:\n%s", addr, p.tail())
		}
		if !strings.Contains(p.tail(), "address already in use") {
			return nil, "", fmt.Errorf("versitygw exited:\n%s", p.tail())
		}
	}
	return nil, "", fmt.Errorf("versitygw found no free port in 3 tries")
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
