package inproc

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/queen/internal/broker"
	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/queen/internal/locks"
	"github.com/queen-mq/queen-go/queen/internal/sinkadapter"
	"github.com/queen-mq/queen-go/queen/internal/streams"
	"github.com/queen-mq/queen-go/queen/internal/timers"
	"github.com/queen-mq/queen-go/queen/internal/traces"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/s3sink"
	"github.com/queen-mq/queen-go/s3sink/kvdoc"
)

// TestStorageFull: with the node's disk above its high mark, every write
// that would grow the store answers 507 storage_full and applies nothing
// (push, a transaction holding a push or a KV put, KV put and incr,
// configure, a timer's schedule, a lock's acquire, a trace), while what
// consumes and deletes goes on (pop, ack, a transaction of acks, KV get
// and delete, lock release, timer cancel); /health, /status and the
// metrics say so; below the low mark the writes are taken again.
func TestStorageFull(t *testing.T) {
	var pct atomic.Uint64 // percent × 100
	n, err := Start(Options{DiskUsage: func(string) (float64, error) { return float64(pct.Load()) / 100, nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	call := func(method, target, body string, status int, code string) *httptest.ResponseRecorder {
		t.Helper()
		w := n.Do(ctx(t), method, target, []byte(body))
		want(t, w, status, code)
		return w
	}
	pushBody := func(txn string) string {
		return fmt.Sprintf(`{"items":[{"queue":"df","partition":"p","transactionId":%q,"payload":{"t":%q}}]}`, txn, txn)
	}
	for i := range 3 {
		call("POST", "/api/v1/push", pushBody(fmt.Sprint("before-", i)), 201, "")
	}
	call("PUT", "/api/v1/kv/df/kept", `{"value":1,"forever":true}`, 200, "")
	lock := results(t, call("POST", "/api/v1/locks", `{"operations":[{"op":"acquire","name":"df-l","ttlSeconds":60}]}`, 200, "").Body.Bytes())[0]
	b64 := base64.StdEncoding.EncodeToString([]byte(`1`))
	call("POST", "/api/v1/timers", `{"operations":[{"op":"schedule","queue":"df","timerKey":"k","delayMs":3600000,"txn":"tm","payload":"`+b64+`"}]}`, 200, "")
	var pop struct {
		LeaseID  string
		Messages []struct{ TransactionID, PartitionID string }
	}
	json.Unmarshal(call("GET", "/api/v1/pop/queue/df?batch=1", "", 200, "").Body.Bytes(), &pop)
	if len(pop.Messages) != 1 {
		t.Fatalf("pop before: %+v", pop)
	}

	pct.Store(91_00)
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(call("GET", "/health", "", 200, "").Body.String(), `"refusingWrites":true`) {
		if time.Now().After(deadline) {
			t.Fatal("/health never said the node refuses writes")
		}
		time.Sleep(5 * time.Millisecond)
	}
	refused := []struct{ method, target, body string }{
		{"POST", "/api/v1/push", pushBody("refused")},
		{"POST", "/api/v1/push", `{"items":[{"queue":"df-new","payload":1}]}`},
		{"POST", "/api/v1/transaction", `{"operations":[{"type":"push","items":[{"queue":"df","partition":"p","payload":2}]}]}`},
		{"POST", "/api/v1/transaction", `{"operations":[{"type":"ack","transactionId":"x","partitionId":"1"}],"kv":[{"op":"put","ns":"df","key":"t","value":1,"forever":true}]}`},
		{"PUT", "/api/v1/kv/df/new", `{"value":1,"forever":true}`},
		{"POST", "/api/v1/kv", `{"operations":[{"op":"incr","ns":"df","key":"n","delta":1,"forever":true}]}`},
		{"POST", "/api/v1/configure", `{"queue":"df-conf","options":{"leaseTime":30}}`},
		{"POST", "/api/v1/timers", `{"operations":[{"op":"schedule","queue":"df","timerKey":"k2","delayMs":1000,"txn":"tm2","payload":"` + b64 + `"}]}`},
		{"POST", "/api/v1/locks", `{"operations":[{"op":"acquire","name":"df-l2","ttlSeconds":60}]}`},
		{"POST", "/api/v1/traces", fmt.Sprintf(`{"transactionId":%q,"partitionId":%q,"data":1}`, pop.Messages[0].TransactionID, pop.Messages[0].PartitionID)},
	}
	for _, r := range refused {
		w := call(r.method, r.target, r.body, 507, "storage_full")
		wantMsg(t, w, "node 1 (91.00% used) is above the disk high mark")
	}
	// What consumes, reads and deletes goes on.
	m := pop.Messages[0]
	call("POST", "/api/v1/ack", fmt.Sprintf(`{"transactionId":%q,"partitionId":%q,"leaseId":%q}`, m.TransactionID, m.PartitionID, pop.LeaseID), 200, "")
	json.Unmarshal(call("GET", "/api/v1/pop/queue/df?batch=1", "", 200, "").Body.Bytes(), &pop)
	if len(pop.Messages) != 1 || pop.Messages[0].TransactionID != "before-1" {
		t.Fatalf("pop while full: %+v", pop)
	}
	m = pop.Messages[0]
	call("POST", "/api/v1/transaction", fmt.Sprintf(`{"operations":[{"type":"ack","transactionId":%q,"partitionId":%q,"leaseId":%q}]}`,
		m.TransactionID, m.PartitionID, pop.LeaseID), 200, "")
	call("GET", "/api/v1/kv/df/kept", "", 200, "")
	call("DELETE", "/api/v1/kv/df/kept", "", 200, "")
	call("POST", "/api/v1/locks", fmt.Sprintf(`{"operations":[{"op":"release","name":"df-l","token":%d}]}`, int64(lock["token"].(float64))), 200, "")
	call("DELETE", "/api/v1/timers/df/k?txn=tm", "", 200, "")
	// The S3 sink's own rows pass (its context says so), not the same
	// write of a client in its namespace.
	if _, err := (sinkadapter.KV{Store: n.KV}).Batch(ctx(t), httpd.DefaultTenant, kvdoc.Namespace,
		[]s3sink.KVOp{{Kind: s3sink.KVPut, Key: "lease/df", Value: []byte(`"node-1"`), TTL: time.Minute}}); err != nil {
		t.Fatalf("the sink's lease while full: %v", err)
	}
	call("PUT", "/api/v1/kv/"+kvdoc.Namespace+"/lease/x", `{"value":1,"forever":true}`, 507, "storage_full")
	// Nothing refused applied.
	if f := fetch2(t, n, "df", "p"); f.HighWatermark != 3 {
		t.Fatalf("df/p high watermark %d, want 3: a refused push applied", f.HighWatermark)
	}
	if w := call("GET", "/api/v1/kv/df/new", "", 200, ""); !strings.Contains(w.Body.String(), `"found":false`) {
		t.Fatalf("a refused KV put applied: %s", w.Body)
	}
	st := call("GET", "/status", "", 200, "").Body.String()
	if !strings.Contains(st, `"fullNodes":[{"node":1,"usedPct":91}]`) || !strings.Contains(st, `"usedPct":91`) {
		t.Fatalf("/status does not show the full disk: %s", st)
	}
	metrics := call("GET", "/metrics/prometheus", "", 200, "").Body.String()
	for _, line := range []string{"queen_raft_storage_refusing 1", "queen_raft_disk_full 1", "queen_raft_storage_full_nodes 1",
		"queen_raft_disk_used_percent 91", fmt.Sprintf("queen_raft_storage_refused_total %d", len(refused)+1)} { // and the client's put in the sink's namespace
		if !strings.Contains(metrics, line+"\n") {
			t.Errorf("the metrics lack %q", line)
		}
	}

	// Between the marks the gate stays shut; below the low one it opens.
	pct.Store(82_00)
	time.Sleep(50 * time.Millisecond)
	call("POST", "/api/v1/push", pushBody("between"), 507, "storage_full")
	pct.Store(40_00)
	for strings.Contains(call("GET", "/health", "", 200, "").Body.String(), `"refusingWrites":true`) {
		if time.Now().After(deadline) {
			t.Fatal("/health never said the node takes writes again")
		}
		time.Sleep(5 * time.Millisecond)
	}
	call("POST", "/api/v1/push", pushBody("after"), 201, "")
	call("PUT", "/api/v1/kv/df/new", `{"value":1,"forever":true}`, 200, "")
}

func fetch2(t *testing.T, n *Node, q, p string) fetched {
	t.Helper()
	return fetchAnswer(t, n.Do(ctx(t), "POST", "/api/v1/fetch", fetchBody(q, p, 0, nil)))
}

// TestGrows: which ops of each family the storage gate refuses while a
// disk is full (raftlog.StorageGrower), as the broker builds them.
func TestGrows(t *testing.T) {
	const ten = "00000000-0000-0000-0000-000000000001"
	kvOp := func(op string) raftlog.Op {
		o := kvstore.Op{Op: op, NS: "n", Key: "k", Forever: true}
		if op == kvstore.OpPut {
			o.Value = json.RawMessage(`1`)
		}
		if op == kvstore.OpIncr {
			o.Delta = json.Number("1")
		}
		enc, err := kvstore.Encode(ten, []kvstore.Op{o})
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		return enc
	}
	msg := [16]byte{1}
	cases := []struct {
		what  string
		op    raftlog.Op
		grows bool
	}{
		{"push", (&queuelog.PushOp{Tenant: ten, Items: []queuelog.PushItem{{Queue: "q", Partition: "p", Payload: []byte("1")}}}).Op(), true},
		{"configure", (&queuelog.ConfigureOp{Tenant: ten, Queue: "q", Options: []byte(`{}`)}).Op(), true},
		{"trim", (&queuelog.TrimOp{Tenant: ten, Queue: "q", Partition: "p"}).Op(), false},
		{"kv put", kvOp(kvstore.OpPut), true},
		{"kv incr", kvOp(kvstore.OpIncr), true},
		{"kv delete", kvOp(kvstore.OpDelete), false},
		{"kv sweep", (&kvstore.SweepOp{Limit: 1}).Op(), false},
		{"pop", (&consume.PopOp{Tenant: ten, Queue: "q", Group: "g", Batch: 1, MaxPartitions: 1, LeaseID: "l"}).Op(), false},
		{"ack", (&consume.AckOp{Tenant: ten, Items: []consume.AckItem{{TransactionID: "t", PartitionUID: 1}}}).Op(), false},
		{"lock acquire", (&locks.Call{Tenant: ten, Ops: []locks.Op{{Kind: locks.KindAcquire, Name: "l", Owner: "o", Limit: 1, TTLSeconds: 1}}}).Op(), true},
		{"lock release", (&locks.Call{Tenant: ten, Ops: []locks.Op{{Kind: locks.KindRelease, Name: "l", Token: 1}}}).Op(), false},
		{"timer schedule", (&timers.Call{Tenant: ten, Ops: []timers.Op{{Kind: timers.KindSchedule, Queue: "q", Partition: "p", Key: "k", Txn: "t", MessageID: msg}}}).Op(), true},
		{"timer cancel", (&timers.Call{Tenant: ten, Ops: []timers.Op{{Kind: timers.KindCancel, Queue: "q", Key: "k", Txn: "t"}}}).Op(), false},
		{"timer fire", timers.FireOp{Limit: 1}.Op(), false},
		{"trace", (&traces.Record{Tenant: ten, PartitionUID: 1, TransactionID: "t", EventType: "info", Data: []byte("1"), TTLSeconds: 60}).Op(), true},
		{"trace sweep", traces.SweepOp{Limit: 1}.Op(), false},
		{"stream register", (&streams.RegisterOp{Tenant: ten, Name: "s", Source: "q", ConfigHash: "h"}).Op(), true},
		{"stream cycle upsert", (&streams.CycleOp{Tenant: ten, Partition: "p", Ops: []streams.StateOp{{Kind: streams.StateUpsert, Key: "k", Value: []byte("1")}}}).Op(), true},
		{"stream cycle delete", (&streams.CycleOp{Tenant: ten, Partition: "p", Ops: []streams.StateOp{{Kind: streams.StateDelete, Key: "k"}}}).Op(), false},
		{"stream delete", (&streams.DeleteOp{Tenant: ten, Name: "s"}).Op(), false},
	}
	appliers := broker.Appliers()
	for _, c := range cases {
		g, ok := appliers[c.op.Kind].(raftlog.StorageGrower)
		if c.op.Kind < 256 {
			continue // raftlog's own: its tests judge them
		}
		if !ok {
			t.Errorf("%s: the applier of kind %d is no StorageGrower", c.what, c.op.Kind)
			continue
		}
		if got := g.Grows(c.op.Data); got != c.grows {
			t.Errorf("%s: Grows %v, want %v", c.what, got, c.grows)
		}
	}
	for k, a := range appliers {
		if _, ok := a.(raftlog.StorageGrower); !ok {
			t.Errorf("op kind %d: its applier does not say which ops grow the store", k)
		}
	}
}

// TestStorageFullControlPlane: a control-plane write the gate refuses is
// 507 storage_full too, not a 500.
func TestStorageFullControlPlane(t *testing.T) {
	n, err := Start(Options{CPToken: cpToken, DiskUsage: func(string) (float64, error) { return 99, nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	w := cp(t, n.Handler, "POST", "/api/cp/tenants", `{"slug":"acme"}`)
	want(t, w, 507, "storage_full")
}
