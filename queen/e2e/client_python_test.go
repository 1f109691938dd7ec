package e2e

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The client lane: the product's official Python client, as published and
// pinned in clients/python/requirements.txt, installed by `make
// client-venv` into .cache/client-venv.
const (
	clientVenvPython = "../../.cache/client-venv/bin/python"
	clientScript     = "../../clients/python/test_locks_timers.py"
	clientPins       = "../../clients/python/requirements.txt"
)

// TestPythonClient runs clients/python/test_locks_timers.py with the
// official client against one real node: locks, semaphores, timers and
// transactions with a guard and a timer, each case asserted from what the
// client answers and delivers. Then it runs each of the script's lies (a
// transport that falsifies one kind of answer) against the case it targets
// and requires that case to fail on an assertion: the checks bite.
//
// Without the venv the test fails, naming `make client-venv`, when CI or
// QUEEN_CLIENT_LANE is set (.ci/run sets it), and is skipped otherwise.
func TestPythonClient(t *testing.T) {
	python := clientPython(t)
	n := single(t)

	out, code := runClient(t, python, "--url", n.url)
	if code != 0 || !regexp.MustCompile(`(?m)^[1-9]\d* passed, 0 failed$`).MatchString(out) {
		t.Fatalf("the Python client lane failed (exit %d) against %s:\n%s", code, n.url, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "PASS ") {
			t.Log(l)
		}
	}

	lies := []struct{ lie, target string }{
		{"acquire_always", "lock_exclusive"},
		{"renew_same_token", "lock_renew"},
		{"guard_ignored", "lock_guard"},
		{"semaphore_extra", "semaphore"},
		{"fired_early", "timer_fires"},
		{"fired_twice", "timer_fires"},
		{"cancel_ignored", "timer_cancel"},
		{"list_drops_row", "timer_peek_list"},
		{"txn_timer_dropped", "txn_push_timer"},
	}
	for _, l := range lies {
		t.Run("lie_"+l.lie, func(t *testing.T) {
			out, code := runClient(t, python, "--url", n.url, "--case", l.target, "--lie", l.lie, "--deadline", "5")
			if code != 1 {
				t.Fatalf("case %s under lie %s exited %d, want 1 (its check must fail):\n%s", l.target, l.lie, code, out)
			}
			prefix := "FAIL " + l.target + ": "
			if !strings.Contains(out, "\n"+prefix) && !strings.HasPrefix(out, prefix) || strings.Contains(out, prefix+"raised") {
				t.Fatalf("case %s under lie %s did not fail on an assertion:\n%s", l.target, l.lie, out)
			}
		})
	}
}

// clientPython is the venv's python with the pinned client in it, or the
// test's end: a failure naming `make client-venv` under CI or
// QUEEN_CLIENT_LANE, a skip otherwise.
func clientPython(t *testing.T) string {
	t.Helper()
	python, err := filepath.Abs(clientVenvPython)
	if err != nil {
		t.Fatal(err)
	}
	want := pinnedClient(t)
	missing := func(why string) {
		t.Helper()
		msg := why + ": run `make client-venv` (it installs " + want + " from clients/python/requirements.txt into .cache/client-venv)"
		if os.Getenv("CI") != "" || os.Getenv("QUEEN_CLIENT_LANE") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg + "; skipped because neither CI nor QUEEN_CLIENT_LANE is set")
	}
	if _, err := os.Stat(python); err != nil {
		missing("no client venv at .cache/client-venv")
	}
	ver := exec.Command(python, "-c", "import importlib.metadata as m; print('queen-mq==' + m.version('queen-mq'))")
	got, err := ver.Output()
	if err != nil {
		missing("the client venv has no queen-mq (" + err.Error() + ")")
	}
	if have := strings.TrimSpace(string(got)); have != want {
		missing("the client venv has " + have + ", the lane pins " + want)
	}
	return python
}

// pinnedClient is the queen-mq==<version> line of the requirements file.
func pinnedClient(t *testing.T) string {
	t.Helper()
	f, err := os.Open(clientPins)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "queen-mq==") {
			return l
		}
	}
	t.Fatalf("%s pins no queen-mq==<version>", clientPins)
	return ""
}

// runClient runs the lane's script and answers its output and exit code;
// the process is killed by its pid if it outlives its deadline.
func runClient(t *testing.T, python string, args ...string) (string, int) {
	t.Helper()
	return runClientScript(t, python, clientScript, args...)
}

// runClientScript runs one script of clients/python with the lane's
// python, as runClient does.
func runClientScript(t *testing.T, python, path string, args ...string) (string, int) {
	t.Helper()
	script, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, append([]string{script}, args...)...)
	// The broker is on 127.0.0.1: no proxy of the environment may stand
	// between (httpx reads the proxy variables).
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1", "NO_PROXY=127.0.0.1,localhost",
		"no_proxy=127.0.0.1,localhost")
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case ctx.Err() != nil:
		t.Fatalf("the client script did not finish within 5 minutes:\n%s", out)
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	default:
		t.Fatalf("running the client script: %v\n%s", err, out)
	}
	return "", -1
}
