package queuelog_test

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
	"github.com/queen-mq/queen-go/testkit/script"
)

// TestScripts runs testdata/scripts/*.txt, each on a fresh one-node
// cluster running the queue log's appliers, with the broker clock in the
// script's hands: every entry is proposed with the clock of its command's
// at=<seconds> after script.Base, so stamps (a record's ts, a queue's and a
// partition's creation, a partition's last write) are the script's. A
// command without at= is stamped one µs after the last entry; one whose
// at= is not after the last stamp fails the test, so at= is always the
// entry's stamp. Times print as seconds after the base ("+10s"), and so
// are before=, ts= and since= given. A partition's id (a UUID derived from
// the log position) prints as #1, #2, … in the order the script first
// sees each; the runner checks that it is a version 8 UUID. tenant=<n>
// picks tenant 00000000-0000-0000-0000-<n as 12 digits>, 1 by default.
//
// Writes, each one entry of one op unless entry groups them:
//
//	push [at=] [tenant=]   a PushOp of the items its input lines give,
//	                       "<queue> <partition> [tx=<id>] [mid=<text>]
//	                       [nodedup] [strict] [trace=<text>] [sub=<name>]
//	                       [payload=<the rest of the line>]" (mid defaults
//	                       to "m:"+tx, raftlogtest.MID); output a line per
//	                       answer "#<item> queued|duplicate|full offset=
//	                       mid= pid=", or "rolled back: item <i> duplicate
//	                       …" for an entry a strict item rolled back, or
//	                       "rejected: …" for an op its applier refused
//	configure queue= [replace] [at=] [tenant=]
//	                       its input line is the options; output the
//	                       options as stored, or "rejected: …"
//	trim queue= [partition=] before=<s> [at=] [tenant=]
//	                       output "deleted <n>" (records), or "rejected: …"
//	sweep queue= partition= [limit=] [at=] [tenant=]
//	                       a DedupSweepOp; output "deleted <n>" (entries)
//	delete queue= [at=] [tenant=]
//	                       a DeleteQueueOp; output its answer
//	entry [at=] [tenant=]  the writes of its input lines, one a line, as
//	                       the ops of one entry ("push <item>", "configure
//	                       queue=… options=<json>", "trim …"): their
//	                       answers in order, or the op that rolled the
//	                       entry back and its answer
//	tick at=               an empty entry: the clock moves; prints its stamp
//
// Reads, on the node's applied state (scriptread_test.go):
//
//	read queue= partition= from= [records=] [bytes=]   ReadRecords
//	offset queue= partition= ts=<s>                    OffsetForTime
//	partitions queue= [since=<s>] [after=] [limit=]    PartitionsChanged
//	queues [all]                                       Queues, AllQueues
//	txoffset queue= partition= tx=                     TransactionOffset
//
// Rewrite the outputs with -rewrite, and read the diff.
func TestScripts(t *testing.T) {
	script.Run(t, "testdata/scripts", func(t *testing.T) func(*testing.T, *script.Case) string {
		_, s := started(t, 1)
		return (&scriptNode{shard: s, pids: map[[16]byte]string{}}).run
	})
}

type scriptNode struct {
	shard *raftlog.Shard
	clock script.Clock
	pids  map[[16]byte]string // partition ids by the label they print as
}

func (n *scriptNode) run(t *testing.T, c *script.Case) string {
	t.Helper()
	switch c.Cmd {
	case "entry":
		return n.entry(t, c)
	case "tick":
		res := n.propose(t, c)
		return "stamp " + script.Secs(res.Stamp) + "\n"
	}
	if op, show, ok := n.writeOp(t, c); ok {
		res := n.propose(t, c, op)
		return shown(res.Ops[0], res.Aborted == 0, show)
	}
	return n.read(t, c, scriptTenant(t, c), c.Args["queue"], c.Args["partition"])
}

// showFunc renders an op's answer; aborted: the op rolled its entry back.
type showFunc func(answer []byte, aborted bool) string

// writeOp is the op of a write command and how its answer prints; ok is
// false for a command that is no write.
func (n *scriptNode) writeOp(t *testing.T, c *script.Case) (op raftlog.Op, show showFunc, ok bool) {
	t.Helper()
	ten, q, p := scriptTenant(t, c), c.Args["queue"], c.Args["partition"]
	switch c.Cmd {
	case "push":
		push := queuelog.PushOp{Tenant: ten, Items: parseItems(t, c)}
		return push.Op(), func(b []byte, aborted bool) string { return n.pushLines(t, c, b, aborted) }, true
	case "configure":
		if len(c.Input) != 1 {
			t.Fatalf("line %d: configure takes one line of options", c.Line)
		}
		_, replace := c.Args["replace"]
		cfg := queuelog.ConfigureOp{Tenant: ten, Queue: q, Replace: replace, Options: []byte(c.Input[0])}
		return cfg.Op(), func(b []byte, _ bool) string { return string(b) + "\n" }, true
	case "trim":
		trim := queuelog.TrimOp{Tenant: ten, Queue: q, Partition: p, Before: script.Time(t, c, "before")}
		return trim.Op(), deletedLine, true
	case "sweep":
		sweep := queuelog.DedupSweepOp{Tenant: ten, Queue: q, Partition: p, Limit: intArg(t, c, "limit", 0)}
		return sweep.Op(), deletedLine, true
	case "delete":
		del := queuelog.DeleteQueueOp{Tenant: ten, Queue: q}
		return del.Op(), func(b []byte, _ bool) string {
			a, err := queuelog.DecodeDeleteQueueAnswer(b)
			if err != nil {
				t.Fatalf("line %d: %v", c.Line, err)
			}
			return fmt.Sprintf("found=%t partitions=%d records=%d\n", a.Found, a.Partitions, a.Records)
		}, true
	}
	return raftlog.Op{}, nil, false
}

// entry proposes the write commands of its input lines as the ops of one
// entry: "<cmd> key=value…" with the case's tenant=, a push's one item
// after its command ("push orders a tx=t1 payload=…") and a configure's
// options after options= ("configure queue=q options={…}"). Output "op
// <i> <cmd>" and its answer per op, or "rolled back by op <i> <cmd>" and
// that op's answer.
func (n *scriptNode) entry(t *testing.T, c *script.Case) string {
	t.Helper()
	subs := make([]script.Case, len(c.Input))
	ops := make([]raftlog.Op, len(c.Input))
	shows := make([]showFunc, len(c.Input))
	for i, line := range c.Input {
		cmd, rest, _ := strings.Cut(line, " ")
		sub := script.Case{Line: c.Line, Cmd: cmd, Args: map[string]string{"tenant": c.Args["tenant"]}}
		switch cmd {
		case "push":
			sub.Input = []string{rest}
		default:
			rest, opts, hasOpts := strings.Cut(rest, "options=")
			if hasOpts {
				sub.Input = []string{opts}
			}
			for _, kv := range strings.Fields(rest) {
				k, v, _ := strings.Cut(kv, "=")
				sub.Args[k] = v
			}
		}
		if c.Args["tenant"] == "" {
			delete(sub.Args, "tenant")
		}
		var ok bool
		if ops[i], shows[i], ok = n.writeOp(t, &sub); !ok {
			t.Fatalf("line %d: %q is no write", c.Line, line)
		}
		subs[i] = sub
	}
	res := n.propose(t, c, ops...)
	if i := res.Aborted; i >= 0 {
		return fmt.Sprintf("rolled back by op %d %s\n", i, subs[i].Cmd) + shown(res.Ops[i], true, shows[i])
	}
	var out strings.Builder
	for i := range ops {
		fmt.Fprintf(&out, "op %d %s\n%s", i, subs[i].Cmd, shown(res.Ops[i], false, shows[i]))
	}
	return out.String()
}

// propose commits ops as one entry at the case's clock.
func (n *scriptNode) propose(t *testing.T, c *script.Case, ops ...raftlog.Op) raftlog.Result {
	t.Helper()
	at := n.clock.Next(t, c)
	res, err := n.shard.Propose(raftlogtest.Ctx(t, testTimeout), raftlog.Command{Clock: at, Ops: ops})
	if err != nil {
		t.Fatal(err)
	}
	n.clock.Stamped(t, c, at, res.Stamp)
	return res
}

// shown is an op's answer as show renders it, or the reason an applier
// refused the op.
func shown(answer []byte, aborted bool, show showFunc) string {
	if why, ok := raftlog.Rejected(answer); ok {
		return "rejected: " + why + "\n"
	}
	return show(answer, aborted)
}

func deletedLine(b []byte, _ bool) string {
	n, _ := binary.Uvarint(b)
	return fmt.Sprintf("deleted %d\n", n)
}

// pushLines renders a push's answer: a line per item, or its rollback.
func (n *scriptNode) pushLines(t *testing.T, c *script.Case, b []byte, aborted bool) string {
	t.Helper()
	if aborted {
		item, orig, err := queuelog.DecodePushRollback(b)
		if err != nil {
			t.Fatalf("line %d: %v", c.Line, err)
		}
		return fmt.Sprintf("rolled back: item %d %s", item, n.answerLine(t, orig))
	}
	as, err := queuelog.DecodePushAnswers(b)
	if err != nil {
		t.Fatalf("line %d: %v", c.Line, err)
	}
	if len(as) != len(c.Input) {
		t.Fatalf("line %d: %d items answered %d", c.Line, len(c.Input), len(as))
	}
	var out strings.Builder
	for i, a := range as {
		fmt.Fprintf(&out, "#%d %s", i, n.answerLine(t, a))
	}
	return out.String()
}

func (n *scriptNode) answerLine(t *testing.T, a queuelog.PushAnswer) string {
	t.Helper()
	status := "queued"
	switch {
	case a.Duplicate:
		status = "duplicate"
	case a.Full:
		status = "full"
	}
	return fmt.Sprintf("%s offset=%d mid=%s pid=%s\n", status, a.Offset, idText(a.MessageID), n.pid(t, a.PartitionID))
}

// pid is the label of a partition id: #1, #2, … in the order first seen.
func (n *scriptNode) pid(t *testing.T, id [16]byte) string {
	t.Helper()
	if id[6]>>4 != 8 || id[8]>>6 != 2 {
		t.Fatalf("partition id %x is not a version 8 UUID", id)
	}
	if l, ok := n.pids[id]; ok {
		return l
	}
	l := "#" + strconv.Itoa(len(n.pids)+1)
	n.pids[id] = l
	return l
}

// parseItems reads a push case's input: one item a line (TestScripts'
// doc).
func parseItems(t *testing.T, c *script.Case) []queuelog.PushItem {
	t.Helper()
	items := make([]queuelog.PushItem, 0, len(c.Input))
	for _, line := range c.Input {
		head, payload, hasPayload := strings.Cut(line, "payload=")
		f := strings.Fields(head)
		if len(f) < 2 {
			t.Fatalf("line %d: an item is \"<queue> <partition> …\": %q", c.Line, line)
		}
		it := queuelog.PushItem{Queue: f[0], Partition: f[1], Dedup: true}
		if hasPayload {
			it.Payload = []byte(payload)
		}
		mid := ""
		for _, kv := range f[2:] {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "tx":
				it.TransactionID = v
			case "mid":
				mid = v
			case "nodedup":
				it.Dedup = false
			case "strict":
				it.Strict = true
			case "trace":
				copy(it.TraceID[:], v)
			case "sub":
				it.ProducerSub = v
			default:
				t.Fatalf("line %d: unknown field %q in %q", c.Line, kv, line)
			}
		}
		if it.MessageID = mid16(mid); mid == "" {
			it.MessageID = raftlogtest.MID(it.TransactionID)
		}
		items = append(items, it)
	}
	return items
}

func mid16(s string) (id [16]byte) {
	copy(id[:], s)
	return id
}

// idText shows an id the script wrote as text ("m:a") as that text, any
// other as hex.
func idText(id [16]byte) string {
	s := strings.TrimRight(string(id[:]), "\x00")
	for _, r := range s {
		if r < '!' || r > '~' {
			return fmt.Sprintf("%x", id)
		}
	}
	return s
}

// scriptTenant is the tenant of tenant=<n> (1 by default).
func scriptTenant(t *testing.T, c *script.Case) string {
	t.Helper()
	n := intArg(t, c, "tenant", 1)
	return fmt.Sprintf("00000000-0000-0000-0000-%012d", n)
}

// intArg reads arg key as an int, def when the case has none.
func intArg(t *testing.T, c *script.Case, key string, def int) int {
	t.Helper()
	v, ok := c.Args[key]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("line %d: %s=%s: %v", c.Line, key, v, err)
	}
	return n
}
