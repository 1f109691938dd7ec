package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/s3sink/s3test"
)

var sinkQueues = []string{"q0", "q1", "q2"}

// owned returns, per node, the queues it runs now (ownedHere in /status).
func owned(nodes []*node) map[*node][]string {
	out := map[*node][]string{}
	for _, n := range nodes {
		if n.cmd == nil {
			continue
		}
		for _, q := range sinkQueues {
			if row := n.sinkQueue(q); row != nil && row["ownedHere"] == true {
				out[n] = append(out[n], q)
			}
		}
	}
	return out
}

// waitFor polls cond (the sink's placement shows only in /status) until it
// holds, with a deadline.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", d, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// ownerOf returns the node that runs queue, waiting until one does.
func ownerOf(t *testing.T, nodes []*node, queue string) *node {
	var owner *node
	waitFor(t, "an owner of "+queue, 60*time.Second, func() bool {
		for n, qs := range owned(nodes) {
			for _, q := range qs {
				if q == queue {
					owner = n
					return true
				}
			}
		}
		return false
	})
	return owner
}

// precondLost reads queen_s3_commit_precondition_lost_total from a node.
func precondLost(n *node) float64 {
	_, raw, err := n.send(context.Background(), http.MethodGet, "/metrics/prometheus", nil, nil)
	if err != nil {
		return 0
	}
	total := 0.0
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "queen_s3_commit_precondition_lost_total") {
			var v float64
			fmt.Sscanf(line[strings.LastIndexByte(line, ' ')+1:], "%g", &v)
			total += v
		}
	}
	return total
}

// TestSinkThreeNodes: queues spread over three nodes by their fair share;
// SIGKILL of an owner moves its queue after the lease TTL; SIGTERM gives the
// lease back at once; nodes that rejoin take only their share; a node whose
// lease was taken while it was stopped with SIGSTOP cannot commit when it
// resumes. The lake ends complete, every record once.
func TestSinkThreeNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("three processes and many failovers; run without -short")
	}
	gw := s3test.Versitygw(t)
	gw.Bucket(t, "lake")
	// A lease TTL of 5 s: short enough for the test, long enough that a
	// busy machine does not let leases lapse on their own.
	nodes := cluster(t, 3, sinkEnv(gw, "lake", "QUEEN_S3_QUEUES="+strings.Join(sinkQueues, ","), "QUEEN_S3_LEASE_TTL_MS=5000")...)
	startAll(nodes)
	var mu sync.Mutex
	live := append([]*node(nil), nodes...)
	alive := func() []*node { mu.Lock(); defer mu.Unlock(); return append([]*node(nil), live...) }
	setLive := func(ns ...*node) { mu.Lock(); live = ns; mu.Unlock() }
	others := func(x *node) []*node {
		var out []*node
		for _, n := range nodes {
			if n != x && n.cmd != nil {
				out = append(out, n)
			}
		}
		return out
	}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); pushQueues(ctx, t, alive) }()

	balanced := func() bool {
		o := owned(nodes)
		n := 0
		for _, qs := range o {
			if len(qs) != 1 {
				return false
			}
			n++
		}
		return n == 3
	}
	waitFor(t, "one queue per node", 90*time.Second, balanced)

	// SIGKILL the owner of q0: after the TTL another node runs it.
	victim := ownerOf(t, nodes, "q0")
	setLive(others(victim)...)
	victim.signal(syscall.SIGKILL)
	next := ownerOf(t, others(victim), "q0")
	k := next.waitCommitted(t, "q0", 1)["k"].(float64)
	next.waitCommitted(t, "q0", k+1)

	// It rejoins and takes only its fair share: one queue per node again.
	victim.start()
	victim.waitReady()
	setLive(nodes...)
	waitFor(t, "one queue per node after the rejoin", 120*time.Second, balanced)

	// SIGTERM the owner of q1: its lease row is gone when it exits, and
	// another node runs q1.
	term := ownerOf(t, nodes, "q1")
	setLive(others(term)...)
	st := term.signal(syscall.SIGTERM)
	if st.ExitCode() != 0 {
		t.Errorf("SIGTERM: exit %d", st.ExitCode())
	}
	rest := others(term)
	var lease map[string]any
	if _, err := rest[0].call(context.Background(), http.MethodGet, "/api/v1/kv/queen-s3/s3:default:q1:lease", nil, &lease); err != nil {
		t.Fatal(err)
	}
	if lease["found"] != false {
		t.Errorf("after SIGTERM the lease of q1 is still held: %v\nnode %d's log, its end:\n%s", lease, term.id, tail(term.log(), 40))
	}
	ownerOf(t, rest, "q1")
	term.start()
	term.waitReady()
	setLive(nodes...)
	waitFor(t, "one queue per node after the second rejoin", 120*time.Second, balanced)

	// SIGSTOP the owner of q2 past its TTL: another node takes q2; resumed,
	// the stopped node's next fenced batch fails and is counted.
	frozen := ownerOf(t, nodes, "q2")
	if err := syscall.Kill(frozen.cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	setLive(others(frozen)...)
	taker := ownerOf(t, others(frozen), "q2")
	taker.waitCommitted(t, "q2", taker.waitCommitted(t, "q2", 1)["k"].(float64)+1)
	if err := syscall.Kill(frozen.cmd.Process.Pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the resumed node to count a lost precondition", 60*time.Second, func() bool { return precondLost(frozen) >= 1 })
	setLive(nodes...)

	stop()
	wg.Wait()
	for _, q := range sinkQueues {
		waitComplete(t, nodes, q, "p-0", "p-1", "p-2", "p-3")
		verifyLake(t, gw, "lake", nodes[0], q)
	}
}

// waitComplete waits until the lake holds every record of queue: the
// owning node's completeThrough passes the stamp of the queue's last
// record. The owner may change while it waits, so it asks every node.
func waitComplete(t *testing.T, nodes []*node, queue string, partitions ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	last := ""
	for _, p := range partitions {
		recs, _, err := nodes[0].fetchAll(ctx, queue, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			last = max(last, r.Ts) // ISO stamps of one format sort as strings
		}
	}
	var rows []map[string]any
	deadline := time.Now().Add(60 * time.Second)
	for {
		rows = rows[:0]
		for _, n := range nodes {
			if n.cmd == nil {
				continue
			}
			row := n.sinkQueue(queue)
			rows = append(rows, row)
			if ct, _ := row["completeThrough"].(string); ct > last {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the lake of %s is not complete through %s within 60 s: %v", queue, last, rows)
		}
		time.Sleep(200 * time.Millisecond) // the status block is the sink's only window
	}
}

// waitComplete on one node.
func (n *node) waitComplete(t *testing.T, queue string, partitions ...string) {
	t.Helper()
	waitComplete(t, []*node{n}, queue, partitions...)
}

// pushQueues pushes a record to every queue of sinkQueues every 100 ms
// (pushEach).
func pushQueues(ctx context.Context, t *testing.T, alive func() []*node) {
	pushEach(ctx, sinkQueues, alive)
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}
