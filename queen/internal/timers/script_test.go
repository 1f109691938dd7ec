package timers_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/queen/internal/familytest"
	"github.com/queen-mq/queen-go/queen/internal/timers"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// TestScripts runs testdata/scripts/*.txt (familytest: the clock is the
// script's "at=<seconds>"; times print as seconds after its base) against
// one node running the queue log, consume's and the timers family's
// appliers:
//
//	call at=<s>     one timers call; input: an op per line,
//	                "schedule|reschedule|cancel queue=… key=… [delay=<ms>] [txn=…] [payload=…] [partition=…]"
//	fire at=<s> [limit=<n>]
//	                one fire entry: what it did
//	pending [queue=…] the pending timers of queue q (or the one named)
//	records queue=… [partition=…]
//	                the queue's records (offset, txn, payload, ts)
//	configure queue=… options=<json>
//	letters queue=…  the queue's dead letters of group __timer__
func TestScripts(t *testing.T) {
	familytest.Run(t, appliers(), func(t *testing.T, n *familytest.Node, d *datadriven.TestData) string {
		shard, secs := n.Shard, n.Secs
		var out strings.Builder
		switch d.Cmd {
		case "call":
			c := timers.Call{Tenant: tenant}
			for _, line := range familytest.Lines(d) {
				c.Ops = append(c.Ops, parseOp(t, line))
			}
			got, err := timers.DecodeAnswers(n.MustPropose(t, d, c.Op()))
			if err != nil {
				t.Fatal(err)
			}
			for i, a := range got {
				fmt.Fprintf(&out, "%s %s txn=%s", c.Ops[i].Key, timers.StatusNames[a.Status], a.Txn)
				if a.DeliverAt != 0 {
					fmt.Fprintf(&out, " deliverAt=%s", secs(a.DeliverAt))
				}
				out.WriteByte('\n')
			}
		case "fire":
			limit := timers.FireLimit
			d.MaybeScanArgs(t, "limit", &limit)
			a, err := timers.DecodeFire(n.MustPropose(t, d, timers.FireOp{Limit: limit}.Op()))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&out, "fired %d, failed %d, filed %d, more %v\n", a.Fired, a.Failed, a.Filed, a.More)
		case "pending":
			queue := "q"
			d.MaybeScanArgs(t, "queue", &queue)
			rows, _ := familytest.ReadPage(t, n, func(v *raftlog.View) ([]timers.Timer, bool, error) {
				return timers.List(v, tenant, queue, "", 1000)
			})
			for _, r := range rows {
				fmt.Fprintf(&out, "%s/%s txn=%s deliverAt=%s due=%s attempts=%d permanent=%d %s\n", r.Queue, r.Key, r.Txn,
					secs(r.DeliverAt), secs(r.Due), r.Attempts, r.Permanent, r.LastError)
			}
		case "records":
			var queue string
			partition := "Default"
			d.ScanArgs(t, "queue", &queue)
			d.MaybeScanArgs(t, "partition", &partition)
			v, err := shard.LocalRead(func(v *raftlog.View) (any, error) {
				return queuelog.ReadRecords(v, tenant, queue, partition, 0, queuelog.ReadLimits{MaxRecords: 100})
			})
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			for _, r := range v.(queuelog.Batch).Records {
				fmt.Fprintf(&out, "%d txn=%s %s ts=%s\n", r.Offset, r.TransactionID, r.Payload, secs(r.Ts))
			}
		case "configure":
			var queue, opts string
			d.ScanArgs(t, "queue", &queue)
			d.ScanArgs(t, "options", &opts)
			if _, err := queuelog.Configure(familytest.Ctx(t), shard, queuelog.ConfigureOp{Tenant: tenant, Queue: queue, Options: json.RawMessage(opts)}); err != nil {
				t.Fatal(err)
			}
			return "ok\n"
		case "letters":
			var queue string
			d.ScanArgs(t, "queue", &queue)
			letters := familytest.Read(t, n, func(v *raftlog.View) ([]consume.DeadLetter, error) {
				return consume.DeadLetters(v, tenant, queue, consume.TimerGroup, 0)
			})
			for _, l := range letters {
				fmt.Fprintf(&out, "%s/%s txn=%s offset=%d attempts=%d %s: %s\n", l.Group, l.Partition, l.TransactionID,
					l.Offset, l.Attempts, l.Payload, l.Error)
			}
		default:
			t.Fatalf("unknown command %q", d.Cmd)
		}
		return out.String()
	})
}

const tenant = familytest.Tenant

func appliers() map[raftlog.OpKind]raftlog.Applier {
	return familytest.Appliers(consume.Appliers(), timers.Appliers())
}

func parseOp(t *testing.T, line string) timers.Op {
	kinds := map[string]byte{"schedule": timers.KindSchedule, "reschedule": timers.KindReschedule, "cancel": timers.KindCancel}
	o := timers.Op{Partition: "Default", Payload: []byte(`{}`)}
	o.Kind = kinds[familytest.Fields(t, line, func(k, v string) bool {
		switch k {
		case "queue":
			o.Queue = v
		case "key":
			o.Key = v
		case "delay":
			ms, _ := strconv.ParseInt(v, 10, 64)
			o.DelayMicros = ms * 1000
		case "txn":
			o.Txn = v
		case "payload":
			o.Payload = []byte(v)
		case "partition":
			o.Partition = v
		default:
			return false
		}
		return true
	})]
	copy(o.MessageID[:], o.Key)
	return o
}
