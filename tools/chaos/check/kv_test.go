package check

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func put(c int, key, v string, call, ret int64) KVOp {
	return KVOp{Client: c, Kind: "put", Key: key, Value: v, Call: call, Return: ret}
}

func get(c int, key, v string, call, ret int64) KVOp {
	return KVOp{Client: c, Kind: "get", Key: key, Value: v, Found: true, Call: call, Return: ret}
}

func getAbsent(c int, key string, call, ret int64) KVOp {
	return KVOp{Client: c, Kind: "get", Key: key, Call: call, Return: ret}
}

// unknown makes op one that got no answer; its Return is then meaningless.
func unknown(op KVOp) KVOp {
	op.Unknown, op.Return = true, 0
	return op
}

func TestCheckKV(t *testing.T) {
	tests := []struct {
		name   string
		ops    []KVOp
		want   []string
		detail string
	}{
		{name: "empty"},
		{name: "good: sequential and concurrent", ops: []KVOp{
			getAbsent(0, "k", 0, 5),
			put(0, "k", "a", 10, 20),
			get(1, "k", "a", 30, 40),
			put(0, "k", "b", 50, 100),
			get(1, "k", "a", 55, 60), // concurrent with put b: either
			get(2, "k", "b", 70, 80),
			get(1, "k", "b", 110, 120),
			put(3, "j", "x", 0, 10),
			get(3, "j", "x", 20, 30),
		}},
		{name: "good: closed intervals touch", ops: []KVOp{
			put(0, "k", "a", 10, 20),
			getAbsent(1, "k", 20, 30), // concurrent at t=20
		}},
		{name: "stale read after a completed put", want: []string{KindNonlinearizable}, detail: `key "k"`, ops: []KVOp{
			put(0, "k", "a", 0, 10),
			put(0, "k", "b", 20, 30),
			get(1, "k", "a", 40, 50),
		}},
		{name: "absent after a completed put", want: []string{KindNonlinearizable}, ops: []KVOp{
			put(0, "k", "a", 0, 10),
			getAbsent(1, "k", 20, 30),
		}},
		{name: "read of a value never written", want: []string{KindNonlinearizable}, detail: `c1 get "z" [0,10]`, ops: []KVOp{
			get(1, "k", "z", 0, 10),
		}},
		{name: "concurrent puts, reads disagree on their order", want: []string{KindNonlinearizable}, ops: []KVOp{
			put(0, "k", "a", 0, 100),
			put(1, "k", "b", 0, 100),
			get(2, "k", "a", 10, 20), get(2, "k", "b", 30, 40),
			get(3, "k", "b", 10, 20), get(3, "k", "a", 30, 40),
		}},
		{name: "only the bad key is named", want: []string{KindNonlinearizable}, detail: `key "bad"`, ops: []KVOp{
			put(0, "good", "a", 0, 10), get(1, "good", "a", 20, 30),
			put(0, "bad", "a", 0, 10), getAbsent(1, "bad", 20, 30),
		}},
		{name: "unknown put whose effect shows later", ops: []KVOp{
			put(0, "k", "a", 0, 10),
			unknown(put(1, "k", "b", 20, 0)),
			get(2, "k", "a", 30, 40),
			get(2, "k", "b", 1000, 1010),
		}},
		{name: "unknown put that never shows", ops: []KVOp{
			unknown(put(1, "k", "b", 0, 0)),
			getAbsent(2, "k", 30, 40),
			put(0, "k", "a", 50, 60),
			get(2, "k", "a", 70, 80),
		}},
		{name: "unknown put shows before its call", want: []string{KindNonlinearizable}, ops: []KVOp{
			get(2, "k", "b", 0, 10),
			unknown(put(1, "k", "b", 20, 0)),
		}},
		{name: "unknown put takes effect once", want: []string{KindNonlinearizable}, ops: []KVOp{
			put(0, "k", "a", 0, 10),
			unknown(put(1, "k", "b", 20, 0)),
			get(2, "k", "b", 30, 40),
			get(2, "k", "a", 50, 60),
		}},
		{name: "unknown get is ignored", ops: []KVOp{
			put(0, "k", "a", 0, 10),
			unknown(get(1, "k", "never", 20, 0)),
			unknown(getAbsent(1, "k", 30, 0)),
			get(1, "k", "a", 40, 50),
		}},
		{name: "invalid op kind", want: []string{KindInvalid}, ops: []KVOp{
			{Kind: "cas", Key: "k", Call: 0, Return: 1},
		}},
		{name: "invalid times", want: []string{KindInvalid}, ops: []KVOp{
			put(0, "k", "a", 10, 5),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckKV(tt.ops)
			assertKinds(t, got, tt.want)
			if tt.detail != "" && len(got) > 0 && !strings.Contains(got[0].Detail, tt.detail) {
				t.Errorf("detail %q lacks %q", got[0].Detail, tt.detail)
			}
		})
	}
}

// TestCheckKVUndecided gives porcupine a key it cannot settle in time: many
// concurrent puts of unknown outcome, then a read of a value none wrote,
// so it must try every subset of the puts before it can say Illegal.
func TestCheckKVUndecided(t *testing.T) {
	defer func(d time.Duration) { CheckKVTimeout = d }(CheckKVTimeout)
	CheckKVTimeout = 20 * time.Millisecond
	var ops []KVOp
	for i := range 28 {
		ops = append(ops, unknown(put(i, "k", fmt.Sprint("v", i), int64(i), 0)))
	}
	ops = append(ops, get(99, "k", "none", 1000, 1010))
	got := CheckKV(ops)
	assertKinds(t, got, []string{KindUndecided})
}
