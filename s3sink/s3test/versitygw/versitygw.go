// Package versitygw starts and stops versitygw, the S3 server of the
// end-to-end tests and the fault campaign: one process per call, its posix
// backend on a directory of the caller's, one account, a free port of
// 127.0.0.1, stopped by its pid. It is the one launcher: s3test's
// Versitygw wraps it for tests, tools/chaos runs it for the lake workload,
// compat-gen for the lakes of the compatibility lane.
//
// Invariants: the process gets only PATH, HOME (the root) and TMPDIR of
// the caller's environment (versitygw reads many VGW_* and ROOT_*
// variables, and a stray one must not change the server); Start returns
// once the port takes connections, or an error with the process's output;
// Stop kills by pid and waits, so that the root can be removed after it.
//
//	bin, err := versitygw.Find("QUEEN_VERSITYGW")
//	p, err := versitygw.Start(versitygw.Options{Bin: bin, Root: dir, Access: "a", Secret: "s", Region: "us-east-1"})
//	defer p.Stop()
//	// p.URL is http://127.0.0.1:<port>
package versitygw

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/queen-mq/queen-go/testkit/freeport"
	"github.com/queen-mq/queen-go/testkit/syncbuf"
)

// StartDeadline bounds the wait for versitygw to listen: it starts in
// about 0.2 s, so this is only reached when something is broken.
const StartDeadline = 20 * time.Second

// Options say which versitygw to run, on what, with which account.
type Options struct {
	Bin    string // the binary (Find)
	Root   string // the posix backend's directory: bucket <name> is Root/<name>
	Access string // the one account's access key id
	Secret string // and its secret key
	Region string // the SigV4 region it answers to
	// Log, when set, receives the process's output as well (a file).
	Log io.Writer
}

// Process is a running versitygw.
type Process struct {
	URL string // http://127.0.0.1:<port>, no trailing slash
	cmd *exec.Cmd
	out *syncbuf.Buffer
	// exited is closed once the process has exited and been waited for.
	exited chan struct{}
}

// Find looks for the binary at $env (when env names a variable that is
// set), <repo>/.cache/bin/versitygw (where `make tools` puts it; repo is
// the nearest directory above the working directory that holds go.work)
// and PATH, in that order. Its error names what it tried and how to
// install it.
func Find(env string) (string, error) {
	if p := os.Getenv(env); env != "" && p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", env, p, err)
		}
		return p, nil
	}
	var tried []string
	if root := RepoRoot(); root != "" {
		p := filepath.Join(root, ".cache", "bin", "versitygw")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		tried = append(tried, p)
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, nil
	}
	tried = append(tried, "PATH")
	return "", fmt.Errorf("versitygw not found (%s unset; tried %s): run `make tools` at the repository root, which installs it into .cache/bin",
		env, strings.Join(tried, ", "))
}

// RepoRoot is the nearest directory at or above the working directory
// that holds go.work, or "".
func RepoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// Start runs versitygw as o says on a free port of 127.0.0.1 and waits
// until the port takes a connection. A port taken between the probe and
// versitygw's bind is tried again, three ports in all.
func Start(o Options) (*Process, error) {
	var last error
	for range 3 {
		addr, err := freeport.Addr()
		if err != nil {
			return nil, fmt.Errorf("versitygw: find a free port: %w", err)
		}
		p, err := start(o, addr)
		if err == nil {
			return p, nil
		}
		last = err
		if !errors.Is(err, errAddrInUse) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("versitygw (%s): no free port in 3 tries: %w", o.Bin, last)
}

// errAddrInUse is start's error when versitygw exited because its port
// was taken.
var errAddrInUse = errors.New("address already in use")

func start(o Options, addr string) (*Process, error) {
	p := &Process{out: &syncbuf.Buffer{}, exited: make(chan struct{})}
	cmd := exec.Command(o.Bin, "--port", addr, "--access", o.Access, "--secret", o.Secret,
		"--region", o.Region, "--quiet", "posix", o.Root)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + o.Root, "TMPDIR=" + os.TempDir()}
	var w io.Writer = p.out
	if o.Log != nil {
		w = io.MultiWriter(p.out, o.Log)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start versitygw %s: %w", o.Bin, err)
	}
	p.cmd = cmd
	go func() { _ = cmd.Wait(); close(p.exited) }()

	// versitygw prints nothing when it is ready (and --quiet silences the
	// rest), so the only sign that it serves is its port accepting a
	// connection: poll the port, bounded by StartDeadline, and watch for
	// an early exit.
	deadline := time.Now().Add(StartDeadline)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			p.URL = "http://" + addr
			return p, nil
		}
		if time.Now().After(deadline) {
			p.Stop()
			return nil, fmt.Errorf("versitygw (%s) did not listen on %s within %v: %v\n%s", o.Bin, addr, StartDeadline, err, p.out.String())
		}
		select {
		case <-p.exited:
			out := p.out.String()
			if strings.Contains(out, "address already in use") {
				return nil, fmt.Errorf("versitygw (%s) on %s: %w", o.Bin, addr, errAddrInUse)
			}
			return nil, fmt.Errorf("versitygw (%s) exited before it listened on %s:\n%s", o.Bin, addr, strings.TrimSpace(out))
		case <-tick.C:
		}
	}
}

// Stop kills the process by its pid and waits for it to exit; a process
// that exited already is only waited for.
func (p *Process) Stop() {
	select {
	case <-p.exited:
	default:
		_ = syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
	}
}

// Wait returns once the process has exited.
func (p *Process) Wait() { <-p.exited }

// Pid is the process's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Output is what the process wrote so far.
func (p *Process) Output() string { return p.out.String() }
