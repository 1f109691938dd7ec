package e2e

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// What the fault tests of locks and timers share: the set of live nodes a
// client may call, the one error that proves a call was never sent, the
// agreed read of a partition after the run, and the violations a checker
// returns instead of failing a test itself (so that its own tests can feed
// it doctored histories and look at what it found).

// liveSet is the nodes clients may call: a node leaves it before it is
// killed and comes back once it is ready again.
type liveSet struct {
	mu    sync.Mutex
	nodes []*node
}

func newLiveSet(nodes []*node) *liveSet { return &liveSet{nodes: append([]*node(nil), nodes...)} }

func (l *liveSet) list() []*node {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*node(nil), l.nodes...)
}

func (l *liveSet) remove(n *node) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.nodes = slices.DeleteFunc(l.nodes, func(x *node) bool { return x == n })
}

func (l *liveSet) add(n *node) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !slices.Contains(l.nodes, n) {
		l.nodes = append(l.nodes, n)
	}
}

// killLeader kills the node that leads with SIGKILL, after taking it out of
// the live set, and returns it.
func killLeader(t *testing.T, nodes []*node, live *liveSet, t0 time.Time) *node {
	t.Helper()
	leader, _ := leaderOf(t, nodes)
	live.remove(leader)
	leader.signal(syscall.SIGKILL)
	t.Logf("killed leader %d with SIGKILL at %.3fs", leader.id, time.Since(t0).Seconds())
	return leader
}

// restart starts a killed node, waits until it is ready and puts it back
// in the live set.
func restart(t *testing.T, n *node, live *liveSet, t0 time.Time) {
	t.Helper()
	n.start()
	n.waitReady()
	live.add(n)
	t.Logf("node %d back at %.3fs", n.id, time.Since(t0).Seconds())
}

// notSent reports whether a call failed before its request could reach a
// node (the dial was refused: the node is down). Such a call applied
// nothing, so it may be sent again elsewhere without being an attempt of
// unknown outcome. Every other failure leaves the outcome unknown.
func notSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// readAgreed reads a partition from every node once each holds it up to
// the greatest high watermark any of them shows, checks that they hold the
// same records, gapless from offset 0, and returns them.
func readAgreed(t *testing.T, nodes []*node, queue, partition string) []fetchRecord {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var end int64
	for _, n := range nodes {
		_, hwm, err := n.fetchAll(ctx, queue, partition)
		if err != nil {
			t.Fatalf("node %d: %v", n.id, err)
		}
		end = max(end, hwm)
	}
	var ref []fetchRecord
	for i, n := range nodes {
		if err := n.waitHighWatermark(ctx, queue, partition, end); err != nil {
			t.Fatal(err)
		}
		recs, hwm, err := n.fetchAll(ctx, queue, partition)
		if err != nil {
			t.Fatalf("node %d: %v", n.id, err)
		}
		for j, r := range recs {
			if r.Offset != int64(j) {
				t.Fatalf("node %d %s/%s: record %d has offset %d: a gap", n.id, queue, partition, j, r.Offset)
			}
		}
		if int64(len(recs)) != hwm {
			t.Fatalf("node %d %s/%s: %d records, high watermark %d", n.id, queue, partition, len(recs), hwm)
		}
		if i == 0 {
			ref = recs
			continue
		}
		if len(recs) != len(ref) {
			t.Fatalf("node %d %s/%s holds %d records, node %d %d", n.id, queue, partition, len(recs), nodes[0].id, len(ref))
		}
		for j := range recs {
			a, b := recs[j], ref[j]
			if a.TransactionID != b.TransactionID || string(a.Payload) != string(b.Payload) || a.Ts != b.Ts {
				t.Fatalf("node %d %s/%s offset %d is %+v, node %d has %+v", n.id, queue, partition, j, a, nodes[0].id, b)
			}
		}
	}
	return ref
}

// countTimers answers how many timers of a queue are pending (a
// linearizable read).
func (n *node) countTimers(ctx context.Context, queue string) (int64, error) {
	var out struct {
		Count *int64 `json:"count"`
	}
	if _, err := n.call(ctx, http.MethodGet, "/api/v1/timers/"+queue+"?mode=count", nil, &out); err != nil {
		return 0, err
	}
	if out.Count == nil {
		return 0, fmt.Errorf("count of %s answered no count", queue)
	}
	return *out.Count, nil
}

// violations is what a checker found, by kind, in the order it found them.
type violations map[string][]string

func (v violations) add(kind, format string, args ...any) {
	v[kind] = append(v[kind], fmt.Sprintf(format, args...))
}

func (v violations) total() int {
	n := 0
	for _, l := range v {
		n += len(l)
	}
	return n
}

// kinds lists the kinds found, sorted.
func (v violations) kinds() []string {
	var out []string
	for k := range v {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// wantVerdict is a doctored-history test's verdict on what a checker
// found in it: nothing when want is "", else at least one violation of
// kind want; and the note of kind note when note is not "". It logs the
// first of each kind found.
func (v violations) wantVerdict(t *testing.T, notes violations, want, note string) {
	t.Helper()
	switch {
	case want == "" && v.total() != 0:
		t.Fatalf("found violations in a history that allows it: %v", v)
	case want != "" && len(v[want]) == 0:
		t.Fatalf("missed the %s: found %v", want, v)
	case note != "" && len(notes[note]) == 0:
		t.Fatalf("no note %q: notes %v, violations %v", note, notes, v)
	}
	for _, k := range v.kinds() {
		t.Logf("%s: %s", k, v[k][0])
	}
}

// report fails t with the first five of each kind and the count of each.
func (v violations) report(t *testing.T) {
	t.Helper()
	for _, k := range v.kinds() {
		for i, s := range v[k] {
			if i == 5 {
				break
			}
			t.Errorf("%s: %s", k, s)
		}
		if len(v[k]) > 5 {
			t.Errorf("%s: %d violations in all", k, len(v[k]))
		}
	}
}

// verdict ends a fault run: it logs the checker's summary, the calls of
// unknown outcome under header, one a line, and the notes, then fails t
// with the violations.
func verdict(t *testing.T, summary, header string, unknown []string, v, notes violations) {
	t.Helper()
	t.Log(summary)
	t.Logf("%s:\n\t%s", header, strings.Join(unknown, "\n\t"))
	notes.log(t, "notes")
	v.report(t)
}

// log writes every kind of v to the test log (notes, not failures).
func (v violations) log(t *testing.T, what string) {
	t.Helper()
	for _, k := range v.kinds() {
		t.Logf("%s: %d %s, the first: %s", k, len(v[k]), what, strings.Join(v[k][:min(3, len(v[k]))], "; "))
	}
}

// parseStamp reads a stamp the broker renders (ISO-8601 UTC, 6 fractional
// digits, Z).
func parseStamp(s string) (time.Time, error) { return time.Parse(time.RFC3339Nano, s) }

// secs renders a real time relative to t0, for histories.
func secs(t0, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return fmt.Sprintf("%.3fs", t.Sub(t0).Seconds())
}

// unknownTally describes attempts of unknown outcome: how many failed
// which way (the error's gist) and the longest such attempt took.
type unknownTally struct {
	n        int
	kinds    map[string]int
	examples []string // the first error of each gist
	longest  time.Duration
}

func (u *unknownTally) add(err string, took time.Duration) {
	if u.kinds == nil {
		u.kinds = map[string]int{}
	}
	u.n++
	u.longest = max(u.longest, took)
	gist := err
	switch {
	case strings.Contains(err, `"timeout"`), strings.Contains(err, "deadline passed"):
		gist = "503 timeout"
	case strings.Contains(err, ": 503 "):
		gist = "503"
	case strings.Contains(err, "EOF"), strings.Contains(err, "reset"):
		gist = "connection lost"
	case strings.Contains(err, "deadline"), strings.Contains(err, "Timeout"):
		gist = "no answer within 10 s"
	}
	if u.kinds[gist]++; u.kinds[gist] == 1 && gist != err {
		u.examples = append(u.examples, fmt.Sprintf("%.160s", err))
	}
}

func (u *unknownTally) String() string {
	if u.n == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(u.kinds)) {
		parts = append(parts, fmt.Sprintf("%d %s", u.kinds[k], k))
	}
	return fmt.Sprintf("%d (%s; the longest took %v; e.g. %s)", u.n, strings.Join(parts, ", "), u.longest.Round(time.Millisecond), strings.Join(u.examples, " | "))
}
