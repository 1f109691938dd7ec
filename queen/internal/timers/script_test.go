package timers_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/queen/internal/familytest"
	"github.com/queen-mq/queen-go/queen/internal/timers"
	"github.com/queen-mq/queen-go/raftlog"
)

const tenant = "00000000-0000-0000-0000-000000000001"

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
		propose := func(t *testing.T, op raftlog.Op) []byte {
			answer, refused := n.Propose(t, d, op)
			if refused != "" {
				t.Fatalf("refused: %s", refused)
			}
			return answer
		}
		var out strings.Builder
		switch d.Cmd {
		case "call":
			c := timers.Call{Tenant: tenant}
			for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
				c.Ops = append(c.Ops, parseOp(t, line))
			}
			got, err := timers.DecodeAnswers(propose(t, c.Op()))
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
			a, err := timers.DecodeFire(propose(t, timers.FireOp{Limit: limit}.Op()))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&out, "fired %d, failed %d, filed %d, more %v\n", a.Fired, a.Failed, a.Filed, a.More)
		case "pending":
			queue := "q"
			d.MaybeScanArgs(t, "queue", &queue)
			v, err := shard.LocalRead(func(v *raftlog.View) (any, error) {
				rows, _, err := timers.List(v, tenant, queue, "", 1000)
				return rows, err
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range v.([]timers.Timer) {
				fmt.Fprintf(&out, "%s/%s txn=%s deliverAt=%s due=%s attempts=%d permanent=%d %s\n", r.Queue, r.Key, r.Txn,
					secs(r.DeliverAt), secs(r.Due), r.Attempts, r.Permanent, r.LastError)
			}
		case "records":
			var queue string
			partition := "Default"
			d.ScanArgs(t, "queue", &queue)
			d.MaybeScanArgs(t, "partition", &partition)
			v, err := shard.LocalRead(func(v *raftlog.View) (any, error) {
				return v.ReadRecords(tenant, queue, partition, 0, raftlog.ReadLimits{MaxRecords: 100})
			})
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			for _, r := range v.(raftlog.Batch).Records {
				fmt.Fprintf(&out, "%d txn=%s %s ts=%s\n", r.Offset, r.TransactionID, r.Payload, secs(r.Ts))
			}
		case "configure":
			var queue, opts string
			d.ScanArgs(t, "queue", &queue)
			d.ScanArgs(t, "options", &opts)
			if _, err := shard.Configure(familytest.Ctx(t), raftlog.ConfigureOp{Tenant: tenant, Queue: queue, Options: json.RawMessage(opts)}); err != nil {
				t.Fatal(err)
			}
			return "ok\n"
		case "letters":
			var queue string
			d.ScanArgs(t, "queue", &queue)
			v, err := shard.LocalRead(func(v *raftlog.View) (any, error) {
				return consume.DeadLetters(v, tenant, queue, consume.TimerGroup, 0)
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range v.([]consume.DeadLetter) {
				fmt.Fprintf(&out, "%s/%s txn=%s offset=%d attempts=%d %s: %s\n", l.Group, l.Partition, l.TransactionID,
					l.Offset, l.Attempts, l.Payload, l.Error)
			}
		default:
			t.Fatalf("unknown command %q", d.Cmd)
		}
		return out.String()
	})
}

func appliers() map[raftlog.OpKind]raftlog.Applier {
	m := consume.Appliers()
	maps.Copy(m, timers.Appliers())
	return m
}

func parseOp(t *testing.T, line string) timers.Op {
	f := strings.Fields(line)
	kinds := map[string]byte{"schedule": timers.KindSchedule, "reschedule": timers.KindReschedule, "cancel": timers.KindCancel}
	o := timers.Op{Kind: kinds[f[0]], Partition: "Default", Payload: []byte(`{}`)}
	for _, kv := range f[1:] {
		k, v, _ := strings.Cut(kv, "=")
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
			t.Fatalf("unknown field %q in %q", k, line)
		}
	}
	copy(o.MessageID[:], o.Key)
	return o
}
