package contract

import (
	"encoding/json"
	"testing"
)

// TestAnswerJSON: the shapes of API.md §5, timestamps rendered, a row
// that never expires with expiresAt null, an absent value left out.
func TestAnswerJSON(t *testing.T) {
	const at = 1790072130123400 // 2026-09-22T10:15:30.1234
	cases := []struct {
		a    KVAnswer
		want string
	}{
		{KVAnswer{OK: true, Results: []KVResult{
			{Index: 0, Op: KVGet, Key: "a", Found: true, Value: json.RawMessage(`{"x":1}`), Version: 7, ExpiresAt: at + 500_000, UpdatedAt: at},
			{Index: 1, Op: KVGet, Key: "b"},
			{Index: 2, Op: KVGetMany, Rows: []KVRow{{Key: "a", Value: json.RawMessage(`null`), Version: 2, UpdatedAt: at}}},
			{Index: 3, Op: KVGetPrefix, Rows: []KVRow{{Key: "p", Version: 3, UpdatedAt: at}}, Truncated: true, NextAfter: "p"},
			{Index: 4, Op: KVPut, Key: "k", Reason: "absent"},
			{Index: 5, Op: KVIncr, Key: "n", Applied: true, Value: json.RawMessage(`0.3`), Version: 9},
		}},
			`{"results":[` +
				`{"index":0,"op":"get","found":true,"key":"a","value":{"x":1},"version":7,"expiresAt":"2026-09-22T10:15:30.6234+00:00","updatedAt":"2026-09-22T10:15:30.1234+00:00"},` +
				`{"index":1,"op":"get","found":false,"key":"b"},` +
				`{"index":2,"op":"getMany","rows":[{"key":"a","value":null,"version":2,"expiresAt":null,"updatedAt":"2026-09-22T10:15:30.1234+00:00"}],"missing":[],"truncated":false},` +
				`{"index":3,"op":"getPrefix","rows":[{"key":"p","version":3,"expiresAt":null,"updatedAt":"2026-09-22T10:15:30.1234+00:00"}],"truncated":true,"nextAfter":"p"},` +
				`{"index":4,"op":"put","applied":false,"reason":"absent","key":"k","version":0},` +
				`{"index":5,"op":"incr","applied":true,"key":"n","value":0.3,"version":9}]}`},
		{KVAnswer{FailedIndex: 2, KVReason: "version", Version: 4, Value: json.RawMessage(`"v"`)},
			`{"ok":false,"reason":"kv_precondition","failedIndex":2,"kvReason":"version","version":4,"value":"v"}`},
		{KVAnswer{OK: true}, `{"results":[]}`},
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

func TestFormatKVStamp(t *testing.T) {
	for us, want := range map[int64]string{
		0:                "1970-01-01T00:00:00+00:00",
		1790072130123400: "2026-09-22T10:15:30.1234+00:00",
		1790072130000001: "2026-09-22T10:15:30.000001+00:00",
		1790072130500000: "2026-09-22T10:15:30.5+00:00",
		1790072130000000: "2026-09-22T10:15:30+00:00",
	} {
		if got := FormatKVStamp(us); got != want {
			t.Errorf("FormatKVStamp(%d) = %s, want %s", us, got, want)
		}
	}
}
