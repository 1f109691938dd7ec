// Package familytest runs the data-driven scripts of a state-machine
// family (testdata/scripts/*.txt, cockroachdb/datadriven) against one
// node running the family's appliers, with the broker clock in the
// script's hands: every entry is proposed with the clock "at=<seconds>"
// after a base an hour ahead of the wall clock, so stamps (lifetimes,
// delays, expiries) are the script's and the leader's own ticks never
// move them. The scripts' common steps are here too (Tenant, Appliers,
// Labels, Lines, Fields, Args, Stamp, Commit, MustPropose, Answered, Read,
// ReadPage, OrNone), and the codecs' fuzz harness (fuzz.go: FuzzOps,
// FuzzRoundTrip).
package familytest

import (
	"context"
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// Tenant is the tenant of the scripts' calls.
const Tenant = "00000000-0000-0000-0000-000000000001"

// Appliers merges families' appliers into one map, for a node that runs
// them all.
func Appliers(families ...map[raftlog.OpKind]raftlog.Applier) map[raftlog.OpKind]raftlog.Applier {
	out := map[raftlog.OpKind]raftlog.Applier{}
	for _, f := range families {
		maps.Copy(out, f)
	}
	return out
}

// Node is one node of a script run.
type Node struct {
	Shard *raftlog.Shard
	// Base is the stamp "at=0" stands for.
	Base int64
}

// Run runs every script under testdata/scripts on a fresh node each,
// calling cmd for each command with the node.
func Run(t *testing.T, appliers map[raftlog.OpKind]raftlog.Applier, cmd func(t *testing.T, n *Node, d *datadriven.TestData) string) {
	RunWith(t, appliers, func(t *testing.T, n *Node) func(t *testing.T, d *datadriven.TestData) string {
		return func(t *testing.T, d *datadriven.TestData) string { return cmd(t, n, d) }
	})
}

// RunWith is Run for scripts that keep state of their own across their
// commands: setup makes each script's, on its fresh node, and the
// function it returns runs the script's commands.
func RunWith(t *testing.T, appliers map[raftlog.OpKind]raftlog.Applier, setup func(t *testing.T, n *Node) func(t *testing.T, d *datadriven.TestData) string) {
	datadriven.Walk(t, "testdata/scripts", func(t *testing.T, path string) {
		cl := raftlogtest.New(t, 1, appliers)
		cl.StartAll()
		_, shard := cl.Leader()
		cmd := setup(t, &Node{Shard: shard, Base: time.Now().Add(time.Hour).UnixMicro()})
		datadriven.RunTest(t, path, cmd)
	})
}

// Clock is the stamp of the command's "at=<seconds>" (0 when absent).
func (n *Node) Clock(t *testing.T, d *datadriven.TestData) int64 { return n.Stamp(t, d, "at") }

// Stamp is the stamp of the command's argument key, in seconds after the
// base (the base when absent).
func (n *Node) Stamp(t *testing.T, d *datadriven.TestData, key string) int64 {
	var secs float64
	d.MaybeScanArgs(t, key, &secs)
	return n.Base + int64(secs*1e6)
}

// Commit proposes ops (none: an empty entry) as one entry with the
// command's clock and returns its result; an error fails the test.
func (n *Node) Commit(t *testing.T, d *datadriven.TestData, ops ...raftlog.Op) raftlog.Result {
	t.Helper()
	res, err := n.Shard.Propose(Ctx(t), raftlog.Command{Clock: n.Clock(t, d), Ops: ops})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Propose commits op alone with the command's clock and returns its
// answer; refused is the applier's refusal ("" when it applied).
func (n *Node) Propose(t *testing.T, d *datadriven.TestData, op raftlog.Op) (answer []byte, refused string) {
	t.Helper()
	res := n.Commit(t, d, op)
	if why, ok := raftlog.Rejected(res.Ops[0]); ok {
		return nil, why
	}
	return res.Ops[0], ""
}

// Answered proposes op as Propose does and renders what came of it:
// "refused: <why>" when the applier refused it, else show of its answer.
func (n *Node) Answered(t *testing.T, d *datadriven.TestData, op raftlog.Op, show func(answer []byte) string) string {
	t.Helper()
	answer, refused := n.Propose(t, d, op)
	if refused != "" {
		return "refused: " + refused + "\n"
	}
	return show(answer)
}

// MustPropose is Propose of an op the script expects applied: a refusal
// fails the test.
func (n *Node) MustPropose(t *testing.T, d *datadriven.TestData, op raftlog.Op) []byte {
	t.Helper()
	answer, refused := n.Propose(t, d, op)
	if refused != "" {
		t.Fatalf("refused: %s", refused)
	}
	return answer
}

// Read runs fn on the node's applied state; an error fails the test.
func Read[T any](t *testing.T, n *Node, fn func(v *raftlog.View) (T, error)) T {
	t.Helper()
	got, err := n.Shard.LocalRead(func(v *raftlog.View) (any, error) { return fn(v) })
	if err != nil {
		t.Fatal(err)
	}
	return got.(T)
}

// ReadPage is Read of a page: its rows, and whether more follow.
func ReadPage[T any](t *testing.T, n *Node, fn func(v *raftlog.View) ([]T, bool, error)) ([]T, bool) {
	t.Helper()
	type page struct {
		rows []T
		more bool
	}
	p := Read(t, n, func(v *raftlog.View) (page, error) {
		rows, more, err := fn(v)
		return page{rows, more}, err
	})
	return p.rows, p.more
}

// OrNone is a listing's output, or "(none)" when it listed nothing.
func OrNone(out string) string {
	if out == "" {
		return "(none)\n"
	}
	return out
}

// Lines are the command's input lines.
func Lines(d *datadriven.TestData) []string { return strings.Split(strings.TrimSpace(d.Input), "\n") }

// Fields reads an input line "<word> key=value…": it calls set with each
// field and answers the word; a field set does not know (false) fails the
// test.
func Fields(t *testing.T, line string, set func(k, v string) bool) string {
	t.Helper()
	f := strings.Fields(line)
	setFields(t, line, f[1:], set)
	return f[0]
}

// Args reads an input line of fields alone, "key=value…", as Fields
// does.
func Args(t *testing.T, line string, set func(k, v string) bool) {
	t.Helper()
	setFields(t, line, strings.Fields(line), set)
}

func setFields(t *testing.T, line string, fields []string, set func(k, v string) bool) {
	t.Helper()
	for _, kv := range fields {
		if k, v, _ := strings.Cut(kv, "="); !set(k, v) {
			t.Fatalf("unknown field %q in %q", k, line)
		}
	}
}

// Ctx is a context for a call of the script's own, ended at the test's
// end or after 10 s.
func Ctx(t *testing.T) context.Context { return raftlogtest.Ctx(t, 10*time.Second) }

// Secs renders a stamp as seconds after the base ("2.5s").
func (n *Node) Secs(us int64) string {
	return strconv.FormatFloat(float64(us-n.Base)/1e6, 'f', -1, 64) + "s"
}
