package kvstore_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// rowsStored counts the rows the store holds for (tenant, ns), expired or
// not: what GET /api/v1/resources/kv/namespaces must not count and the
// sweep must delete.
func rowsStored(t *testing.T, s *raftlog.Shard, ns string) int {
	t.Helper()
	prefix := append([]byte{'K', byte(len(tenant))}, tenant...)
	prefix = append(append(prefix, byte(len(ns))), ns...)
	got, err := s.LocalRead(func(v *raftlog.View) (any, error) {
		n := 0
		err := v.Scan(prefix, append(prefix[:len(prefix):len(prefix)], 0xff), func(_, _ []byte) bool { n++; return true })
		return n, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got.(int)
}

// TestExpiredRowsAreSwept: rows past their TTL on the broker clock are
// deleted from the store by the sweeps DueSweeps lists, the namespace
// counts leave them out even before, and rows with no TTL or a later one
// stay.
func TestExpiredRowsAreSwept(t *testing.T) {
	_, s, kv := startOne(t)
	now := time.Now().UnixMicro()
	tick(t, s, now)
	for i := range 30 {
		ttl := int64(10)
		if i%3 == 0 {
			ttl = 1000
		}
		do(t, kv, kvstore.Op{Op: kvstore.OpPut, NS: "sessions", Key: fmt.Sprint("s", i), Value: json.RawMessage(`1`), TTLSeconds: &ttl})
	}
	do(t, kv, put("forever", `2`))
	counts := func() map[string]int64 {
		t.Helper()
		ns, err := kv.Namespaces(ctx(t), tenant)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]int64{}
		for _, n := range ns {
			m[n.Namespace] = n.Keys
		}
		return m
	}
	if c := counts(); c["sessions"] != 30 || c["app"] != 1 || len(c) != 2 {
		t.Fatalf("counts %v", c)
	}
	due := func() []kvstore.SweepOp {
		got, err := s.LocalRead(func(v *raftlog.View) (any, error) { return kvstore.DueSweeps(v, v.Stamp()) })
		if err != nil {
			t.Fatal(err)
		}
		return got.([]kvstore.SweepOp)
	}
	if d := due(); len(d) != 0 {
		t.Fatalf("sweeps due before any expiry: %+v", d)
	}
	// 20 seconds later on the broker clock, the 20 rows of 10 s are gone
	// from every read and from the counts, but still stored.
	tick(t, s, now+20_000_000)
	if c := counts(); c["sessions"] != 10 {
		t.Fatalf("counts after the expiry: %v", c)
	}
	if n := rowsStored(t, s, "sessions"); n != 30 {
		t.Fatalf("%d rows stored before the sweep", n)
	}
	d := due()
	if len(d) != 1 || d[0].NS != "sessions" || d[0].Tenant != tenant {
		t.Fatalf("due %+v", d)
	}
	d[0].Limit = 15
	if n, err := kv.Sweep(ctx(t), d[0]); err != nil || n != 15 {
		t.Fatalf("sweep of 15: %d %v", n, err)
	}
	if n, err := kv.Sweep(ctx(t), d[0]); err != nil || n != 5 {
		t.Fatalf("the next sweep: %d %v", n, err)
	}
	if n := rowsStored(t, s, "sessions"); n != 10 {
		t.Fatalf("%d rows stored after the sweeps, want 10", n)
	}
	if c := counts(); c["sessions"] != 10 || c["app"] != 1 {
		t.Fatalf("counts after the sweeps: %v", c)
	}
	if d := due(); len(d) != 0 {
		t.Fatalf("sweeps due after the sweeps: %+v", d)
	}
	// A row rewritten with a later TTL is not swept at its old expiry.
	long := int64(1000)
	do(t, kv, kvstore.Op{Op: kvstore.OpPut, NS: "sessions", Key: "s0", Value: json.RawMessage(`3`), TTLSeconds: &long})
	tick(t, s, now+1010_000_000) // past the first 1000 s rows, before the rewrite's

	for _, op := range due() {
		if _, err := kv.Sweep(ctx(t), op); err != nil {
			t.Fatal(err)
		}
	}
	if n := rowsStored(t, s, "sessions"); n != 1 {
		t.Fatalf("%d rows stored at 1010 s, want the rewritten s0", n)
	}
}

// forgetDerived is an op that deletes the namespace counts, the expiry
// index and their marker: the store as a broker before them wrote it.
type forgetDerived struct{}

const forgetKind raftlog.OpKind = 900

func (forgetDerived) Apply(tx *raftlog.Txn, _ raftlog.ApplyInfo, _ []byte) ([]byte, error) {
	tx.DeleteRange([]byte{'k', 'f'}, []byte{'k', 'f' + 1})
	tx.DeleteRange([]byte{'k', 'n'}, []byte{'k', 'n' + 1})
	tx.DeleteRange([]byte{'k', 'x'}, []byte{'k', 'x' + 1})
	return nil, nil
}

// TestUpgradeBuildsCountsAndIndex: a store whose rows were written before
// the counts and the expiry index existed gets both when it opens.
func TestUpgradeBuildsCountsAndIndex(t *testing.T) {
	appliers := kvstore.Appliers()
	appliers[forgetKind] = forgetDerived{}
	c := raftlogtest.New(t, 1, appliers)
	c.StartAll()
	_, s := c.Leader()
	kv := kvstore.New(s)
	now := tick(t, s, time.Now().UnixMicro())
	ttl := int64(10)
	for i := range 5 {
		do(t, kv, kvstore.Op{Op: kvstore.OpPut, NS: "sessions", Key: fmt.Sprint("s", i), Value: json.RawMessage(`1`), TTLSeconds: &ttl})
	}
	do(t, kv, put("forever", `2`))
	if _, err := s.Propose(ctx(t), raftlog.Command{Ops: []raftlog.Op{{Kind: forgetKind}}}); err != nil {
		t.Fatal(err)
	}
	if ns, err := kv.Namespaces(ctx(t), tenant); err != nil || len(ns) != 0 {
		t.Fatalf("namespaces after forgetting: %+v %v", ns, err)
	}
	c.Stop(1)
	s = c.Start(1)
	c.Leader()
	kv = kvstore.New(s)
	tick(t, s, now+20_000_000)
	ns, err := kv.Namespaces(ctx(t), tenant)
	if err != nil || len(ns) != 2 || ns[0] != (kvstore.NamespaceCount{Namespace: "app", Keys: 1}) ||
		ns[1] != (kvstore.NamespaceCount{Namespace: "sessions", Keys: 0}) {
		t.Fatalf("namespaces after the upgrade: %+v %v", ns, err)
	}
	got, err := s.LocalRead(func(v *raftlog.View) (any, error) { return kvstore.DueSweeps(v, v.Stamp()) })
	if err != nil || len(got.([]kvstore.SweepOp)) != 1 {
		t.Fatalf("due after the upgrade: %+v %v", got, err)
	}
	if n, err := kv.Sweep(ctx(t), got.([]kvstore.SweepOp)[0]); err != nil || n != 5 {
		t.Fatalf("sweep: %d %v", n, err)
	}
}
