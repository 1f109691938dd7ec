package retention

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/queen/internal/familytest"
	"github.com/queen-mq/queen-go/queen/internal/traces"
	"github.com/queen-mq/queen-go/raftlog"
)

// TestRetentionSweepsTraces: a pass deletes every trace event whose
// lifetime ended, in as many bounded sweeps as it takes, and keeps the
// others.
func TestRetentionSweepsTraces(t *testing.T) {
	id, shard, ctx := oneNode(t, familytest.Appliers(kvstore.Appliers(), consume.Appliers(), traces.Appliers()))
	const tenant = "00000000-0000-0000-0000-000000000001"
	base := time.Now().UnixMicro()
	// 1.5 sweeps' worth of events living a minute, in one entry, and one
	// living an hour.
	short := traces.Record{Tenant: tenant, PartitionUID: 1, TransactionID: "m", Group: "g", EventType: "info",
		Names: []string{"n"}, Data: []byte(`{}`), TTLSeconds: 60}
	cmd := raftlog.Command{Clock: base}
	for range traces.SweepLimit * 3 / 2 {
		cmd.Ops = append(cmd.Ops, short.Op())
	}
	long := short
	long.TTLSeconds, long.Names = 3600, []string{"kept"}
	cmd.Ops = append(cmd.Ops, long.Op())
	if _, err := shard.Propose(ctx, cmd); err != nil {
		t.Fatal(err)
	}
	// The broker clock moves past the minute: the next entries are
	// stamped after it, whatever the wall clock says.
	if _, err := shard.Propose(ctx, raftlog.Command{Clock: base + 61e6}); err != nil {
		t.Fatal(err)
	}
	j := &Job{Shard: shard, KV: kvstore.New(shard), NodeID: id, Interval: time.Hour, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	j.Once(ctx)
	got, err := shard.LocalRead(func(v *raftlog.View) (any, error) {
		names, _, err := traces.Names(v, tenant, "", "", 10)
		if err != nil {
			return nil, err
		}
		evs, _, err := traces.ByMessage(v, tenant, 1, "m", 10)
		if err != nil {
			return nil, err
		}
		due, err := traces.Due(v)
		return []any{names, evs, due}, err
	})
	if err != nil {
		t.Fatal(err)
	}
	r := got.([]any)
	names, evs, due := r[0].([]traces.NameCount), r[1].([]traces.Event), r[2].(bool)
	if len(names) != 1 || names[0].Name != "kept" || names[0].Count != 1 || len(evs) != 1 || evs[0].Names[0] != "kept" || due {
		t.Fatalf("after the pass: names %+v, events %+v, due %v", names, evs, due)
	}
}
