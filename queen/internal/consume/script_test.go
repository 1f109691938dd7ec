package consume_test

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/queen/internal/familytest"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// TestScripts runs testdata/scripts/*.txt (familytest: the clock is the
// script's "at=<seconds>"; times print as seconds after its base, to the
// millisecond) against one node running the queue log and the consuming
// family's appliers. Queue q is the default of every command's queue=…;
// group __QUEUE_MODE__ that of group=…, which pops in mode all, other
// groups in mode new unless they ask (as the broker pops). The pops name their
// leases L1, L2… in the order of the script's pop commands; dead letters
// are D1, D2… in the order they are first listed.
//
//	configure queue=… options=<json>
//	                      the queue's options (merged)
//	push [nodedup]        input: "<partition> <txn>…" per line, payload "<txn>"
//	                      → the offsets the records got
//	trim [partition=…] before=<s>               retention: → records trimmed
//	delete-message partition=… offset=… txn=…   for every group (a popped
//	                      partition's): → 1, or 0 when it deleted nothing
//	pop [partition=…] [group=…] [batch=1] [partitions=1] [ttl=<s>] [skew=<s>]
//	    [autoack] [mode=new|all] [from=<s>] [start=<n>] [conflate]
//	                      → the lease, its end, the next wake, the flags,
//	                        then "<partition>/<offset> <txn> #<attempt> ts=…"
//	ack [group=…] [skew=<s>]
//	                      input: "<status> <partition> <txn> [lease=Ln]
//	                      [group=…] [error=…] [uid=<n>]" per line; → each answer
//	txn [group=…] [required=L1,L2] [release]
//	                      ack's input (plus [count=<n>]): the answers, or
//	                      the rolled back entry's ack index and why
//	extend lease=Ln [for=<s>] [skew=<s>]
//	seek group=… [partition=…] (to=<s> | end)   → partitions moved
//	position              input: "<group> <partition> <offset>|forget
//	                      [meta=…] [mode=all]"; → ok, or the rollback
//	delete group=… [queue=…|*] [keep]           → queues forgotten
//	subscription group=… from=<s>               → queues moved
//	groups [group=…]      the groups of the queue (consume.Groups) at the
//	                      last entry's stamp
//	status group=… partition=… to=<n>           offsets 0…to-1 (StatusOf)
//	letters [group=…]     the queue's dead letters
//	replay id=Dn          Consumer.Replay at the node's clock: the copy
//	                      pushed, the letter taken out (or gone)
//	purge [group=…]       → letters purged
//
// Rewrite the outputs with -rewrite and read the diff.
func TestScripts(t *testing.T) {
	familytest.RunWith(t, consume.Appliers(), func(t *testing.T, n *familytest.Node) func(*testing.T, *datadriven.TestData) string {
		s := &script{n: n, uids: map[string]uint64{}, letters: familytest.NewLabels("D", func(id string) string { return id })}
		return func(t *testing.T, d *datadriven.TestData) string { return s.letters.Relabel(s.run(t, d)) }
	})
}

// script is one script's node and the names it gave.
type script struct {
	n    *familytest.Node
	pops int
	// uids are the partition ids pops answered, by "queue/partition".
	uids map[string]uint64
	// letters labels dead letter ids (D1…).
	letters *familytest.Labels[string]
}

// queueLog is the queue log's part of the scripts, the one place the
// test names raftlog's queue types (raftlog/queuelog's after the move):
// the ops of a configure of queue's options, a push of items and a trim
// of a partition's records stamped before a time, and the offsets of a
// push's answer.
var queueLog = struct {
	configure func(queue string, options []byte) raftlog.Op
	push      func(items []contract.PushItem) raftlog.Op
	trim      func(queue, partition string, before int64) raftlog.Op
	offsets   func(answer []byte) ([]int64, error)
}{
	configure: func(queue string, options []byte) raftlog.Op {
		return (&queuelog.ConfigureOp{Tenant: tenant, Queue: queue, Options: options}).Op()
	},
	push: func(items []contract.PushItem) raftlog.Op {
		return (&queuelog.PushOp{Tenant: tenant, Items: items}).Op()
	},
	trim: func(queue, partition string, before int64) raftlog.Op {
		return (&queuelog.TrimOp{Tenant: tenant, Queue: queue, Partition: partition, Before: before}).Op()
	},
	offsets: func(answer []byte) ([]int64, error) {
		got, err := queuelog.DecodePushAnswers(answer)
		out := make([]int64, len(got))
		for i, a := range got {
			out[i] = a.Offset
		}
		return out, err
	},
}

// arg is a command's argument k, or def.
func arg(t *testing.T, d *datadriven.TestData, k, def string) string {
	v := def
	d.MaybeScanArgs(t, k, &v)
	return v
}

// micros reads a length in seconds as microseconds (0 when absent).
func micros(t *testing.T, d *datadriven.TestData, k string) int64 {
	var secs float64
	d.MaybeScanArgs(t, k, &secs)
	return int64(secs * 1e6)
}

// secs renders a stamp as seconds after the base, to the millisecond: an
// entry proposed at the stamp of the one before it is stamped a
// microsecond later.
func (s *script) secs(us int64) string {
	ms := (us - s.n.Base + 500) / 1000
	return s.n.Secs(s.n.Base + ms*1000)
}

// propose commits ops as one entry at the command's clock.
func (s *script) propose(t *testing.T, d *datadriven.TestData, ops ...raftlog.Op) raftlog.Result {
	t.Helper()
	res := s.n.Commit(t, d, ops...)
	if why, ok := raftlog.Rejected(res.Ops[len(res.Ops)-1]); ok {
		t.Fatalf("refused: %s", why)
	}
	return res
}

func (s *script) run(t *testing.T, d *datadriven.TestData) string {
	queue := arg(t, d, "queue", "q")
	switch d.Cmd {
	case "configure":
		s.propose(t, d, queueLog.configure(queue, []byte(arg(t, d, "options", "{}"))))
		return "ok\n"
	case "push":
		return s.push(t, d, queue)
	case "trim":
		n, _ := binary.Uvarint(s.n.MustPropose(t, d, queueLog.trim(queue, arg(t, d, "partition", ""), s.n.Stamp(t, d, "before"))))
		return fmt.Sprintf("trimmed=%d\n", n)
	case "delete-message":
		var off int64
		d.ScanArgs(t, "offset", &off)
		p := arg(t, d, "partition", "")
		op := consume.DeleteMessageOp{Tenant: tenant, Queue: queue, Partition: p, UID: s.uids[queue+"/"+p], Offset: off,
			TransactionID: arg(t, d, "txn", "")}
		return fmt.Sprintf("deleted=%d\n", s.n.MustPropose(t, d, op.Op())[0])
	case "pop":
		return s.pop(t, d, queue)
	case "ack":
		op := consume.AckOp{Tenant: tenant, SkewMicros: micros(t, d, "skew"), Items: s.items(t, d, nil)}
		return s.answers(t, s.n.MustPropose(t, d, op.Op()))
	case "txn":
		return s.txn(t, d)
	case "extend":
		op := consume.ExtendOp{Tenant: tenant, LeaseID: arg(t, d, "lease", ""), Micros: micros(t, d, "for"), SkewMicros: micros(t, d, "skew")}
		a, err := consume.DecodeExtendAnswer(s.n.MustPropose(t, d, op.Op()))
		if err != nil {
			t.Fatal(err)
		}
		if a.Renewed == 0 {
			return "renewed=0\n"
		}
		return fmt.Sprintf("renewed=%d end=%s\n", a.Renewed, s.secs(a.End))
	case "seek":
		op := consume.SeekOp{Tenant: tenant, Queue: queue, Group: arg(t, d, "group", ""), Partition: arg(t, d, "partition", ""),
			ToEnd: d.HasArg("end"), To: s.n.Stamp(t, d, "to")}
		return s.count(t, d, op.Op(), "moved")
	case "position":
		return s.position(t, d, queue)
	case "delete":
		op := consume.DeleteOp{Tenant: tenant, Queue: queue, Group: arg(t, d, "group", ""), KeepSubscription: d.HasArg("keep")}
		if op.Queue == "*" {
			op.Queue = ""
		}
		return s.count(t, d, op.Op(), "queues")
	case "subscription":
		op := consume.SubscriptionOp{Tenant: tenant, Group: arg(t, d, "group", ""), From: s.n.Stamp(t, d, "from")}
		return s.count(t, d, op.Op(), "queues")
	case "groups":
		return s.groups(t, queue, arg(t, d, "group", ""))
	case "status":
		return s.status(t, d, queue)
	case "letters":
		return s.showLetters(t, queue, arg(t, d, "group", ""))
	case "replay":
		return s.replay(t, d)
	case "purge":
		op := consume.PurgeOp{Tenant: tenant, Queue: queue, Group: arg(t, d, "group", "")}
		return s.count(t, d, op.Op(), "purged")
	}
	t.Fatalf("unknown command %q", d.Cmd)
	return ""
}

// push pushes the input's records in one entry, each line's to its
// partition, and answers their offsets.
func (s *script) push(t *testing.T, d *datadriven.TestData, queue string) string {
	var items []contract.PushItem
	for _, line := range familytest.Lines(d) {
		f := strings.Fields(line)
		for _, txn := range f[1:] {
			var id [16]byte
			copy(id[:], fmt.Sprintf("%s/%s#%d", f[0], txn, len(items)))
			items = append(items, contract.PushItem{Queue: queue, Partition: f[0], TransactionID: txn, MessageID: id,
				Dedup: !d.HasArg("nodedup"), Payload: []byte(strconv.Quote(txn))})
		}
	}
	offsets, err := queueLog.offsets(s.n.MustPropose(t, d, queueLog.push(items)))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for i, it := range items {
		if i == 0 || it.Partition != items[i-1].Partition {
			if i > 0 {
				out.WriteByte('\n')
			}
			out.WriteString(it.Partition + ":")
		}
		fmt.Fprintf(&out, " %s@%d", it.TransactionID, offsets[i])
	}
	out.WriteByte('\n')
	return out.String()
}

// group is the command's group=…, and its default mode.
func group(t *testing.T, d *datadriven.TestData) (string, byte) {
	g := arg(t, d, "group", "__QUEUE_MODE__")
	mode := consume.ModeNew
	if g == "__QUEUE_MODE__" || arg(t, d, "mode", "new") == "all" {
		mode = consume.ModeAll
	}
	return g, mode
}

func (s *script) pop(t *testing.T, d *datadriven.TestData, queue string) string {
	s.pops++
	g, mode := group(t, d)
	batch, parts, start := 1, 1, 0
	d.MaybeScanArgs(t, "batch", &batch)
	d.MaybeScanArgs(t, "partitions", &parts)
	d.MaybeScanArgs(t, "start", &start)
	op := consume.PopOp{Tenant: tenant, Queue: queue, Group: g, Partition: arg(t, d, "partition", ""), Start: uint64(start),
		Batch: batch, MaxPartitions: parts, LeaseMicros: micros(t, d, "ttl"), SkewMicros: micros(t, d, "skew"),
		LeaseID: fmt.Sprintf("L%d", s.pops), AutoAck: d.HasArg("autoack"), Mode: mode, Conflate: d.HasArg("conflate")}
	if d.HasArg("from") {
		op.From = s.n.Stamp(t, d, "from")
	}
	res, err := consume.DecodePopResult(s.n.MustPropose(t, d, op.Op()))
	if err != nil {
		t.Fatal(err)
	}
	var head []string
	if res.LeaseID != "" {
		head = append(head, "lease="+res.LeaseID, "end="+s.secs(res.End))
	}
	if len(res.Parts) == 0 {
		head = append(head, "nothing")
	}
	if res.NextAt != 0 {
		head = append(head, "next="+s.secs(res.NextAt))
	}
	if res.Conflation {
		head = append(head, "conflation")
	}
	if res.Conflict {
		head = append(head, "conflict")
	}
	out := strings.Join(head, " ")
	if out != "" {
		out += "\n"
	}
	for _, p := range res.Parts {
		s.uids[queue+"/"+p.Partition] = p.UID
		for _, m := range p.Messages {
			out += fmt.Sprintf("%s/%d %s #%d ts=%s\n", p.Partition, m.Offset, m.TransactionID, m.Attempt, s.secs(m.Ts))
		}
	}
	return out
}

var statuses = map[string]byte{"completed": consume.StatusCompleted, "failed": consume.StatusFailed,
	"retry": consume.StatusRetry, "dlq": consume.StatusDLQ}

// items reads the ack lines of the input; counts, when not nil, gets
// each line's count=… (0 when absent).
func (s *script) items(t *testing.T, d *datadriven.TestData, counts *[]int) []consume.AckItem {
	def, _ := group(t, d)
	queue := arg(t, d, "queue", "q")
	var out []consume.AckItem
	for _, line := range familytest.Lines(d) {
		f := strings.Fields(line)
		if len(f) < 3 {
			t.Fatalf("bad ack line %q", line)
		}
		st, ok := statuses[f[0]]
		if !ok {
			t.Fatalf("unknown status %q", f[0])
		}
		it := consume.AckItem{TransactionID: f[2], PartitionUID: s.uids[queue+"/"+f[1]], Group: def, Status: st}
		count := 0
		familytest.Fields(t, strings.Join(append([]string{f[0]}, f[3:]...), " "), func(k, v string) bool {
			switch k {
			case "lease":
				it.LeaseID = v
			case "group":
				it.Group = v
			case "error":
				it.Error = v
			case "uid":
				it.PartitionUID, _ = strconv.ParseUint(v, 10, 64)
			case "count":
				count, _ = strconv.Atoi(v)
				return counts != nil
			default:
				return false
			}
			return true
		})
		if counts != nil {
			*counts = append(*counts, count)
		}
		out = append(out, it)
	}
	return out
}

// answers renders an ack call's answers, one per line.
func (s *script) answers(t *testing.T, b []byte) string {
	got, err := consume.DecodeAckAnswers(b)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, a := range got {
		if !a.OK {
			fmt.Fprintf(&out, "refused: %s\n", a.Error)
			continue
		}
		out.WriteString("ok")
		for _, f := range []struct {
			on   bool
			name string
		}{{a.Noop, "noop"}, {a.DLQ, "dlq"}, {a.Released, "released"}} {
			if f.on {
				out.WriteString(" " + f.name)
			}
		}
		out.WriteByte('\n')
	}
	return out.String()
}

// count proposes an op that answers a count.
func (s *script) count(t *testing.T, d *datadriven.TestData, op raftlog.Op, what string) string {
	n, size := binary.Uvarint(s.n.MustPropose(t, d, op))
	if size <= 0 {
		t.Fatal("not a count")
	}
	return fmt.Sprintf("%s=%d\n", what, n)
}
