// Package familytest runs the data-driven scripts of a state-machine
// family (testdata/scripts/*.txt, cockroachdb/datadriven) against one
// node running the family's appliers, with the broker clock in the
// script's hands: every entry is proposed with the clock "at=<seconds>"
// after a base an hour ahead of the wall clock, so stamps (lifetimes,
// delays, expiries) are the script's and the leader's own ticks never
// move them.
package familytest

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// Node is one node of a script run.
type Node struct {
	Shard *raftlog.Shard
	// Base is the stamp "at=0" stands for.
	Base int64
}

// Run runs every script under testdata/scripts on a fresh node each,
// calling cmd for each command with the node.
func Run(t *testing.T, appliers map[raftlog.OpKind]raftlog.Applier, cmd func(t *testing.T, n *Node, d *datadriven.TestData) string) {
	datadriven.Walk(t, "testdata/scripts", func(t *testing.T, path string) {
		cl := raftlogtest.New(t, 1, appliers)
		cl.StartAll()
		_, shard := cl.Leader()
		n := &Node{Shard: shard, Base: time.Now().Add(time.Hour).UnixMicro()}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string { return cmd(t, n, d) })
	})
}

// Clock is the stamp of the command's "at=<seconds>" (0 when absent).
func (n *Node) Clock(t *testing.T, d *datadriven.TestData) int64 {
	var at float64
	d.MaybeScanArgs(t, "at", &at)
	return n.Base + int64(at*1e6)
}

// Propose commits op alone with the command's clock and returns its
// answer; refused is the applier's refusal ("" when it applied).
func (n *Node) Propose(t *testing.T, d *datadriven.TestData, op raftlog.Op) (answer []byte, refused string) {
	t.Helper()
	res, err := n.Shard.Propose(Ctx(t), raftlog.Command{Clock: n.Clock(t, d), Ops: []raftlog.Op{op}})
	if err != nil {
		t.Fatal(err)
	}
	if why, ok := raftlog.Rejected(res.Ops[0]); ok {
		return nil, why
	}
	return res.Ops[0], ""
}

// Ctx is a context for a call of the script's own, ended at the test's
// end or after 10 s.
func Ctx(t *testing.T) context.Context { return raftlogtest.Ctx(t, 10*time.Second) }

// Secs renders a stamp as seconds after the base ("2.5s").
func (n *Node) Secs(us int64) string {
	return strconv.FormatFloat(float64(us-n.Base)/1e6, 'f', -1, 64) + "s"
}
