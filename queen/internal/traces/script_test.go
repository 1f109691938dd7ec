package traces_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/queen/internal/familytest"
	"github.com/queen-mq/queen-go/queen/internal/traces"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// TestScripts runs testdata/scripts/*.txt (familytest: the clock is the
// script's "at=<seconds>"; times print as seconds after its base) against
// one node running the queue log's, consume's and the traces family's
// appliers:
//
//	push at=<s> queue=… partition=… txn=…   one record ({})
//	pop at=<s> queue=… partition=… [group=…]
//	                  a pop: the partition's id (uid) and the txns leased
//	record at=<s> [tenant=…]
//	                  one entry of records, one per input line:
//	                  "uid=<n> txn=… [group=…] [type=…] [names=a,b] [ttl=<s>] data=<json>|data=<n>B"
//	                  (<n>B: a JSON string of n bytes, or a value of n
//	                  bytes); each answers its id
//	                  (created s #op), expiry and partition, or its refusal
//	message [tenant=…] uid=<n> txn=… [limit=<n>]
//	by-name [tenant=…] name=… [from=<s>] [to=<s>] [offset=<n>] [limit=<n>]
//	names [tenant=…] [search=…] [after=…] [limit=<n>]
//	                  the reads, on this node's applied state
//	tick at=<s>       an empty entry: the clock moves, nothing is swept
//	sweep at=<s> [limit=<n>]
//	                  one sweep entry: what it deleted
//	due               the earliest expiry stored, and whether it is due
func TestScripts(t *testing.T) {
	familytest.Run(t, familytest.Appliers(consume.Appliers(), traces.Appliers()), func(t *testing.T, n *familytest.Node, d *datadriven.TestData) string {
		var out strings.Builder
		ten := familytest.Tenant
		d.MaybeScanArgs(t, "tenant", &ten)
		printEvents := func(evs []traces.Event) {
			for _, e := range evs {
				fmt.Fprintf(&out, "%s #%d uid=%d txn=%s %s group=%s type=%s names=%v expires=%s data=%s\n",
					n.Secs(e.Created), e.ID[11], e.PartitionUID, e.TransactionID, where(e.Known, e.Queue, e.Partition), e.Group, clip(e.EventType), clipAll(e.Names),
					n.Secs(e.ExpiresAt), clip(string(e.Data)))
			}
		}
		switch d.Cmd {
		case "push":
			var queue, partition, txn string
			d.ScanArgs(t, "queue", &queue)
			d.ScanArgs(t, "partition", &partition)
			d.ScanArgs(t, "txn", &txn)
			op := queuelog.PushOp{Tenant: ten, Items: []queuelog.PushItem{{Queue: queue, Partition: partition,
				TransactionID: txn, Dedup: true, Payload: []byte(`{}`)}}}
			n.MustPropose(t, d, op.Op())
			return "ok\n"
		case "pop":
			var queue, partition string
			group := "g"
			d.ScanArgs(t, "queue", &queue)
			d.ScanArgs(t, "partition", &partition)
			d.MaybeScanArgs(t, "group", &group)
			op := consume.PopOp{Tenant: ten, Queue: queue, Group: group, Partition: partition, Batch: 10,
				MaxPartitions: 1, LeaseMicros: 60e6, LeaseID: "lease-" + partition, Mode: consume.ModeAll}
			res, err := consume.DecodePopResult(n.MustPropose(t, d, op.Op()))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range res.Parts {
				fmt.Fprintf(&out, "%s uid=%d:", p.Partition, p.UID)
				for _, m := range p.Messages {
					fmt.Fprintf(&out, " %s", m.TransactionID)
				}
				out.WriteByte('\n')
			}
		case "record":
			var recs []traces.Record
			for _, line := range familytest.Lines(d) {
				recs = append(recs, parseRecord(t, ten, line))
			}
			var ops []raftlog.Op
			for i := range recs {
				ops = append(ops, recs[i].Op())
			}
			res := n.Commit(t, d, ops...)
			for _, answer := range res.Ops {
				if why, ok := raftlog.Rejected(answer); ok {
					fmt.Fprintf(&out, "refused: %s\n", why)
					continue
				}
				a, err := traces.DecodeRecorded(answer)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&out, "%s #%d expires=%s %s\n", n.Secs(a.Created()), a.ID[11], n.Secs(a.ExpiresAt), where(a.Known, a.Queue, a.Partition))
			}
		case "message":
			var uid uint64
			var txn string
			limit := 100
			d.ScanArgs(t, "uid", &uid)
			d.ScanArgs(t, "txn", &txn)
			d.MaybeScanArgs(t, "limit", &limit)
			evs, truncated := familytest.ReadPage(t, n, func(v *raftlog.View) ([]traces.Event, bool, error) {
				return traces.ByMessage(v, ten, uid, txn, limit)
			})
			printEvents(evs)
			if truncated {
				out.WriteString("truncated\n")
			}
		case "by-name":
			q := traces.NameQuery{Limit: 100}
			d.ScanArgs(t, "name", &q.Name)
			if d.HasArg("from") {
				q.From = n.Stamp(t, d, "from")
			}
			if d.HasArg("to") {
				q.To = n.Stamp(t, d, "to")
			}
			d.MaybeScanArgs(t, "offset", &q.Offset)
			d.MaybeScanArgs(t, "limit", &q.Limit)
			evs, more := familytest.ReadPage(t, n, func(v *raftlog.View) ([]traces.Event, bool, error) {
				return traces.ByName(v, ten, q)
			})
			printEvents(evs)
			if more {
				out.WriteString("more\n")
			}
		case "names":
			var search, after string
			limit := 100
			d.MaybeScanArgs(t, "search", &search)
			d.MaybeScanArgs(t, "after", &after)
			d.MaybeScanArgs(t, "limit", &limit)
			names, truncated := familytest.ReadPage(t, n, func(v *raftlog.View) ([]traces.NameCount, bool, error) {
				return traces.Names(v, ten, search, after, limit)
			})
			for _, c := range names {
				fmt.Fprintf(&out, "%s count=%d last=%s\n", clip(c.Name), c.Count, n.Secs(c.Last))
			}
			if truncated {
				out.WriteString("truncated\n")
			}
		case "tick":
			n.Commit(t, d)
			return "ok\n"
		case "sweep":
			limit := traces.SweepLimit
			d.MaybeScanArgs(t, "limit", &limit)
			return n.Answered(t, d, traces.SweepOp{Limit: limit}.Op(), func(answer []byte) string {
				a, err := traces.DecodeSweep(answer)
				if err != nil {
					t.Fatal(err)
				}
				return fmt.Sprintf("deleted %d, more %v\n", a.Deleted, a.More)
			})
		case "due":
			type next struct {
				at       int64
				ok, due  bool
				stampNow int64
			}
			x := familytest.Read(t, n, func(v *raftlog.View) (next, error) {
				at, ok, err := traces.NextExpiry(v)
				if err != nil {
					return next{}, err
				}
				due, err := traces.Due(v)
				return next{at, ok, due, v.Stamp()}, err
			})
			if !x.ok {
				return "none\n"
			}
			fmt.Fprintf(&out, "next expiry %s, due %v at %s\n", n.Secs(x.at), x.due, n.Secs(x.stampNow))
		default:
			t.Fatalf("unknown command %q", d.Cmd)
		}
		return out.String()
	})
}

// parseRecord reads one input line of record; data= is the rest of the
// line.
func parseRecord(t *testing.T, tenant, line string) traces.Record {
	r := traces.Record{Tenant: tenant, Group: "g", EventType: "info", TTLSeconds: 60}
	head, data, ok := strings.Cut(line, "data=")
	if !ok {
		t.Fatalf("no data= in %q", line)
	}
	r.Data = []byte(data)
	if size, ok := strings.CutSuffix(data, "B"); ok {
		if n, err := strconv.Atoi(size); err == nil {
			r.Data = []byte(`"` + strings.Repeat("a", n-2) + `"`)
		}
	}
	familytest.Args(t, head, func(k, v string) bool {
		if size, ok := strings.CutSuffix(v, "B"); ok {
			if n, err := strconv.Atoi(size); err == nil {
				v = strings.Repeat("a", n)
			}
		}
		switch k {
		case "uid":
			r.PartitionUID, _ = strconv.ParseUint(v, 10, 64)
		case "txn":
			r.TransactionID = v
		case "group":
			r.Group = v
		case "type":
			r.EventType = v
		case "names":
			r.Names = strings.Split(v, ",")
		case "ttl":
			r.TTLSeconds, _ = strconv.ParseInt(v, 10, 64)
		default:
			return false
		}
		return true
	})
	return r
}

// where renders what an event's partition id names: its queue and
// partition, or unknown.
func where(known bool, queue, partition string) string {
	if !known {
		return "unknown"
	}
	return queue + "/" + partition
}

// clip shortens a value past 40 bytes to its length.
func clip(s string) string {
	if len(s) > 40 {
		return fmt.Sprintf("(%d bytes)", len(s))
	}
	return s
}

func clipAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = clip(s)
	}
	return out
}
