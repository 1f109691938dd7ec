package s3test

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// EnvVersitygw names the versitygw binary to run, ahead of
// <repo>/.cache/bin/versitygw (where `make tools` puts it) and PATH.
const EnvVersitygw = "QUEEN_VERSITYGW"

// startDeadline bounds the wait for versitygw to listen: it starts in
// about 0.2 s, so this is only reached when something is broken.
const startDeadline = 20 * time.Second

// Versitygw starts a versitygw process (posix backend on a temporary
// directory, single account) on a free port of 127.0.0.1 and stops it, by
// its pid, at the test's cleanup. A test that needs it and cannot find it
// fails: CI installs it with `make tools`, and a skip would hide that.
func Versitygw(t testing.TB) *Server {
	t.Helper()
	return VersitygwAs(t, "queen-test-access", "queen-test-secret-key")
}

// VersitygwAs is Versitygw whose one account has the given access key id
// and secret: two servers, two sets of credentials, as two tenants'
// buckets have.
func VersitygwAs(t testing.TB, access, secret string) *Server {
	t.Helper()
	bin := findVersitygw(t)
	dir := t.TempDir()
	s := &Server{Access: access, Secret: secret, Region: Region, Dir: dir}
	// A free port can be taken between our probe and versitygw's bind;
	// a second port then does it.
	var last string
	for range 3 {
		addr := freeAddr(t)
		out, ok := startVersitygw(t, bin, addr, s)
		if ok {
			s.URL = "http://" + addr
			return s
		}
		last = out
		if !strings.Contains(out, "address already in use") {
			break
		}
	}
	t.Fatalf("s3test: versitygw (%s) did not start:\n%s", bin, last)
	return nil
}

// startVersitygw runs one versitygw on addr and waits until it accepts a
// connection. It reports false with the process's output when it exited
// first.
func startVersitygw(t testing.TB, bin, addr string, s *Server) (string, bool) {
	t.Helper()
	out := &syncBuffer{}
	cmd := exec.Command(bin,
		"--port", addr, "--access", s.Access, "--secret", s.Secret,
		"--region", s.Region, "--quiet", "posix", s.Dir)
	// Only what it needs of our environment: versitygw reads many VGW_*
	// and ROOT_* variables, and a stray one must not change the server.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.Dir, "TMPDIR=" + os.TempDir()}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("s3test: start versitygw %s: %v", bin, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()

	// versitygw prints nothing when it is ready (and --quiet silences the
	// rest), so the only sign that it serves is its port accepting a
	// connection: poll the port, bounded by startDeadline, and watch for
	// an early exit.
	deadline := time.Now().Add(startDeadline)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-exited
			t.Fatalf("s3test: versitygw did not listen on %s within %v: %v\n%s", addr, startDeadline, err, out.String())
		}
		select {
		case <-exited:
			return out.String(), false
		case <-tick.C:
		}
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		// By its pid, and wait for it so that its directory can go.
		if err := cmd.Process.Kill(); err != nil {
			select {
			case <-exited:
				return
			default:
				t.Errorf("s3test: kill versitygw pid %d: %v", pid, err)
			}
		}
		<-exited
	})
	return "", true
}

// findVersitygw looks at $QUEEN_VERSITYGW, <repo>/.cache/bin/versitygw
// and PATH, in that order, and fails the test when none has it.
func findVersitygw(t testing.TB) string {
	t.Helper()
	if p := os.Getenv(EnvVersitygw); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("s3test: %s=%s: %v", EnvVersitygw, p, err)
		}
		return p
	}
	tried := []string{}
	if root := repoRoot(); root != "" {
		p := filepath.Join(root, ".cache", "bin", "versitygw")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		tried = append(tried, p)
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p
	}
	tried = append(tried, "PATH")
	t.Fatalf("s3test: versitygw not found (%s unset; tried %s): run `make tools` at the repository root, which installs it into .cache/bin",
		EnvVersitygw, strings.Join(tried, ", "))
	return ""
}

// repoRoot is the nearest directory above the working directory that
// holds go.work, or "".
func repoRoot() string {
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

// freeAddr returns 127.0.0.1:<port> of a port that was free a moment ago.
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("s3test: find a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().String()
}

// syncBuffer collects a process's output, written from exec's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
