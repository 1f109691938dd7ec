package kvstore_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// TestExpiry moves the broker clock with empty entries (no sleeping): a
// row is there until the stamp reaches its expiresAt, and absent from
// then on for every op; versions keep increasing past the expiry.
func TestExpiry(t *testing.T) {
	_, s, kv := startOne(t)
	a := do(t, kv, kvstore.Op{Op: kvstore.OpPut, NS: "app", Key: "a", Value: json.RawMessage(`"v"`), TTLSeconds: i64(1)},
		kvstore.Op{Op: kvstore.OpPut, NS: "app", Key: "x", Value: json.RawMessage(`1`), TTLSeconds: i64(1)},
		kvstore.Op{Op: kvstore.OpIncr, NS: "app", Key: "n", Delta: "5", TTLSeconds: i64(1)})
	stamp, v1 := a.Stamp, a.Results[0].Version
	g := one(t, kv, get("a"))
	if !g.Found || g.ExpiresAt != stamp+1_000_000 || g.UpdatedAt != stamp || g.Version != v1 {
		t.Fatalf("get %+v, want expiresAt %d and updatedAt %d", g, stamp+1_000_000, stamp)
	}
	expiresAt := g.ExpiresAt

	if got := tick(t, s, expiresAt-1); got != expiresAt-1 {
		t.Fatalf("the tick was stamped %d, want %d", got, expiresAt-1)
	}
	if g := one(t, kv, get("a")); !g.Found {
		t.Fatal("the row expired a microsecond early")
	}
	tick(t, s, expiresAt)
	a = do(t, kv, get("a"),
		kvstore.Op{Op: kvstore.OpGetMany, NS: "app", Keys: []string{"a"}},
		kvstore.Op{Op: kvstore.OpGetPrefix, NS: "app", Prefix: "a"},
		kvstore.Op{Op: kvstore.OpCheck, NS: "app", Key: "a", Expect: i64(int64(v1))},
		kvstore.Op{Op: kvstore.OpCheck, NS: "app", Key: "a", Expect: i64(0)})
	if r := a.Results; r[0].Found || len(r[1].Rows) != 0 || len(r[1].Missing) != 1 || len(r[2].Rows) != 0 ||
		r[3].Applied || r[3].Reason != kvstore.ReasonAbsent || !r[4].Applied {
		t.Fatalf("reads at the expiry: %+v", r)
	}
	if a.Stamp != expiresAt {
		t.Errorf("a read-only call was judged on stamp %d, want the view's %d", a.Stamp, expiresAt)
	}

	a = do(t, kv, kvstore.Op{Op: kvstore.OpPut, NS: "app", Key: "a", Value: json.RawMessage(`2`), Forever: true, Expect: i64(int64(v1))},
		kvstore.Op{Op: kvstore.OpDelete, NS: "app", Key: "x"},
		kvstore.Op{Op: kvstore.OpIncr, NS: "app", Key: "n", Delta: "1", TTLSeconds: i64(60)})
	r := a.Results
	if r[0].Applied || r[0].Reason != kvstore.ReasonAbsent || r[1].Applied || r[1].Reason != kvstore.ReasonAbsent {
		t.Errorf("writes expecting an expired row: %+v", r[:2])
	}
	if !r[2].Applied || string(r[2].Value) != "1" || r[2].Version <= v1 {
		t.Errorf("incr over an expired row: %+v, want 1 from 0 at a version above %d", r[2], v1)
	}
	incrStamp := a.Stamp

	a = do(t, kv, kvstore.Op{Op: kvstore.OpPutIfAbsent, NS: "app", Key: "a", Value: json.RawMessage(`3`), Forever: true},
		kvstore.Op{Op: kvstore.OpIncr, NS: "app", Key: "n", Delta: "1", TTLSeconds: i64(1)},
		get("n"))
	r = a.Results
	if !r[0].Applied || r[0].Version <= v1 {
		t.Errorf("putIfAbsent over the expired row: %+v", r[0])
	}
	if string(r[2].Value) != "2" || r[2].ExpiresAt != incrStamp+60_000_000 || r[2].UpdatedAt != a.Stamp {
		t.Errorf("incr of a live row changed its expiry: %+v, want expiresAt %d", r[2], incrStamp+60_000_000)
	}
	if g := one(t, kv, get("a")); g.ExpiresAt != 0 || string(g.Value) != "3" {
		t.Errorf("a forever row: %+v", g)
	}
}

// TestRestart: rows and the version counter survive a stop and start of
// the node, so versions keep increasing, across a delete too.
func TestRestart(t *testing.T) {
	c, _, kv := startOne(t)
	v1 := one(t, kv, put("a", "1")).Version
	v2 := one(t, kv, put("b", "2")).Version
	if d := one(t, kv, kvstore.Op{Op: kvstore.OpDelete, NS: "app", Key: "b"}); !d.Applied {
		t.Fatalf("delete %+v", d)
	}
	c.Stop(1)
	c.Start(1)
	_, s := c.Leader()
	kv = kvstore.New(s)
	if g := one(t, kv, get("a")); !g.Found || g.Version != v1 || string(g.Value) != "1" {
		t.Fatalf("after the restart get a = %+v", g)
	}
	if g := one(t, kv, get("b")); g.Found {
		t.Fatalf("the deleted row came back: %+v", g)
	}
	a := do(t, kv, put("b", "3"), kvstore.Op{Op: kvstore.OpPut, NS: "app", Key: "a", Value: json.RawMessage("4"), Forever: true, Expect: i64(int64(v1))})
	if r := a.Results; !r[0].Applied || r[0].Version <= v2 || !r[1].Applied || r[1].Version <= r[0].Version {
		t.Errorf("versions after the restart: %+v (before: %d, %d)", r, v1, v2)
	}
}

// TestReadsAreNotProposed: a call of reads and checks appends no entry; a
// call with a write appends one.
func TestReadsAreNotProposed(t *testing.T) {
	_, s, kv := startOne(t)
	one(t, kv, put("a", "1"))
	before := s.Applied()
	do(t, kv, get("a"), kvstore.Op{Op: kvstore.OpGetMany, NS: "app", Keys: []string{"a", "b"}},
		kvstore.Op{Op: kvstore.OpGetPrefix, NS: "app", Prefix: "a"}, kvstore.Op{Op: kvstore.OpCheck, NS: "app", Key: "a", Expect: i64(1)})
	if got := s.Applied(); got != before {
		t.Errorf("a read-only call moved the applied index from %d to %d", before, got)
	}
	do(t, kv, get("a"), put("b", "2"))
	if got := s.Applied(); got != before+1 {
		t.Errorf("a write call moved the applied index from %d to %d, want one entry", before, got)
	}
}

// TestReadBudget: a call reads at most 4 MiB of keys and values; getMany
// and getPrefix say truncated past it, and getPrefix pages on.
func TestReadBudget(t *testing.T) {
	_, _, kv := startOne(t)
	const n = 70 // 70 rows of 64 KiB: 4.4 MiB
	value := json.RawMessage(`"` + strings.Repeat("v", kvstore.MaxValueBytes-2) + `"`)
	var ops []kvstore.Op
	var keys []string
	for i := range n {
		k := fmt.Sprintf("big/%02d", i)
		keys = append(keys, k)
		ops = append(ops, kvstore.Op{Op: kvstore.OpPut, NS: "app", Key: k, Value: value, Forever: true})
	}
	do(t, kv, ops...)
	fit := kvstore.ReadBudget / (kvstore.MaxValueBytes + len(keys[0])) // 63

	p := one(t, kv, kvstore.Op{Op: kvstore.OpGetPrefix, NS: "app", Prefix: "big/", Limit: 1000})
	if len(p.Rows) != fit || !p.Truncated || p.NextAfter != keys[fit-1] {
		t.Fatalf("getPrefix: %d rows, truncated %v, nextAfter %q; want %d, true, %q", len(p.Rows), p.Truncated, p.NextAfter, fit, keys[fit-1])
	}
	p = one(t, kv, kvstore.Op{Op: kvstore.OpGetPrefix, NS: "app", Prefix: "big/", Limit: 1000, After: p.NextAfter})
	if len(p.Rows) != n-fit || p.Truncated || p.NextAfter != "" || p.Rows[0].Key != keys[fit] {
		t.Fatalf("the next page: %d rows, truncated %v, nextAfter %q", len(p.Rows), p.Truncated, p.NextAfter)
	}
	if p := one(t, kv, kvstore.Op{Op: kvstore.OpGetPrefix, NS: "app", Prefix: "big/", Limit: 1000, KeysOnly: true}); len(p.Rows) != n || p.Truncated {
		t.Errorf("keysOnly: %d rows, truncated %v", len(p.Rows), p.Truncated)
	}
	m := one(t, kv, kvstore.Op{Op: kvstore.OpGetMany, NS: "app", Keys: keys})
	if len(m.Rows) != fit || len(m.Missing) != 0 || !m.Truncated {
		t.Errorf("getMany: %d rows, %d missing, truncated %v", len(m.Rows), len(m.Missing), m.Truncated)
	}
	gets := make([]kvstore.Op, n)
	for i, k := range keys {
		gets[i] = get(k)
	}
	for i, r := range do(t, kv, gets...).Results {
		if !r.Found {
			t.Fatalf("get %d past the budget was not answered", i)
		}
	}
}

// TestCallInACommand: a call Encode made goes in a command beside other
// ops; a required op that fails rolls back the whole command, push and
// all; an op the applier cannot decode is refused.
func TestCallInACommand(t *testing.T) {
	_, s, kv := startOne(t)
	one(t, kv, put("lock", `"me"`))
	push := queuelog.PushOp{Tenant: tenant, Items: []queuelog.PushItem{{Queue: "q", Partition: "p", TransactionID: "t1", Payload: []byte(`{}`)}}}
	for _, expect := range []int64{99, 1} {
		kvOp, err := kvstore.Encode(tenant, []kvstore.Op{{Op: kvstore.OpCheck, NS: "app", Key: "lock", Expect: i64(expect), Required: true}, put("after", "1")})
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Propose(ctx(t), raftlog.Command{Ops: []raftlog.Op{push.Op(), kvOp}})
		if err != nil {
			t.Fatal(err)
		}
		a, err := kvstore.DecodeAnswer(res.Ops[1])
		if err != nil {
			t.Fatal(err)
		}
		_, readErr := s.LocalRead(func(v *raftlog.View) (any, error) {
			return queuelog.ReadRecords(v, tenant, "q", "p", 0, queuelog.ReadLimits{})
		})
		written := one(t, kv, get("after")).Found
		if expect == 99 {
			if res.Applied() || res.Aborted != 1 || a.OK || a.FailedIndex != 0 || a.KVReason != kvstore.ReasonVersion || a.Version != 1 {
				t.Errorf("a failed fence: aborted %d, answer %+v", res.Aborted, a)
			}
			if !errors.Is(readErr, queuelog.ErrUnknownPartition) || written {
				t.Errorf("the aborted command wrote: push %v, kv %v", readErr, written)
			}
		} else if !res.Applied() || !a.OK || !a.Results[1].Applied || readErr != nil || !written {
			t.Errorf("a held fence: aborted %d, answer %+v, push %v, kv %v", res.Aborted, a, readErr, written)
		}
	}

	res, err := s.Propose(ctx(t), raftlog.Command{Ops: []raftlog.Op{{Kind: kvstore.OpKV, Data: []byte{1, 2, 3}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, rejected := raftlog.Rejected(res.Ops[0]); !rejected || res.Applied() {
		t.Errorf("a corrupt call answered %q (aborted %d)", res.Ops[0], res.Aborted)
	}
}
