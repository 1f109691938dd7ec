package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/s3sink/s3test"
)

// The sink's figures of TestSinkLeaderLoss: every one of its bounds is
// derived from them.
const (
	leaderTTL    = 3 * time.Second        // QUEEN_S3_LEASE_TTL_MS
	leaderWindow = 2 * time.Second        // QUEEN_S3_MAX_WINDOW_MS
	leaderGuard  = 500 * time.Millisecond // QUEEN_S3_SAFE_GUARD_MS
	// failover is how long a queue may go without an owner that commits:
	// the lease runs out (one TTL), the presence row of the lost node too
	// (the share grows only then), a look every third of the TTL, the
	// claim pacing (at most half the TTL) and a restore.
	failover = 3*leaderTTL + 2*time.Second
	// slowCall is a KV call past its deadline (a sixth of the TTL, at
	// least 500 ms), with room for a busy machine: a bucket of the
	// queen_s3_kv_call_seconds histogram.
	slowCall = "2.5"
)

var leaderQueues = []string{"q0", "q1", "q2", "q3", "q4", "q5"}

// sinkRows returns a node's queue rows from /status by name, or nil when
// it does not answer within a second (a stopped process).
func (n *node) sinkRows() map[string]map[string]any {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	sink := n.firstSink(ctx)
	if sink == nil {
		return nil
	}
	out := map[string]map[string]any{}
	for _, q := range sink.Queues {
		name, _ := q["name"].(string)
		out[name] = q
	}
	return out
}

// placement returns the placement block of a node's sink status.
func (n *node) placement() map[string]any {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	sink := n.firstSink(ctx)
	if sink == nil {
		return nil
	}
	return sink.Placement
}

// metric sums the samples of a node's exposition whose line starts with
// prefix and holds every one of parts.
func (n *node) metric(t *testing.T, prefix string, parts ...string) float64 {
	t.Helper()
	body := n.exposition(t)
	total := 0.0
next:
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		for _, p := range parts {
			if !strings.Contains(line, p) {
				continue next
			}
		}
		var v float64
		fmt.Sscanf(line[strings.LastIndexByte(line, ' ')+1:], "%g", &v)
		total += v
	}
	return total
}

// slowKVCalls counts the sink's KV calls of a node that took longer than
// slowCall seconds.
func (n *node) slowKVCalls(t *testing.T) float64 {
	return n.metric(t, "queen_s3_kv_call_seconds_count") - n.metric(t, "queen_s3_kv_call_seconds_bucket", `le="`+slowCall+`"`)
}

// ownership watches who reports each queue as owned, poll after poll: a
// queue two nodes report in two polls running has two owners (a single
// poll may catch a hand-over between its two answers).
type ownership struct {
	t     *testing.T
	twice map[string]bool // queues two nodes reported in the last poll
	worst map[string]string
	// lake is, per queue, the newest completeThrough an owner reported.
	lake       map[string]time.Time
	worstStale time.Duration // the most a lake was seen behind the wall clock
}

func newOwnership(t *testing.T) *ownership {
	return &ownership{t: t, twice: map[string]bool{}, worst: map[string]string{}, lake: map[string]time.Time{}}
}

// poll asks every node of nodes for its rows and checks them: one owner
// reported per queue, and an owner's lag that is what the lake holds
// against the broker's clock now, within the tick and the guard.
func (o *ownership) poll(nodes []*node) {
	t := o.t
	owners := map[string][]int{}
	for _, n := range nodes {
		asked := time.Now()
		rows := n.sinkRows()
		for name, row := range rows {
			if row["ownedHere"] != true {
				continue
			}
			owners[name] = append(owners[name], n.id)
			ct, _ := row["completeThrough"].(string)
			st, _ := row["safeTime"].(string)
			lag, _ := row["lagSeconds"].(float64)
			if ct == "" || st == "" {
				continue
			}
			ctT, _ := time.Parse(time.RFC3339Nano, ct)
			stT, _ := time.Parse(time.RFC3339Nano, st)
			if ctT.After(o.lake[name]) {
				o.lake[name] = ctT
			}
			// The reported lag is the broker's clock, now, minus what the
			// lake holds: the safeTime shown is at most a tick (200 ms)
			// and a poll behind the moment of asking.
			if behind := asked.Sub(stT); behind > 1500*time.Millisecond {
				t.Errorf("node %d reports %s with safeTime %s, %v before it was asked: its lag %.3f s stands still", n.id, name, st, behind, lag)
			}
			if want := stT.Sub(ctT).Seconds(); lag < want-0.001 {
				t.Errorf("node %d reports %s lagging %.3f s; safeTime minus completeThrough is %.3f s", n.id, name, lag, want)
			}
		}
	}
	twice := map[string]bool{}
	for name, ids := range owners {
		if len(ids) > 1 {
			if o.twice[name] {
				o.worst[name] = fmt.Sprint(ids)
			}
			twice[name] = true
		}
	}
	o.twice = twice
}

// stale checks that no queue's lake is further behind the wall clock than
// a window, the guard and a failover.
func (o *ownership) stale(queues []string) {
	bound := leaderWindow + leaderGuard + failover
	for _, q := range queues {
		if at, ok := o.lake[q]; ok {
			o.worstStale = max(o.worstStale, time.Since(at))
		}
		if at, ok := o.lake[q]; ok && time.Since(at) > bound {
			o.t.Errorf("the lake of %s holds nothing past %s, %v ago: more than a window, the guard and a failover (%v)",
				q, at.Format(time.RFC3339Nano), time.Since(at).Round(time.Millisecond), bound)
			o.lake[q] = time.Now() // one report per stall
		}
	}
}

func (o *ownership) check() {
	for q, ids := range o.worst {
		o.t.Errorf("queue %s was reported owned by nodes %s in two polls running", q, ids)
	}
}

// TestSinkLeaderLoss: six queues on three nodes, under load. The first
// claims keep to the fair share; when the raft leader stops (SIGSTOP),
// the sink's KV calls end within their deadlines and go on with the new
// leader, every queue keeps one reported owner, the lag is the broker's
// clock minus what the lake holds, and no lake falls further behind than a
// window, the guard and a failover; a SIGTERM during such a stall drains
// and exits within seconds. The lake ends exact.
func TestSinkLeaderLoss(t *testing.T) {
	if testing.Short() {
		t.Skip("three processes and two leader stalls; run without -short")
	}
	gw := s3test.Versitygw(t)
	gw.Bucket(t, "lake")
	nodes := cluster(t, 3, sinkEnv(gw, "lake", "QUEEN_S3_QUEUES="+strings.Join(leaderQueues, ","),
		fmt.Sprintf("QUEEN_S3_LEASE_TTL_MS=%d", leaderTTL.Milliseconds()),
		fmt.Sprintf("QUEEN_S3_MAX_WINDOW_MS=%d", leaderWindow.Milliseconds()),
		fmt.Sprintf("QUEEN_S3_SAFE_GUARD_MS=%d", leaderGuard.Milliseconds()))...)
	startAll(nodes)
	var mu sync.Mutex
	live := append([]*node(nil), nodes...)
	alive := func() []*node { mu.Lock(); defer mu.Unlock(); return append([]*node(nil), live...) }
	without := func(xs ...*node) []*node {
		var out []*node
	outer:
		for _, n := range nodes {
			for _, x := range xs {
				if n == x {
					continue outer
				}
			}
			out = append(out, n)
		}
		return out
	}
	setLive := func(ns []*node) { mu.Lock(); live = ns; mu.Unlock() }
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); pushEach(ctx, leaderQueues, alive) }()
	defer func() { stop(); wg.Wait() }()

	// The first claims keep to the fair share: two queues a node, at every
	// poll, until every queue has its owner.
	deadline := time.Now().Add(60 * time.Second)
	for {
		counts, total := map[int]int{}, 0
		for _, n := range nodes {
			for _, row := range n.sinkRows() {
				if row["ownedHere"] == true {
					counts[n.id]++
					total++
				}
			}
		}
		for id, c := range counts {
			if c > 2 {
				var placement []string
				for _, n := range nodes {
					placement = append(placement, fmt.Sprintf("node %d: %v", n.id, n.placement()))
				}
				t.Fatalf("node %d runs %d of the 6 queues before every node took its share (2): %v; %s", id, c, counts, strings.Join(placement, "; "))
			}
		}
		if total == 6 && len(counts) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the 6 queues not spread two a node within 60 s: %v", counts)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, q := range leaderQueues {
		ownerOfIn(t, nodes, leaderQueues, q).waitCommitted(t, q, 1)
	}

	// Stop the raft leader for twice the TTL; watch the other two nodes.
	own := newOwnership(t)
	own.poll(nodes) // what each lake holds before the stall
	leader, followers := leaderOf(t, nodes)
	setLive(followers)
	if err := syscall.Kill(leader.cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(2*leaderTTL + 2*time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		own.poll(followers)
		own.stale(leaderQueues)
	}
	if err := syscall.Kill(leader.cmd.Process.Pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	setLive(nodes)
	// Resumed, the old leader knows its leases ran out: it reports none of
	// its queues as its own, while the others go on.
	for end := time.Now().Add(2 * leaderTTL); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		own.poll(nodes)
		own.stale(leaderQueues)
	}
	own.check()
	for _, n := range followers {
		if n.metric(t, "queen_s3_kv_call_seconds_count") == 0 {
			t.Errorf("node %d counts no sink KV calls on queen_s3_kv_call_seconds", n.id)
		}
		if slow := n.slowKVCalls(t); slow > 0 {
			t.Errorf("node %d: %v sink KV calls took longer than %s s while the leader was stopped", n.id, slow, slowCall)
		}
	}

	// Stop the leader again, and SIGTERM a node that runs queues during
	// the stall: the drain ends within seconds of the new leader.
	leader2, followers2 := leaderOf(t, nodes)
	var term *node
	for _, n := range followers2 {
		for _, row := range n.sinkRows() {
			if row["ownedHere"] == true {
				term = n
			}
		}
	}
	if term == nil {
		t.Fatal("no follower runs a queue")
	}
	setLive(without(leader2, term))
	if err := syscall.Kill(leader2.cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	st := term.signal(syscall.SIGTERM)
	took := time.Since(began)
	if err := syscall.Kill(leader2.cmd.Process.Pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	setLive(without(term))
	t.Logf("SIGTERM during a leader stall: exit after %v; the lake at most %v behind the wall clock", took.Round(time.Millisecond), own.worstStale.Round(time.Millisecond))
	// The broker itself waits for its requests in flight (a push stalled
	// on the stopped leader ends at QUEEN_STMT_TIMEOUT_MS, 5 s).
	if limit := 5*time.Second + leaderTTL; took > limit || st.ExitCode() != 0 {
		t.Errorf("SIGTERM during a leader stall: exit %d after %v (more than %v)", st.ExitCode(), took.Round(time.Millisecond), limit)
	}
	if strings.Contains(term.log(), "drain cut short") {
		t.Errorf("SIGTERM during a leader stall cut the drain short:\n%s", term.log())
	}

	stop()
	wg.Wait()
	rest := without(term)
	for _, q := range leaderQueues {
		waitComplete(t, rest, q, "p-0", "p-1", "p-2", "p-3")
		verifyLake(t, gw, "lake", rest[0], q)
	}
}

// ownerOfIn returns the node that runs queue, waiting until one does.
func ownerOfIn(t *testing.T, nodes []*node, queues []string, queue string) *node {
	var owner *node
	waitFor(t, "an owner of "+queue, 60*time.Second, func() bool {
		for _, n := range nodes {
			if n.cmd == nil {
				continue
			}
			if row := n.sinkRows()[queue]; row != nil && row["ownedHere"] == true {
				owner = n
				return true
			}
		}
		return false
	})
	return owner
}

// pushEach pushes a record to every queue every 100 ms, on the partitions
// p-0..p-3 in turn, with transaction ids, retrying each push on any live
// node until it is answered.
func pushEach(ctx context.Context, queues []string, alive func() []*node) {
	for i := 0; ctx.Err() == nil; i++ {
		var items []pushItem
		for _, q := range queues {
			items = append(items, pushItem{Queue: q, Partition: fmt.Sprintf("p-%d", i%4), TransactionID: fmt.Sprintf("%s-%d", q, i),
				Payload: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))})
		}
		for attempt := 0; ; attempt++ {
			ns := alive()
			pctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_, err := ns[attempt%len(ns)].push(pctx, items...)
			cancel()
			if err == nil || attempt > 200 {
				break
			}
			time.Sleep(50 * time.Millisecond) // back off, as a client does
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}
