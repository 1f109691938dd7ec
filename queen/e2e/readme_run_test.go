package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/queen-mq/queen-go/testkit/freeport"
)

// TestREADMERun follows the README from a copy of the repository, as a
// new user does: the run commands (build into ./bin, start the binary in
// the background, wait for /health, queenctl status), the curl
// walk-through, the dashboard at /, the CLI, then the stop command, which
// must end the broker with exit status 0. The commands run as written but
// for the port (the broker's PORT and raft address from the environment,
// the curl lines' localhost:6632 replaced, QUEEN_URL for queenctl).
func TestREADMERun(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("the README's commands need curl, which .ci/run installs")
	}
	repo := copyRepo(t)
	port, raft := freeport.Take(t), freeport.Take(t)
	local := fmt.Sprintf("127.0.0.1:%d", port)
	env := append(os.Environ(), "PORT="+strconv.Itoa(port), "QUEEN_BIND_ADDR=127.0.0.1",
		fmt.Sprintf("QUEEN_RAFT_ADDRESS=127.0.0.1:%d", raft), "QUEEN_URL=http://"+local, "QUEEN_LOG_FORMAT=",
		"QUEEN_DATA_DIR=", "QUEEN_RAFT_MEMBERS=", "QUEEN_RAFT_NODE_ID=")
	// The broker the run block starts in the background is orphaned when
	// the block's shell exits: as this process's subreaper it is ours to
	// wait for, and its exit status readable.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	defer unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	run := func(name, lang string) string {
		t.Helper()
		script := strings.ReplaceAll(readmeBlock(t, name, lang), "localhost:6632", local)
		// stdout to a file, not a pipe: the broker started in the
		// background keeps the block's stdout open.
		outPath := filepath.Join(t.TempDir(), name+".out")
		out, err := os.Create(outPath)
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = repo, env, out, out
		err = cmd.Run()
		b, _ := os.ReadFile(outPath)
		if err != nil {
			t.Fatalf("the README's %s block failed: %v\n%s\nqueen.log:\n%s", name, err, b, readFile(filepath.Join(repo, "queen.log")))
		}
		return string(b)
	}
	out := run("run", "sh")
	pidText, err := os.ReadFile(filepath.Join(repo, "queen.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(pidText)))
	if err != nil {
		t.Fatalf("queen.pid holds %q", pidText)
	}
	// The pid must be ours to wait for: a broker that is not this
	// process's child (re-parented elsewhere) would make its exit status
	// unreadable, and the stop untestable.
	var ws syscall.WaitStatus
	if got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); err != nil || got != 0 {
		t.Fatalf("the broker (pid %d) is not a live child of the test to wait for: wait4 answered %d, %v", pid, got, err)
	}
	type exit struct {
		ws  syscall.WaitStatus
		err error
	}
	exited := make(chan exit, 1)
	go func() {
		var ws syscall.WaitStatus
		var err error
		for {
			if _, err = syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
				break
			}
		}
		exited <- exit{ws, err}
	}()
	t.Cleanup(func() {
		if syscall.Kill(pid, 0) == nil {
			syscall.Kill(pid, syscall.SIGKILL)
			<-exited
		}
	})
	if !strings.Contains(out, "leader") {
		t.Errorf("queenctl status printed no leader:\n%s", out)
	}
	log := readFile(filepath.Join(repo, "queen.log"))
	if ready, elected := strings.Index(log, "queen ready"), strings.Index(log, "raft leader elected"); ready < 0 || elected < 0 || ready < elected {
		t.Errorf("the log does not say 'raft leader elected' before 'queen ready':\n%s", log)
	}
	if fi, err := os.Stat(filepath.Join(repo, "queen-data")); err != nil || !fi.IsDir() {
		t.Errorf("no ./queen-data in the repository's root: %v", err)
	}
	if st := gitStatus(t, repo); st != "" {
		t.Errorf("git sees what the run commands left in the clone (not ignored):\n%s", st)
	}

	checkWalkthrough(t, []byte(run("walkthrough", "sh")))

	resp, err := http.Get("http://" + local + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
		!bytes.Contains(page, []byte("Queen")) {
		t.Errorf("GET / answered %d %s:\n%.300s", resp.StatusCode, resp.Header.Get("Content-Type"), page)
	}
	cli := exec.Command(filepath.Join(repo, "bin", "queenctl"), "queues")
	cli.Env = env
	if b, err := cli.CombinedOutput(); err != nil || !bytes.Contains(b, []byte("orders")) {
		t.Errorf("queenctl queues: %v\n%s", err, b)
	}

	run("stop", "sh")
	select {
	case e := <-exited:
		if e.err != nil {
			t.Fatalf("waiting for the broker: %v", e.err)
		}
		if !e.ws.Exited() || e.ws.ExitStatus() != 0 {
			t.Fatalf("the stop command ended the broker with %v, want exit status 0\n%s", e.ws, readFile(filepath.Join(repo, "queen.log")))
		}
	case <-time.After(time.Minute):
		t.Fatalf("the broker did not stop within a minute of the stop command\n%s", readFile(filepath.Join(repo, "queen.log")))
	}
	if log := readFile(filepath.Join(repo, "queen.log")); !strings.Contains(log, "queen stopped") {
		t.Errorf("the log does not end with 'queen stopped':\n%s", log)
	}
}

// copyRepo copies the repository as a clone of it holds it (the files git
// tracks and those it would add) into a temporary directory, a git
// repository of its own.
func copyRepo(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ls := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	ls.Dir = root
	list, err := ls.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dst := t.TempDir()
	for _, f := range strings.Split(strings.TrimSuffix(string(list), "\x00"), "\x00") {
		src := filepath.Join(root, f)
		fi, err := os.Lstat(src)
		if err != nil {
			continue // deleted in the work tree, not yet in the index
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}} {
		g := exec.Command("git", args...)
		g.Dir = dst
		if b, err := g.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}
	return dst
}

// gitStatus lists the files of dir's work tree that git would add: not in
// its index, not ignored.
func gitStatus(t *testing.T, dir string) string {
	g := exec.Command("git", "ls-files", "--others", "--exclude-standard")
	g.Dir = dir
	b, err := g.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	return strings.TrimSpace(string(b))
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}
