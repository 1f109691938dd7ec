package kvstore_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/queen-mq/queen-go/kvstore"
)

// TestOps runs a script of calls, written as the JSON of API.md §5, on a
// fresh one-node cluster and compares each answer's JSON (timestamps left
// out: TestExpiry checks them). Versions are exact: the shard-wide counter
// starts at 0 and each stored row takes the next value.
func TestOps(t *testing.T) {
	_, _, kv := startOne(t)
	steps := []struct{ name, ops, want string }{
		{"put creates at version 1",
			`[{"op":"put","ns":"app","key":"a","value":{ "x" : 1 },"forever":true}]`,
			`{"results":[{"index":0,"op":"put","applied":true,"key":"a","value":{"x":1},"version":1}]}`},
		{"get finds it, compacted",
			`[{"op":"get","ns":"app","key":"a"},{"op":"get","ns":"app","key":"nope"}]`,
			`{"results":[{"index":0,"op":"get","found":true,"key":"a","value":{"x":1},"version":1},
			             {"index":1,"op":"get","found":false,"key":"nope"}]}`},
		{"expect 0 on an existing key loses with the winner's row",
			`[{"op":"put","ns":"app","key":"a","value":2,"forever":true,"expect":0}]`,
			`{"results":[{"index":0,"op":"put","applied":false,"reason":"exists","key":"a","value":{"x":1},"version":1}]}`},
		{"expect N at another version loses",
			`[{"op":"put","ns":"app","key":"a","value":2,"forever":true,"expect":5}]`,
			`{"results":[{"index":0,"op":"put","applied":false,"reason":"version","key":"a","value":{"x":1},"version":1}]}`},
		{"expect N never creates",
			`[{"op":"put","ns":"app","key":"b","value":2,"forever":true,"expect":3}]`,
			`{"results":[{"index":0,"op":"put","applied":false,"reason":"absent","key":"b","version":0}]}`},
		{"putIfAbsent: one winner",
			`[{"op":"putIfAbsent","ns":"app","key":"a","value":3,"forever":true},
			  {"op":"putIfAbsent","ns":"app","key":"c","value":"c","ttlSeconds":3600}]`,
			`{"results":[{"index":0,"op":"putIfAbsent","applied":false,"reason":"exists","key":"a","value":{"x":1},"version":1},
			             {"index":1,"op":"putIfAbsent","applied":true,"key":"c","value":"c","version":2}]}`},
		{"expect N at N updates",
			`[{"op":"put","ns":"app","key":"a","value":2,"forever":true,"expect":1}]`,
			`{"results":[{"index":0,"op":"put","applied":true,"key":"a","value":2,"version":3}]}`},
		{"delete with a stale expect loses",
			`[{"op":"delete","ns":"app","key":"a","expect":1}]`,
			`{"results":[{"index":0,"op":"delete","applied":false,"reason":"version","key":"a","value":2,"version":3}]}`},
		{"delete with the right expect, then again",
			`[{"op":"delete","ns":"app","key":"a","expect":3},{"op":"get","ns":"app","key":"a"}]`,
			`{"results":[{"index":0,"op":"delete","applied":true,"key":"a","version":0},
			             {"index":1,"op":"get","found":false,"key":"a"}]}`},
		{"delete of an absent key",
			`[{"op":"delete","ns":"app","key":"a"}]`,
			`{"results":[{"index":0,"op":"delete","applied":false,"reason":"absent","key":"a","version":0}]}`},
		{"versions keep increasing across a delete",
			`[{"op":"put","ns":"app","key":"a","value":null,"forever":true}]`,
			`{"results":[{"index":0,"op":"put","applied":true,"key":"a","value":null,"version":4}]}`},
		{"check writes nothing",
			`[{"op":"check","ns":"app","key":"a","expect":4},{"op":"check","ns":"app","key":"a","expect":0},
			  {"op":"check","ns":"app","key":"zz","expect":0},{"op":"check","ns":"app","key":"zz","expect":1}]`,
			`{"results":[{"index":0,"op":"check","applied":true,"key":"a","value":null,"version":4},
			             {"index":1,"op":"check","applied":false,"reason":"exists","key":"a","value":null,"version":4},
			             {"index":2,"op":"check","applied":true,"key":"zz","version":0},
			             {"index":3,"op":"check","applied":false,"reason":"absent","key":"zz","version":0}]}`},
		{"incr in exact decimals: 0.1",
			`[{"op":"incr","ns":"app","key":"n","delta":0.1,"forever":true}]`,
			`{"results":[{"index":0,"op":"incr","applied":true,"key":"n","value":0.1,"version":5}]}`},
		{"incr in exact decimals: + 0.2",
			`[{"op":"incr","ns":"app","key":"n","delta":0.2,"forever":true}]`,
			`{"results":[{"index":0,"op":"incr","applied":true,"key":"n","value":0.3,"version":6}]}`},
		{"incr bounds are inclusive: up to max",
			`[{"op":"incr","ns":"app","key":"n","delta":0.7,"max":1,"forever":true}]`,
			`{"results":[{"index":0,"op":"incr","applied":true,"key":"n","value":1.0,"version":7}]}`},
		{"incr bounds: past max",
			`[{"op":"incr","ns":"app","key":"n","delta":"0.01","max":1,"forever":true}]`,
			`{"results":[{"index":0,"op":"incr","applied":false,"reason":"limit","key":"n","value":1.0,"version":7}]}`},
		{"incr bounds: down to min",
			`[{"op":"incr","ns":"app","key":"n","delta":-1.00,"min":0,"forever":true}]`,
			`{"results":[{"index":0,"op":"incr","applied":true,"key":"n","value":0.00,"version":8}]}`},
		{"incr on a value that is not a number, and creation out of bounds",
			`[{"op":"incr","ns":"app","key":"c","delta":1,"forever":true},{"op":"incr","ns":"app","key":"a","delta":1,"forever":true},
			  {"op":"incr","ns":"app","key":"m","delta":5,"max":3,"forever":true}]`,
			`{"results":[{"index":0,"op":"incr","applied":false,"reason":"type","key":"c","value":"c","version":2},
			             {"index":1,"op":"incr","applied":false,"reason":"type","key":"a","value":null,"version":4},
			             {"index":2,"op":"incr","applied":false,"reason":"limit","key":"m","version":0}]}`},
		{"incr creates from 0",
			`[{"op":"incr","ns":"app","key":"m","delta":-2,"min":-2,"ttlSeconds":60}]`,
			`{"results":[{"index":0,"op":"incr","applied":true,"key":"m","value":-2,"version":9}]}`},
		{"incr keeps an exponent only where an input had one",
			`[{"op":"put","ns":"app","key":"e","value":1e2,"forever":true},{"op":"incr","ns":"app","key":"f","delta":1.50,"forever":true},
			  {"op":"put","ns":"app","key":"y","value":2E+3,"forever":true}]`,
			`{"results":[{"index":0,"op":"put","applied":true,"key":"e","value":1e2,"version":10},
			             {"index":1,"op":"incr","applied":true,"key":"f","value":1.50,"version":11},
			             {"index":2,"op":"put","applied":true,"key":"y","value":2E+3,"version":12}]}`},
		{"incr keeps an exponent only where an input had one: sums",
			`[{"op":"incr","ns":"app","key":"e","delta":1,"forever":true},{"op":"incr","ns":"app","key":"f","delta":1,"forever":true},
			  {"op":"incr","ns":"app","key":"x","delta":2E+1,"forever":true},{"op":"incr","ns":"app","key":"y","delta":1e3,"forever":true}]`,
			`{"results":[{"index":0,"op":"incr","applied":true,"key":"e","value":101,"version":13},
			             {"index":1,"op":"incr","applied":true,"key":"f","value":2.50,"version":14},
			             {"index":2,"op":"incr","applied":true,"key":"x","value":20,"version":15},
			             {"index":3,"op":"incr","applied":true,"key":"y","value":3E+3,"version":16}]}`},
		{"a write call sees its own writes",
			`[{"op":"put","ns":"app","key":"d","value":[1],"forever":true},{"op":"get","ns":"app","key":"d"},
			  {"op":"getMany","ns":"app","keys":["d","zz","c","a","d"]}]`,
			`{"results":[{"index":0,"op":"put","applied":true,"key":"d","value":[1],"version":17},
			             {"index":1,"op":"get","found":true,"key":"d","value":[1],"version":17},
			             {"index":2,"op":"getMany","rows":[{"key":"a","value":null,"version":4},{"key":"c","value":"c","version":2},
			                                               {"key":"d","value":[1],"version":17}],"missing":["zz"],"truncated":false}]}`},
		{"a lost required op rolls the call back",
			`[{"op":"put","ns":"app","key":"g","value":1,"forever":true},{"op":"incr","ns":"app","key":"n","delta":1,"forever":true},
			  {"op":"put","ns":"app","key":"d","value":2,"forever":true,"expect":16,"required":true},
			  {"op":"put","ns":"app","key":"h","value":1,"forever":true}]`,
			`{"ok":false,"reason":"kv_precondition","failedIndex":2,"kvReason":"version","version":17,"value":[1]}`},
		{"nothing of it was written, and no version was spent",
			`[{"op":"getMany","ns":"app","keys":["g","h","n"]},{"op":"put","ns":"app","key":"g","value":1,"forever":true}]`,
			`{"results":[{"index":0,"op":"getMany","rows":[{"key":"n","value":0.00,"version":8}],"missing":["g","h"],"truncated":false},
			             {"index":1,"op":"put","applied":true,"key":"g","value":1,"version":18}]}`},
		{"a lost op that is not required does not roll back",
			`[{"op":"check","ns":"app","key":"g","expect":1},{"op":"put","ns":"app","key":"h","value":1,"forever":true}]`,
			`{"results":[{"index":0,"op":"check","applied":false,"reason":"version","key":"g","value":1,"version":18},
			             {"index":1,"op":"put","applied":true,"key":"h","value":1,"version":19}]}`},
		{"a required check fences a read-only call too",
			`[{"op":"check","ns":"app","key":"g","expect":18,"required":true},{"op":"check","ns":"app","key":"h","expect":1,"required":true}]`,
			`{"ok":false,"reason":"kv_precondition","failedIndex":1,"kvReason":"version","version":19,"value":1}`},
		{"rows for getPrefix",
			`[{"op":"put","ns":"app","key":"p/1","value":1,"forever":true},{"op":"put","ns":"app","key":"p/2","value":2,"forever":true},
			  {"op":"put","ns":"app","key":"p/3","value":3,"forever":true},{"op":"put","ns":"app","key":"q","value":4,"forever":true},
			  {"op":"put","ns":"app","key":"p","value":0,"forever":true}]`,
			`{"results":[{"index":0,"op":"put","applied":true,"key":"p/1","value":1,"version":20},
			             {"index":1,"op":"put","applied":true,"key":"p/2","value":2,"version":21},
			             {"index":2,"op":"put","applied":true,"key":"p/3","value":3,"version":22},
			             {"index":3,"op":"put","applied":true,"key":"q","value":4,"version":23},
			             {"index":4,"op":"put","applied":true,"key":"p","value":0,"version":24}]}`},
		{"getPrefix pages by after, exclusive",
			`[{"op":"getPrefix","ns":"app","prefix":"p/","limit":2},{"op":"getPrefix","ns":"app","prefix":"p/","after":"p/2"},
			  {"op":"getPrefix","ns":"app","prefix":"p/","after":"p/3"},{"op":"getPrefix","ns":"app","prefix":"p","keysOnly":true,"limit":-4},
			  {"op":"getPrefix","ns":"app","prefix":"p/","after":"a"}]`,
			`{"results":[{"index":0,"op":"getPrefix","rows":[{"key":"p/1","value":1,"version":20},{"key":"p/2","value":2,"version":21}],"truncated":true,"nextAfter":"p/2"},
			             {"index":1,"op":"getPrefix","rows":[{"key":"p/3","value":3,"version":22}],"truncated":false,"nextAfter":null},
			             {"index":2,"op":"getPrefix","rows":[],"truncated":false,"nextAfter":null},
			             {"index":3,"op":"getPrefix","rows":[{"key":"p","version":24}],"truncated":true,"nextAfter":"p"},
			             {"index":4,"op":"getPrefix","rows":[{"key":"p/1","value":1,"version":20},{"key":"p/2","value":2,"version":21},
			                                                 {"key":"p/3","value":3,"version":22}],"truncated":false,"nextAfter":null}]}`},
		{"namespaces are apart",
			`[{"op":"get","ns":"other","key":"a"},{"op":"getPrefix","ns":"ap","prefix":"p"}]`,
			`{"results":[{"index":0,"op":"get","found":false,"key":"a"},{"index":1,"op":"getPrefix","rows":[],"truncated":false,"nextAfter":null}]}`},
	}
	for _, st := range steps {
		var ops []kvstore.Op
		if err := json.Unmarshal([]byte(st.ops), &ops); err != nil {
			t.Fatalf("%s: ops: %v", st.name, err)
		}
		a, err := kv.Do(ctx(t), tenant, ops)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := withoutTimes(t, got), withoutTimes(t, []byte(st.want)); g != w {
			t.Errorf("%s:\n got %s\nwant %s", st.name, g, w)
		}
	}

	// Another tenant sees none of it.
	a, err := kv.Do(ctx(t), "another-tenant", []kvstore.Op{get("a"), {Op: kvstore.OpGetPrefix, NS: "app", Prefix: "p"}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Results[0].Found || len(a.Results[1].Rows) != 0 {
		t.Errorf("another tenant reads %+v", a.Results)
	}
}

// withoutTimes re-renders JSON without the expiresAt and updatedAt fields.
func withoutTimes(t *testing.T, b []byte) string {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	var strip func(any)
	strip = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			delete(v, "expiresAt")
			delete(v, "updatedAt")
			for _, x := range v {
				strip(x)
			}
		case []any:
			for _, x := range v {
				strip(x)
			}
		}
	}
	strip(v)
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
