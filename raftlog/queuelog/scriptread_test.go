package queuelog_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/testkit/script"
)

// read answers TestScripts' read commands on the node's applied state.
func (n *scriptNode) read(t *testing.T, c *script.Case, ten, q, p string) string {
	t.Helper()
	var out strings.Builder
	_, err := n.shard.LocalRead(func(v *raftlog.View) (any, error) {
		switch c.Cmd {
		case "read":
			lim := queuelog.ReadLimits{MaxRecords: intArg(t, c, "records", 0), MaxBytes: intArg(t, c, "bytes", 0)}
			b, err := queuelog.ReadRecords(v, ten, q, p, int64(intArg(t, c, "from", 0)), lim)
			for _, r := range b.Records {
				fmt.Fprintf(&out, "%d ts=%s tx=%s mid=%s", r.Offset, script.Secs(r.Ts), r.TransactionID, idText(r.MessageID))
				if r.TraceID != [16]byte{} {
					fmt.Fprintf(&out, " trace=%s", idText(r.TraceID))
				}
				if r.ProducerSub != "" {
					fmt.Fprintf(&out, " sub=%s", r.ProducerSub)
				}
				fmt.Fprintf(&out, " payload=%s\n", r.Payload)
			}
			if err != nil {
				fmt.Fprintf(&out, "error: %v\n", err)
			}
			if !errors.Is(err, queuelog.ErrUnknownPartition) {
				fmt.Fprintf(&out, "hw=%d logStart=%d\n", b.HighWatermark, b.LogStart)
			}
		case "offset":
			a, err := queuelog.OffsetForTime(v, ten, q, p, script.Time(t, c, "ts"))
			switch {
			case err != nil:
				fmt.Fprintf(&out, "error: %v\n", err)
			case a.Found:
				fmt.Fprintf(&out, "offset=%d ts=%s hw=%d logStart=%d\n", a.Offset, script.Secs(a.Stamp), a.HighWatermark, a.LogStart)
			default:
				fmt.Fprintf(&out, "none hw=%d logStart=%d\n", a.HighWatermark, a.LogStart)
			}
		case "partitions":
			n.partitions(t, c, v, &out, ten, q)
		case "queues":
			n.queues(t, c, v, &out, ten)
		case "txoffset":
			info, err := queuelog.Partition(v, ten, q, p)
			if err != nil {
				fmt.Fprintf(&out, "error: %v\n", err)
				break
			}
			off, ok, err := queuelog.TransactionOffset(v, info.UID, c.Args["tx"])
			switch {
			case err != nil:
				t.Fatalf("line %d: %v", c.Line, err)
			case ok:
				fmt.Fprintf(&out, "offset=%d\n", off)
			default:
				out.WriteString("none\n")
			}
		default:
			t.Fatalf("line %d: unknown command %q", c.Line, c.Cmd)
		}
		return nil, nil
	})
	if err != nil {
		t.Fatalf("line %d: %v", c.Line, err)
	}
	return out.String()
}

// partitions prints a page of PartitionsChanged: a line per partition,
// then the next cursor.
func (n *scriptNode) partitions(t *testing.T, c *script.Case, v *raftlog.View, out *strings.Builder, ten, q string) {
	t.Helper()
	since := int64(math.MinInt64)
	if _, ok := c.Args["since"]; ok {
		since = script.Time(t, c, "since")
	}
	parts, next, err := queuelog.PartitionsChanged(v, ten, q, since, uint64(intArg(t, c, "after", 0)), intArg(t, c, "limit", 100))
	if err != nil {
		fmt.Fprintf(out, "error: %v\n", err)
		return
	}
	for _, p := range parts {
		fmt.Fprintf(out, "%s pid=%s uid=%d seq=%d last=%d logStart=%d dedupFrom=%d created=%s lastWrite=%s\n",
			p.Name, n.pid(t, p.ID), p.UID, p.Seq, p.LastOffset, p.LogStart, p.DedupFrom, script.Secs(p.Created), lastWrite(p.LastWrite))
	}
	fmt.Fprintf(out, "next=%d\n", next)
}

// lastWrite shows a partition's last write, "none" for one never written.
func lastWrite(us int64) string {
	if us == 0 {
		return "none"
	}
	return script.Secs(us)
}

// queues prints the tenant's queues (Queues), or every tenant's with all
// (AllQueues), a line each.
func (n *scriptNode) queues(t *testing.T, c *script.Case, v *raftlog.View, out *strings.Builder, ten string) {
	t.Helper()
	line := func(prefix string, q queuelog.QueueInfo) {
		fmt.Fprintf(out, "%s%s created=%s partitions=%d options=%s\n", prefix, q.Name, script.Secs(q.Created), q.Partitions, q.Options)
	}
	if _, all := c.Args["all"]; all {
		qs, err := queuelog.AllQueues(v)
		if err != nil {
			t.Fatalf("line %d: %v", c.Line, err)
		}
		for _, q := range qs {
			line(q.Tenant+" ", q.QueueInfo)
		}
	} else {
		qs, err := queuelog.Queues(v, ten)
		if err != nil {
			t.Fatalf("line %d: %v", c.Line, err)
		}
		for _, q := range qs {
			line("", q)
		}
	}
	if out.Len() == 0 {
		out.WriteString("none\n")
	}
}
