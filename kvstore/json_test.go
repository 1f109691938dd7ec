package kvstore

import (
	"encoding/json"
	"testing"
)

// TestAnswerJSON: the shapes of API.md §5, timestamps rendered, a row
// that never expires with expiresAt null, an absent value left out.
func TestAnswerJSON(t *testing.T) {
	const at = 1790072130123400 // 2026-09-22T10:15:30.1234
	cases := []struct {
		a    Answer
		want string
	}{
		{Answer{OK: true, Results: []Result{
			{Index: 0, Op: OpGet, Key: "a", Found: true, Value: json.RawMessage(`{"x":1}`), Version: 7, ExpiresAt: at + 500_000, UpdatedAt: at},
			{Index: 1, Op: OpGet, Key: "b"},
			{Index: 2, Op: OpGetMany, Rows: []Row{{Key: "a", Value: json.RawMessage(`null`), Version: 2, UpdatedAt: at}}},
			{Index: 3, Op: OpGetPrefix, Rows: []Row{{Key: "p", Version: 3, UpdatedAt: at}}, Truncated: true, NextAfter: "p"},
			{Index: 4, Op: OpPut, Key: "k", Reason: ReasonAbsent},
			{Index: 5, Op: OpIncr, Key: "n", Applied: true, Value: json.RawMessage(`0.3`), Version: 9},
		}},
			`{"results":[` +
				`{"index":0,"op":"get","found":true,"key":"a","value":{"x":1},"version":7,"expiresAt":"2026-09-22T10:15:30.6234+00:00","updatedAt":"2026-09-22T10:15:30.1234+00:00"},` +
				`{"index":1,"op":"get","found":false,"key":"b"},` +
				`{"index":2,"op":"getMany","rows":[{"key":"a","value":null,"version":2,"expiresAt":null,"updatedAt":"2026-09-22T10:15:30.1234+00:00"}],"missing":[],"truncated":false},` +
				`{"index":3,"op":"getPrefix","rows":[{"key":"p","version":3,"expiresAt":null,"updatedAt":"2026-09-22T10:15:30.1234+00:00"}],"truncated":true,"nextAfter":"p"},` +
				`{"index":4,"op":"put","applied":false,"reason":"absent","key":"k","version":0},` +
				`{"index":5,"op":"incr","applied":true,"key":"n","value":0.3,"version":9}]}`},
		{Answer{Reason: ReasonPrecondition, FailedIndex: 2, KVReason: ReasonVersion, Version: 4, Value: json.RawMessage(`"v"`)},
			`{"ok":false,"reason":"kv_precondition","failedIndex":2,"kvReason":"version","version":4,"value":"v"}`},
		{Answer{OK: true}, `{"results":[]}`},
	}
	for i, c := range cases {
		got, err := json.Marshal(c.a)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("answer %d:\n got %s\nwant %s", i, got, c.want)
		}
	}
}
