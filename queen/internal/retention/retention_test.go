package retention

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/queen/internal/familytest"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// oneNode starts a one-node cluster running appliers and returns its
// leader's id and shard, and a context that ends in 30 s.
func oneNode(t *testing.T, appliers map[raftlog.OpKind]raftlog.Applier) (uint64, *raftlog.Shard, context.Context) {
	t.Helper()
	c := raftlogtest.New(t, 1, appliers)
	c.StartAll()
	id, shard := c.Leader()
	return id, shard, raftlogtest.Ctx(t, 30*time.Second)
}

func TestHoldFloor(t *testing.T) {
	const now = int64(10_000_000_000_000)
	ptr := func(tEnd int64) []byte {
		return []byte(fmt.Sprintf(`{"k":3,"tEnd":%q,"manifest":"m","records":1,"bytes":1,"committedAtMs":1}`, lakeformat.FormatTs(tEnd)))
	}
	cases := []struct {
		name      string
		committed []byte
		found     bool
		max       int64
		want      int64
	}{
		{"no pointer: the cap alone", nil, false, 3600, now - 3600_000_000},
		{"pointer: its end less 60 s", ptr(now - 600_000_000), true, 3600, now - 660_000_000},
		{"pointer older than the cap: the cap", ptr(now - 7200_000_000), true, 3600, now - 3600_000_000},
		{"stored 0 reads as the 7-day default", nil, false, 0, now - DefaultHoldMaxSeconds*1_000_000},
		{"1.5's integer tEnd counts as no pointer", []byte(`{"k":1,"tEnd":9999999999999}`), true, 3600, now - 3600_000_000},
		{"garbage counts as no pointer", []byte(`not json`), true, 3600, now - 3600_000_000},
		{"a k that is no count still holds at its end", []byte(`{"k":-1,"tEnd":"` + lakeformat.FormatTs(now-600_000_000) + `"}`), true, 3600, now - 660_000_000},
	}
	for _, c := range cases {
		if got := HoldFloor(c.committed, c.found, c.max, now); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

// TestRetentionHold: retention deletes records older than retentionSeconds,
// but with a sink hold nothing stamped after the sink's commit pointer
// less 60 s, the pointer read from the queue's own tenant: two tenants'
// queues of the same name each keep what their own sink's pointer says.
func TestRetentionHold(t *testing.T) {
	id, shard, ctx := oneNode(t, kvstore.Appliers())
	kv := kvstore.New(shard)
	const tenant, other = "00000000-0000-0000-0000-000000000001", "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
	// Move the broker clock to a known place: pushes get stamps from the
	// proposer's clock, so each push here is proposed at its own time.
	base := time.Now().UnixMicro()
	push := func(tenant, queue string, at int64) {
		op := queuelog.PushOp{Tenant: tenant, Items: []queuelog.PushItem{{Queue: queue, Partition: "p", TransactionID: fmt.Sprint(at), Payload: []byte(`{}`)}}}
		if _, err := shard.Propose(ctx, raftlog.Command{Clock: at, Ops: []raftlog.Op{op.Op()}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := int64(0); i < 10; i++ { // one record a minute to each queue, for ten minutes
		for j, tn := range []string{tenant, other} {
			push(tn, "held", base+i*60_000_000+int64(2*j))
			push(tn, "free", base+i*60_000_000+int64(2*j)+1)
		}
	}
	for _, tn := range []string{tenant, other} {
		for _, q := range []string{"held", "free"} {
			opts := map[string]any{"retentionEnabled": true, "retentionSeconds": 60}
			if q == "held" {
				opts["retentionSinkHold"] = "default"
				opts["retentionSinkHoldMaxSeconds"] = 3600
			}
			b, _ := json.Marshal(opts)
			if _, err := queuelog.Configure(ctx, shard, queuelog.ConfigureOp{Tenant: tn, Queue: q, Options: b}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The default tenant's sink committed through the 5th record's minute,
	// the other tenant's through the 7th.
	for tn, minute := range map[string]int64{tenant: 5, other: 7} {
		ptr := fmt.Sprintf(`{"k":1,"tEnd":%q,"manifest":"m","records":5,"bytes":1,"committedAtMs":1}`, lakeformat.FormatTs(base+minute*60_000_000))
		if _, err := kv.Do(ctx, tn, []kvstore.Op{{Op: kvstore.OpPut, NS: "queen-s3", Key: "s3:default:held:committed",
			Value: json.RawMessage(ptr), Forever: true}}); err != nil {
			t.Fatal(err)
		}
	}
	// An empty entry at the end of the ten minutes puts safeTime there.
	if _, err := shard.Propose(ctx, raftlog.Command{Clock: base + 10*60_000_000}); err != nil {
		t.Fatal(err)
	}
	job := &Job{Shard: shard, KV: kv, NodeID: id, Interval: time.Hour, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	job.Once(ctx)
	logStart := func(tenant, q string) int64 {
		got, err := shard.LocalRead(func(v *raftlog.View) (any, error) {
			return queuelog.ReadRecords(v, tenant, q, "p", 9, queuelog.ReadLimits{})
		})
		if err != nil {
			t.Fatal(err)
		}
		return got.(queuelog.Batch).LogStart
	}
	for _, c := range []struct {
		tenant, queue string
		want          int64
		why           string
	}{
		// free: everything older than 60 s before safeTime goes: records 0..8.
		{tenant, "free", 9, "no hold"},
		{other, "free", 9, "no hold"},
		// held: the floor is the pointer's end less 60 s: minute 4 for
		// the default tenant, 6 for the other.
		{tenant, "held", 4, "its sink committed through minute 5"},
		{other, "held", 6, "its own sink committed through minute 7"},
	} {
		if got := logStart(c.tenant, c.queue); got != c.want {
			t.Errorf("tenant %s, queue %s: log start %d, want %d (%s)", c.tenant, c.queue, got, c.want, c.why)
		}
	}
}

// TestCompletedRetention: with completedRetentionSeconds, retention
// deletes the records every group of the queue has settled, once they are
// that old, and nothing any group still has to read.
func TestCompletedRetention(t *testing.T) {
	id, shard, ctx := oneNode(t, familytest.Appliers(kvstore.Appliers(), consume.Appliers()))
	const tenant = "00000000-0000-0000-0000-000000000001"
	base := time.Now().UnixMicro()
	for i := int64(0); i < 5; i++ { // one record a minute
		op := queuelog.PushOp{Tenant: tenant, Items: []queuelog.PushItem{{Queue: "q", Partition: "p", TransactionID: fmt.Sprint(i), Payload: []byte(`{}`)}}}
		if _, err := shard.Propose(ctx, raftlog.Command{Clock: base + i*60_000_000, Ops: []raftlog.Op{op.Op()}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := queuelog.Configure(ctx, shard, queuelog.ConfigureOp{Tenant: tenant, Queue: "q", Options: []byte(`{"completedRetentionSeconds":60}`)}); err != nil {
		t.Fatal(err)
	}
	cons := &consume.Consumer{Shard: shard}
	settle := func(group string, n int) {
		res, err := cons.Pop(ctx, consume.PopRequest{Tenant: tenant, Queue: "q", Group: group, Mode: consume.ModeAll, Batch: n, MaxPartitions: 1})
		if err != nil || len(res.Parts) != 1 {
			t.Fatalf("pop %s: %+v %v", group, res, err)
		}
		var items []consume.AckItem
		for _, m := range res.Parts[0].Messages {
			items = append(items, consume.AckItem{TransactionID: m.TransactionID, PartitionUID: res.Parts[0].UID, Group: group, LeaseID: res.LeaseID})
		}
		if _, err := cons.Ack(ctx, tenant, items); err != nil {
			t.Fatal(err)
		}
	}
	settle("fast", 4) // offsets 0..3 done
	settle("slow", 2) // offsets 0..1 done
	job := &Job{Shard: shard, KV: kvstore.New(shard), NodeID: id, Interval: time.Hour, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	logStart := func() int64 {
		got, err := shard.LocalRead(func(v *raftlog.View) (any, error) { return queuelog.Partition(v, tenant, "q", "p") })
		if err != nil {
			t.Fatal(err)
		}
		return got.(queuelog.PartitionInfo).LogStart
	}
	job.Once(ctx)
	// safeTime is now (wall clock), minutes past every record: the slow
	// group's cursor (2) bounds what goes.
	if got := logStart(); got != 2 {
		t.Fatalf("log start %d, want 2: only what every group settled goes", got)
	}
	settle("slow", 3) // slow settles 2..4; fast still has 4 to read
	job.Once(ctx)
	if got := logStart(); got != 4 {
		t.Fatalf("log start %d, want 4", got)
	}
}
