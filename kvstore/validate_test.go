package kvstore_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/kvstore"
)

// TestValidation checks every refusal of API.md §5: the class (the size
// of a key or a value, or the call's shape), reason and op index, and
// that nothing was proposed.
func TestValidation(t *testing.T) {
	_, s, kv := startOne(t)
	big := `"` + strings.Repeat("x", kvstore.MaxValueBytes-1) + `"` // 64 KiB + 1 compacted
	fits := `[  "` + strings.Repeat("x", kvstore.MaxValueBytes-4) + `"  ]`
	many := func(n int, op kvstore.Op) []kvstore.Op {
		ops := make([]kvstore.Op, n)
		for i := range ops {
			ops[i] = op
		}
		return ops
	}
	keys := func(n int) []string {
		k := make([]string, n)
		for i := range k {
			k[i] = "k" + strings.Repeat("x", i%7) + string(rune('a'+i%26))
		}
		return k
	}
	forever := func(o kvstore.Op) kvstore.Op { o.Forever = true; return o }
	const shape, size = false, true // the class: contract.KVError.TooLarge
	cases := []struct {
		name     string
		ops      []kvstore.Op
		tooLarge bool
		reason   string
		index    int
	}{
		{"unknown op", []kvstore.Op{get("a"), {Op: "scan", NS: "app", Key: "a"}}, shape, contract.KVReasonUnknownOp, 1},
		{"empty namespace", []kvstore.Op{{Op: kvstore.OpGet, Key: "a"}}, shape, contract.KVReasonBadNamespace, 0},
		{"namespace starts with a dot", []kvstore.Op{{Op: kvstore.OpGet, NS: ".app", Key: "a"}}, shape, contract.KVReasonBadNamespace, 0},
		{"namespace in capitals", []kvstore.Op{{Op: kvstore.OpGet, NS: "App", Key: "a"}}, shape, contract.KVReasonBadNamespace, 0},
		{"namespace of 65 bytes", []kvstore.Op{{Op: kvstore.OpGet, NS: strings.Repeat("a", 65), Key: "a"}}, shape, contract.KVReasonBadNamespace, 0},
		{"empty key", []kvstore.Op{get("")}, shape, contract.KVReasonBadKey, 0},
		{"key with NUL", []kvstore.Op{get("a\x00b")}, shape, contract.KVReasonBadKey, 0},
		{"key of 513 bytes", []kvstore.Op{get(strings.Repeat("k", 513))}, size, contract.KVReasonKeyTooLarge, 0},
		{"getMany key of 513 bytes", []kvstore.Op{{Op: kvstore.OpGetMany, NS: "app", Keys: []string{"a", strings.Repeat("k", 513)}}}, size, contract.KVReasonKeyTooLarge, 0},
		{"value over 64 KiB compacted", []kvstore.Op{put("a", big)}, size, contract.KVReasonValueTooLarge, 0},
		{"value that is not JSON", []kvstore.Op{put("a", `{"a":`)}, shape, contract.KVReasonBadValue, 0},
		{"put without a value", []kvstore.Op{{Op: kvstore.OpPut, NS: "app", Key: "a", Forever: true}}, shape, contract.KVReasonBadValue, 0},
		{"257 ops", many(257, get("a")), shape, contract.KVReasonTooManyOps, -1},
		{"1025 keys", []kvstore.Op{get("a"), {Op: kvstore.OpGetMany, NS: "app", Keys: keys(1024)}}, shape, contract.KVReasonTooManyKeys, 1},
		{"two writes of one key", []kvstore.Op{put("a", "1"), get("a"), {Op: kvstore.OpDelete, NS: "app", Key: "a"}}, shape, contract.KVReasonDuplicateKey, 2},
		{"no expiry", []kvstore.Op{{Op: kvstore.OpPut, NS: "app", Key: "a", Value: json.RawMessage("1")}}, shape, contract.KVReasonExpiryNotGiven, 0},
		{"both expiries", []kvstore.Op{{Op: kvstore.OpPut, NS: "app", Key: "a", Value: json.RawMessage("1"), Forever: true, TTLSeconds: i64(5)}}, shape, contract.KVReasonExpiryNotGiven, 0},
		{"incr without expiry", []kvstore.Op{{Op: kvstore.OpIncr, NS: "app", Key: "a", Delta: "1"}}, shape, contract.KVReasonExpiryNotGiven, 0},
		{"ttl 0", []kvstore.Op{{Op: kvstore.OpPutIfAbsent, NS: "app", Key: "a", Value: json.RawMessage("1"), TTLSeconds: i64(0)}}, shape, contract.KVReasonBadTTL, 0},
		{"negative ttl", []kvstore.Op{{Op: kvstore.OpPut, NS: "app", Key: "a", Value: json.RawMessage("1"), TTLSeconds: i64(-1)}}, shape, contract.KVReasonBadTTL, 0},
		{"putIfAbsent with expect 3", []kvstore.Op{forever(kvstore.Op{Op: kvstore.OpPutIfAbsent, NS: "app", Key: "a", Value: json.RawMessage("1"), Expect: i64(3)})}, shape, contract.KVReasonBadExpect, 0},
		{"incr with expect", []kvstore.Op{forever(kvstore.Op{Op: kvstore.OpIncr, NS: "app", Key: "a", Delta: "1", Expect: i64(1)})}, shape, contract.KVReasonBadExpect, 0},
		{"check without expect", []kvstore.Op{{Op: kvstore.OpCheck, NS: "app", Key: "a"}}, shape, contract.KVReasonBadExpect, 0},
		{"negative expect", []kvstore.Op{forever(kvstore.Op{Op: kvstore.OpPut, NS: "app", Key: "a", Value: json.RawMessage("1"), Expect: i64(-1)})}, shape, contract.KVReasonBadExpect, 0},
		{"delete with expect 0", []kvstore.Op{{Op: kvstore.OpDelete, NS: "app", Key: "a", Expect: i64(0)}}, shape, contract.KVReasonBadExpect, 0},
		{"incr without delta", []kvstore.Op{forever(kvstore.Op{Op: kvstore.OpIncr, NS: "app", Key: "a"})}, shape, contract.KVReasonBadDelta, 0},
		{"incr delta not a number", []kvstore.Op{forever(kvstore.Op{Op: kvstore.OpIncr, NS: "app", Key: "a", Delta: "NaN"})}, shape, contract.KVReasonBadDelta, 0},
		{"incr min above max", []kvstore.Op{forever(kvstore.Op{Op: kvstore.OpIncr, NS: "app", Key: "a", Delta: "1", Min: "2", Max: "1.5"})}, shape, contract.KVReasonBadBounds, 0},
		{"incr bound not a number", []kvstore.Op{forever(kvstore.Op{Op: kvstore.OpIncr, NS: "app", Key: "a", Delta: "1", Max: "+1"})}, shape, contract.KVReasonBadBounds, 0},
		{"getPrefix without prefix", []kvstore.Op{{Op: kvstore.OpGetPrefix, NS: "app"}}, shape, contract.KVReasonPrefixRequired, 0},
		{"getPrefix after with NUL", []kvstore.Op{{Op: kvstore.OpGetPrefix, NS: "app", Prefix: "p", After: "p\x00"}}, shape, contract.KVReasonBadKey, 0},
	}
	before := s.Applied()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := kv.Do(ctx(t), tenant, c.ops)
			var e *contract.KVError
			if !errors.As(err, &e) {
				t.Fatalf("err %v, want a *contract.KVError", err)
			}
			// httpd.KVRefusal maps the class to a status (httpd's
			// TestKVRefusal).
			if e.TooLarge() != c.tooLarge || e.Reason != c.reason || e.Index != c.index || e.Detail == "" {
				t.Errorf("got too large %v %s op %d (%s), want too large %v %s op %d", e.TooLarge(), e.Reason, e.Index, e.Detail, c.tooLarge, c.reason, c.index)
			}
		})
	}
	if after := s.Applied(); after != before {
		t.Errorf("refused calls applied entries %d..%d", before+1, after)
	}

	// The edges that pass: 256 ops, 1024 keys, a 512-byte key, a value of
	// exactly 64 KiB once compacted, a 64-byte namespace.
	ok := [][]kvstore.Op{
		many(256, get("a")),
		{{Op: kvstore.OpGetMany, NS: "app", Keys: keys(1024)}},
		{put(strings.Repeat("k", 512), "1")},
		{put("big", fits)},
		{{Op: kvstore.OpGet, NS: "a-9._" + strings.Repeat("z", 59), Key: "a"}},
	}
	for i, ops := range ok {
		if _, err := kv.Do(ctx(t), tenant, ops); err != nil {
			t.Errorf("edge %d: %v", i, err)
		}
	}
	if _, err := kv.Do(ctx(t), "", []kvstore.Op{get("a")}); err == nil {
		t.Error("an empty tenant was accepted")
	}
	if a, err := kv.Do(ctx(t), tenant, nil); err != nil || !a.OK || len(a.Results) != 0 {
		t.Errorf("an empty call answered %+v, %v", a, err)
	}
}
