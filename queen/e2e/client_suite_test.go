package e2e

import (
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

// clientSuite is the pytest suite of the official Python client: every public
// method of queen-mq driven against real nodes (clients/python/suite).
const clientSuite = "../../clients/python/suite"

// TestClientSuite runs the client's pytest suite against one real node, again
// there with the client's binary wire on, then against three (where the suite's three_nodes tests run too: push on one
// node, pop on another, a client holding all three URLs). It fails with
// pytest's output when pytest fails. Like TestPythonClient it needs the venv
// of `make client-venv`: without it the test fails under CI or
// QUEEN_CLIENT_LANE and is skipped otherwise.
func TestClientSuite(t *testing.T) {
	python := clientPython(t)
	if err := exec.Command(python, "-c", "import pytest, pytest_asyncio").Run(); err != nil {
		t.Fatalf("the client venv has no pytest/pytest-asyncio (%v): run `make client-venv`", err)
	}
	t.Run("1node", func(t *testing.T) {
		n := single(t)
		runSuite(t, []*node{n})
	})
	// The whole suite again with the client's binary wire switched on:
	// binary push, binary transaction and framed pop (the suite's
	// QUEEN_CLIENT_WIRE).
	t.Run("1node-binary", func(t *testing.T) {
		n := single(t)
		runSuite(t, []*node{n}, "QUEEN_CLIENT_WIRE=binary_push,push_compression,framed_pop")
	})
	t.Run("3nodes", func(t *testing.T) {
		nodes := cluster(t, 3)
		startAll(nodes)
		runSuite(t, nodes)
	})
}

// pytestSummary is pytest's closing line, e.g. "== 3 failed, 90 passed in 12.3s ==".
var pytestSummary = regexp.MustCompile(`(?m)^=+ (.*\d+ (passed|failed|error|errors|skipped).*) =+$`)

// runSuite runs pytest over the suite with QUEEN_URLS naming the nodes, and
// fails the test with pytest's whole output unless pytest passed. The
// suite's own wire records of the failing tests go to a file beside the
// nodes' logs (QUEEN_SUITE_WIRE, JSON lines). env are more variables
// for pytest, NAME=value.
func runSuite(t *testing.T, nodes []*node, env ...string) {
	t.Helper()
	python := clientPython(t)
	suite, err := filepath.Abs(clientSuite)
	if err != nil {
		t.Fatal(err)
	}
	urls := make([]string, len(nodes))
	for i, n := range nodes {
		urls[i] = n.url
	}
	wire := filepath.Join(t.TempDir(), "wire.jsonl")
	if dir := os.Getenv("QUEEN_SUITE_OUT"); dir != "" {
		wire = filepath.Join(dir, filepath.Base(t.Name())+"-wire.jsonl")
		os.Remove(wire)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	args := []string{"-m", "pytest", suite, "-q", "-rfE", "--color=no", "-o", "console_output_style=classic"}
	if extra := os.Getenv("QUEEN_SUITE_ARGS"); extra != "" {
		args = append(args, strings.Fields(extra)...)
	}
	cmd := exec.CommandContext(ctx, python, args...)
	cmd.Dir = suite
	// The broker is on 127.0.0.1: no proxy of the environment may stand
	// between (httpx reads the proxy variables).
	cmd.Env = append(os.Environ(), "QUEEN_URLS="+strings.Join(urls, ","), "QUEEN_SUITE_WIRE="+wire,
		"PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1", "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
	cmd.Env = append(cmd.Env, env...)
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	summary := "no summary line"
	if m := pytestSummary.FindAllStringSubmatch(string(out), -1); m != nil {
		summary = m[len(m)-1][1]
	}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("the client suite did not finish within 15 minutes against %v:\n%s", urls, out)
	case err == nil:
		t.Logf("client suite against %d node(s): %s", len(nodes), summary)
	case errors.As(err, &exit):
		t.Fatalf("the client suite failed against %d node(s) (pytest exit %d: %s; wire records in %s):\n%s",
			len(nodes), exit.ExitCode(), summary, wire, out)
	default:
		t.Fatalf("running the client suite: %v\n%s", err, out)
	}
}
