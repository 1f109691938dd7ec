package raftlog_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// scriptKind is the op kind of scriptApplier.
const scriptKind raftlog.OpKind = 300

// scriptApplier is a test applier over keys 'x'+name. Its op is one
// instruction: "s k=v" sets, "d k" deletes, "r a b" deletes [a, b), "g k"
// answers the value ("-" for none), "l" lists every key, "a why" aborts
// answering why, "e why" fails with why, "i" answers where it applies.
type scriptApplier struct{}

func (scriptApplier) Apply(tx *raftlog.Txn, at raftlog.ApplyInfo, data []byte) ([]byte, error) {
	cmd, arg, _ := strings.Cut(string(data), " ")
	key := func(k string) []byte { return []byte("x" + k) }
	switch cmd {
	case "s":
		k, v, _ := strings.Cut(arg, "=")
		tx.Set(key(k), []byte(v))
	case "d":
		tx.Delete(key(arg))
	case "r":
		a, b, _ := strings.Cut(arg, " ")
		tx.DeleteRange(key(a), key(b))
	case "g":
		v, ok, err := tx.Get(key(arg))
		if err != nil || !ok {
			return []byte("-"), err
		}
		return v, nil
	case "l":
		var kv []string
		err := tx.Scan([]byte("x"), []byte("y"), func(k, v []byte) bool {
			kv = append(kv, fmt.Sprintf("%s=%s", k[1:], v))
			return true
		})
		return []byte(strings.Join(kv, ",")), err
	case "a":
		return nil, raftlog.Abort([]byte(arg))
	case "e":
		return nil, errors.New(arg)
	case "i":
		return fmt.Appendf(nil, "%d/%d/%d/%d", at.Shard, at.Index, at.Op, at.Stamp), nil
	default:
		return nil, fmt.Errorf("script: unknown instruction %q", cmd)
	}
	return []byte("ok"), nil
}

func script(lines ...string) []raftlog.Op {
	ops := make([]raftlog.Op, len(lines))
	for i, l := range lines {
		ops[i] = raftlog.Op{Kind: scriptKind, Data: []byte(l)}
	}
	return ops
}

func pushOp(items ...queuelog.PushItem) raftlog.Op {
	return (&queuelog.PushOp{Tenant: raftlogtest.Tenant, Items: items}).Op()
}

// TestApplierAllOrNothing: an entry's ops apply together or not at all; an
// abort, an applier's error or an unknown kind rolls back the whole entry,
// pushes included, and says which op did it.
func TestApplierAllOrNothing(t *testing.T) {
	c := raftlogtest.New(t, 1, map[raftlog.OpKind]raftlog.Applier{scriptKind: scriptApplier{}})
	c.StartAll()
	_, s := c.Leader()
	run := func(ops ...raftlog.Op) raftlog.Result { return raftlogtest.Propose(t, s, raftlog.Command{Ops: ops}) }
	list := func() string { return string(run(script("l")...).Ops[0]) }

	res := run(append([]raftlog.Op{pushOp(raftlogtest.Item("q", "p", "t1", []byte("1")))}, script("s k1=v1")...)...)
	if !res.Applied() || len(res.Ops) != 2 || string(res.Ops[1]) != "ok" {
		t.Fatalf("push and set: %+v", res)
	}

	// An abort after a push and a set: nothing of the entry is written, the
	// offset is not used, the transaction id not remembered.
	res = run(append([]raftlog.Op{pushOp(raftlogtest.Item("q", "p", "t2", []byte("2")), raftlogtest.Item("q", "new", "t3", nil))}, script("s k2=v2", "a precondition failed", "s k3=v3")...)...)
	if res.Applied() || res.Aborted != 2 || len(res.Ops) != 3 || string(res.Ops[2]) != "precondition failed" || string(res.Ops[1]) != "ok" {
		t.Fatalf("aborted entry: %+v", res)
	}
	if a, err := queuelog.DecodePushAnswers(res.Ops[0]); err != nil || len(a) != 2 || a[0].Offset != 1 {
		t.Fatalf("the aborted entry's push answered %+v, %v", a, err)
	}
	if got := list(); got != "k1=v1" {
		t.Fatalf("keys after the abort: %s", got)
	}
	if b := raftlogtest.ReadAll(t, s, "q", "p"); b.HighWatermark != 1 {
		t.Fatalf("the aborted push wrote: %+v", b)
	}
	if _, err := raftlogtest.ReadErr(t, s, func(v *raftlog.View) (queuelog.Batch, error) {
		return queuelog.ReadRecords(v, raftlogtest.Tenant, "q", "new", 0, queuelog.ReadLimits{})
	}); !errors.Is(err, queuelog.ErrUnknownPartition) {
		t.Fatalf("the aborted push created its partition: %v", err)
	}
	ans, _ := raftlogtest.Push(t, s, raftlogtest.Item("q", "p", "t2", []byte("2")))
	raftlogtest.CheckAnswer(t, "t2 after its aborted push", ans[0], false, 1, raftlogtest.MID("t2"))

	// An applier's error, and an op no applier knows, are refused answers.
	for _, tc := range []struct {
		ops    []raftlog.Op
		at     int
		reason string
	}{
		{script("s k4=v4", "e boom", "s k5=v5"), 1, "boom"},
		{append(script("s k4=v4"), raftlog.Op{Kind: 999, Data: []byte("?")}), 1, "raftlog: no applier for op kind 999"},
		{[]raftlog.Op{{Kind: queuelog.OpPush, Data: []byte{9, 9}}}, 0, "raftlog: corrupt entry: push op version"},
		{[]raftlog.Op{{Kind: queuelog.OpTrim, Data: []byte{1}}}, 0, "raftlog: corrupt entry: bad uvarint"},
	} {
		res := run(tc.ops...)
		reason, ok := raftlog.Rejected(res.Ops[len(res.Ops)-1])
		if res.Aborted != tc.at || len(res.Ops) != tc.at+1 || !ok || reason != tc.reason {
			t.Fatalf("%v: %+v (rejected %v: %q); want aborted at %d: %q", tc.ops, res, ok, reason, tc.at, tc.reason)
		}
	}
	if got := list(); got != "k1=v1" {
		t.Fatalf("keys after refused entries: %s", got)
	}
	if _, ok := raftlog.Rejected([]byte("ok")); ok {
		t.Fatal("an ordinary answer reads as rejected")
	}

	// Later ops of an entry see the earlier ones' writes, in order.
	res = run(script("s a=1", "g a", "s a=2", "g a", "d a", "g a", "s b=1", "s c=1", "r b c", "g b", "g c", "l")...)
	want := "ok,1,ok,2,ok,-,ok,ok,ok,-,1,c=1,k1=v1"
	if got := answers(res); !res.Applied() || got != want {
		t.Fatalf("ops reading each other: %s, want %s", got, want)
	}
	if got := list(); got != "c=1,k1=v1" {
		t.Fatalf("stored: %s", got)
	}

	// ApplyInfo: the shard, the entry's index and stamp, the op's place.
	res = run(script("i", "i")...)
	for op, a := range res.Ops {
		var shard, index, at uint64
		var stamp int64
		if _, err := fmt.Sscanf(string(a), "%d/%d/%d/%d", &shard, &index, &at, &stamp); err != nil || shard != raftlogtest.ShardID ||
			index != s.Applied() || at != uint64(op) || stamp != res.Stamp {
			t.Fatalf("op %d: apply info %s; want shard 1, index %d, stamp %d", op, a, s.Applied(), res.Stamp)
		}
	}
}

func answers(r raftlog.Result) string {
	var out []string
	for _, a := range r.Ops {
		out = append(out, string(a))
	}
	return strings.Join(out, ",")
}

// TestStartShardRefusesOwnKinds: raftlog's own op kinds (the storage
// gate's node status) take no applier of a family. The queue log's kinds
// are queuelog's, passed in with its appliers like any family's.
func TestStartShardRefusesOwnKinds(t *testing.T) {
	c := raftlogtest.New(t, 1, nil)
	h, err := raftlog.NewHost(c.Config(1))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.StartShard(raftlogtest.ShardID, map[raftlog.OpKind]raftlog.Applier{raftlog.OpNodeStatus: scriptApplier{}}); err == nil {
		t.Fatal("StartShard took an applier for OpNodeStatus")
	}
	if s, err := h.StartShard(raftlogtest.ShardID, nil); err != nil || s == nil {
		t.Fatalf("StartShard after a refused start: %v", err)
	}
}

// TestReadError: a linearizable read answers its function's error.
func TestReadError(t *testing.T) {
	_, s := raftlogtest.Started(t, 1)
	mine := errors.New("mine")
	if _, err := s.Read(raftlogtest.Ctx(t, raftlogtest.Timeout), func(*raftlog.View) (any, error) { return nil, mine }); !errors.Is(err, mine) {
		t.Fatalf("read: %v, want the function's error", err)
	}
}
