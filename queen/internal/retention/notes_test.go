package retention

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/s3sink"
	"github.com/queen-mq/queen-go/s3sink/kvdoc"
)

// TestRetentionNotesWhatASinkOwes: a trim that deletes records a sink has
// not committed yet writes, in its own entry, the lost note of exactly
// those offsets; a trim whose sink moved a document meanwhile deletes
// nothing; a queue no sink runs is trimmed with no note.
func TestRetentionNotesWhatASinkOwes(t *testing.T) {
	id, shard, ctx := oneNode(t, kvstore.Appliers())
	kv := kvstore.New(shard)
	const tenant = "00000000-0000-0000-0000-000000000001"
	base := time.Now().UnixMicro()
	for i := int64(0); i < 10; i++ { // one record a minute, for ten minutes
		for _, q := range []string{"mirrored", "moved", "plain"} {
			op := queuelog.PushOp{Tenant: tenant, Items: []queuelog.PushItem{{Queue: q, Partition: "p", TransactionID: fmt.Sprint(i), Payload: []byte(`{}`)}}}
			if _, err := shard.Propose(ctx, raftlog.Command{Clock: base + i*60_000_000, Ops: []raftlog.Op{op.Op()}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	put := func(key, value string) {
		t.Helper()
		if _, err := kv.Do(ctx, tenant, []kvstore.Op{{Op: kvstore.OpPut, NS: kvdoc.Namespace, Key: key,
			Value: json.RawMessage(value), Forever: true}}); err != nil {
			t.Fatal(err)
		}
	}
	// The sink committed window 1 through minute 3: records 0..2.
	ptr := fmt.Sprintf(`{"k":1,"tEnd":%q,"manifest":"m","records":3,"bytes":1,"committedAtMs":1}`, lakeformat.FormatTs(base+3*60_000_000))
	for _, q := range []string{"mirrored", "moved"} {
		put("s3:default:"+q+":committed", ptr)
		b, _ := json.Marshal(map[string]any{"retentionEnabled": true, "retentionSeconds": 60})
		if _, err := queuelog.Configure(ctx, shard, queuelog.ConfigureOp{Tenant: tenant, Queue: q, Options: b}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := queuelog.Configure(ctx, shard, queuelog.ConfigureOp{Tenant: tenant, Queue: "plain", Options: []byte(`{"retentionEnabled":true,"retentionSeconds":60}`)}); err != nil {
		t.Fatal(err)
	}
	job := &Job{Shard: shard, KV: kv, NodeID: id, Interval: time.Hour, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}

	// "moved": its documents are read, then the sink commits again before
	// the trim: the entry rolls back and nothing is deleted.
	p := &pass{j: job, docs: map[string]*sinkDocs{}}
	docs, err := p.sinkDocs(ctx, tenant)
	if err != nil {
		t.Fatal(err)
	}
	debts, err := s3sink.Debts(docs.rows, "moved")
	if err != nil || len(debts) != 1 {
		t.Fatalf("debts %+v %v", debts, err)
	}
	put("s3:default:moved:committed", strings.Replace(ptr, `"k":1`, `"k":2`, 1))
	if _, err := p.trimNoted(ctx, tenant, "moved", "p", base+9*60_000_000, debts, docs); !errors.Is(err, errFenceMoved) {
		t.Fatalf("a trim under a moved fence: %v", err)
	}
	logStart := func(q string) int64 {
		got, err := shard.LocalRead(func(v *raftlog.View) (any, error) { return queuelog.Partition(v, tenant, q, "p") })
		if err != nil {
			t.Fatal(err)
		}
		return got.(queuelog.PartitionInfo).LogStart
	}
	if got := logStart("moved"); got != 0 {
		t.Fatalf("moved: log start %d after a rolled-back trim", got)
	}
	// An empty entry at the end of the ten minutes puts safeTime there.
	if _, err := shard.Propose(ctx, raftlog.Command{Clock: base + 10*60_000_000}); err != nil {
		t.Fatal(err)
	}

	job.Once(ctx)
	// Everything older than 60 s before safeTime goes: records 0..8. The
	// sink owes 3..8 of them: one note, about window 1.
	for _, q := range []string{"mirrored", "plain"} {
		if got := logStart(q); got != 9 {
			t.Errorf("%s: log start %d, want 9", q, got)
		}
	}
	a, err := kv.Do(ctx, tenant, []kvstore.Op{{Op: kvstore.OpGetPrefix, NS: kvdoc.Namespace, Prefix: "s3:default:mirrored:lost:"}})
	if err != nil {
		t.Fatal(err)
	}
	rows := a.Results[0].Rows
	if len(rows) != 1 || rows[0].Key != s3sink.NoteKey("default", "mirrored", "p", 1) ||
		string(rows[0].Value) != `{"k":1,"partition":"p","from":3,"to":8}` {
		t.Fatalf("notes of mirrored: %+v", rows)
	}
	a, err = kv.Do(ctx, tenant, []kvstore.Op{{Op: kvstore.OpGetPrefix, NS: kvdoc.Namespace, Prefix: "s3:default:plain:"}})
	if err != nil || len(a.Results[0].Rows) != 0 {
		t.Fatalf("plain has sink rows: %+v %v", a, err)
	}
}

// TestDedupEntriesGoWithTheirWindow: a pass deletes the dedup entries of
// the records out of their queue's window (the partition's DedupFrom
// moves past them) and keeps those inside it: a retry inside the window is
// still a duplicate.
func TestDedupEntriesGoWithTheirWindow(t *testing.T) {
	id, shard, ctx := oneNode(t, kvstore.Appliers())
	const tenant = "00000000-0000-0000-0000-000000000001"
	if _, err := queuelog.Configure(ctx, shard, queuelog.ConfigureOp{Tenant: tenant, Queue: "q", Options: []byte(`{"dedupWindowSeconds":120}`)}); err != nil {
		t.Fatal(err)
	}
	base := time.Now().UnixMicro()
	push := func(i int64, at int64) queuelog.PushAnswer {
		op := queuelog.PushOp{Tenant: tenant, Items: []queuelog.PushItem{{Queue: "q", Partition: "p", TransactionID: fmt.Sprint("tx-", i),
			Dedup: true, Payload: []byte(`{}`)}}}
		res, err := shard.Propose(ctx, raftlog.Command{Clock: at, Ops: []raftlog.Op{op.Op()}})
		if err != nil {
			t.Fatal(err)
		}
		a, err := queuelog.DecodePushAnswers(res.Ops[0])
		if err != nil {
			t.Fatal(err)
		}
		return a[0]
	}
	for i := int64(0); i < 10; i++ { // one record a minute, for ten minutes
		push(i, base+i*60_000_000)
	}
	if _, err := shard.Propose(ctx, raftlog.Command{Clock: base + 10*60_000_000}); err != nil {
		t.Fatal(err)
	}
	job := &Job{Shard: shard, KV: kvstore.New(shard), NodeID: id, Interval: time.Hour, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	job.Once(ctx)
	got, err := shard.LocalRead(func(v *raftlog.View) (any, error) { return queuelog.Partition(v, tenant, "q", "p") })
	if err != nil {
		t.Fatal(err)
	}
	// The window is 2 minutes, judged at the sweep's stamp, just past
	// minute 10: the records of minutes 0..8 are out of it.
	if p := got.(queuelog.PartitionInfo); p.DedupFrom != 9 {
		t.Fatalf("DedupFrom %d, want 9", p.DedupFrom)
	}
	if a := push(9, base+10*60_000_000+1); !a.Duplicate || a.Offset != 9 {
		t.Fatalf("a retry inside the window: %+v", a)
	}
}

// TestPassSweepsExpiredKV: a pass deletes the KV rows whose TTL passed on
// the broker clock.
func TestPassSweepsExpiredKV(t *testing.T) {
	id, shard, ctx := oneNode(t, kvstore.Appliers())
	kv := kvstore.New(shard)
	const tenant = "00000000-0000-0000-0000-000000000001"
	ttl := int64(5)
	for i := range 2500 / 100 {
		ops := make([]kvstore.Op, 100)
		for j := range ops {
			ops[j] = kvstore.Op{Op: kvstore.OpPut, NS: "sessions", Key: fmt.Sprint("s", i*100+j), Value: json.RawMessage(`1`), TTLSeconds: &ttl}
		}
		if _, err := kv.Do(ctx, tenant, ops); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := shard.Propose(ctx, raftlog.Command{Clock: time.Now().Add(time.Minute).UnixMicro()}); err != nil {
		t.Fatal(err)
	}
	job := &Job{Shard: shard, KV: kv, NodeID: id, Interval: time.Hour, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	job.Once(ctx)
	got, err := shard.LocalRead(func(v *raftlog.View) (any, error) { return kvstore.DueSweeps(v, v.Stamp()) })
	if err != nil || len(got.([]kvstore.SweepOp)) != 0 {
		t.Fatalf("sweeps still due after a pass: %+v %v", got, err)
	}
	ns, err := kv.Namespaces(ctx, tenant)
	if err != nil || len(ns) != 0 {
		t.Fatalf("namespaces after the sweep: %+v %v", ns, err)
	}
}
