package kvstore

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// seedCalls are calls of every op kind, as prepare leaves them.
func seedCalls(t testing.TB) []*call {
	ttl, zero, five := int64(30), int64(0), int64(5)
	calls := [][]Op{
		{{Op: OpGet, NS: "app", Key: "a"}},
		{{Op: OpGetMany, NS: "app", Keys: []string{"b", "a"}}, {Op: OpGetPrefix, NS: "app", Prefix: "p/", After: "p/1", Limit: 7, KeysOnly: true}},
		{{Op: OpPut, NS: "app", Key: "a", Value: json.RawMessage(`{ "x": [1, null] }`), TTLSeconds: &ttl, Expect: &five, Required: true},
			{Op: OpPutIfAbsent, NS: "queen-locks", Key: "l#0", Value: json.RawMessage(`"owner"`), Forever: true},
			{Op: OpDelete, NS: "app", Key: "d", Expect: &five},
			{Op: OpIncr, NS: "app", Key: "n", Delta: "-0.5", Min: "-10", Max: "1e3", Forever: true},
			{Op: OpCheck, NS: "app", Key: "c", Expect: &zero, Required: true}},
	}
	var out []*call
	for _, ops := range calls {
		c, err := prepare("tenant-1", ops)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

func seedAnswers() []*Answer {
	return []*Answer{
		{OK: true, Results: []Result{
			{Index: 0, Op: OpGet, Key: "a", Found: true, Value: json.RawMessage(`1`), Version: 3, ExpiresAt: 10, UpdatedAt: 5},
			{Index: 1, Op: OpGetMany, Rows: []Row{{Key: "a", Value: json.RawMessage(`null`), Version: 1, UpdatedAt: 2}}, Missing: []string{"b"}, Truncated: true},
			{Index: 2, Op: OpGetPrefix, Rows: []Row{{Key: "p/1", Version: 9, ExpiresAt: -1, UpdatedAt: 1}}, Truncated: true, NextAfter: "p/1"},
			{Index: 3, Op: OpPut, Key: "k", Reason: ReasonVersion, Value: json.RawMessage(`"v"`), Version: 4},
			{Index: 4, Op: OpIncr, Key: "n", Applied: true, Value: json.RawMessage(`0.3`), Version: 5},
			{Index: 5, Op: OpDelete, Key: "d", Applied: true},
		}},
		{FailedIndex: 3, KVReason: ReasonExists, Version: 12, Value: json.RawMessage(`{"a":1}`)},
		{FailedIndex: 0, KVReason: ReasonAbsent},
	}
}

func TestCallRoundTrip(t *testing.T) {
	testRoundTrip(t, "call", seedCalls(t), decodeCall, func(c *call) []byte { return appendCall(nil, c) })
}

func TestAnswerRoundTrip(t *testing.T) {
	testRoundTrip(t, "answer", seedAnswers(), DecodeAnswer, func(a *Answer) []byte { return appendAnswer(nil, a) })
}

// testRoundTrip checks that each value decodes from its encoding as it was.
func testRoundTrip[T any](t *testing.T, what string, values []T, decode func([]byte) (T, error), encode func(T) []byte) {
	for i, v := range values {
		got, err := decode(encode(v))
		if err != nil {
			t.Fatalf("%s %d: %v", what, i, err)
		}
		if !reflect.DeepEqual(got, v) {
			t.Errorf("%s %d:\n got %+v\nwant %+v", what, i, got, v)
		}
	}
}

// FuzzCallCodec: decoding arbitrary bytes never panics, and whatever
// decodes encodes to bytes that decode to the same call.
func FuzzCallCodec(f *testing.F) {
	var seeds [][]byte
	for _, c := range seedCalls(f) {
		seeds = append(seeds, appendCall(nil, c))
	}
	fuzzRoundTrip(f, seeds, decodeCall, func(c *call) []byte { return appendCall(nil, c) })
}

// FuzzAnswerCodec: the same for answers.
func FuzzAnswerCodec(f *testing.F) {
	var seeds [][]byte
	for _, a := range seedAnswers() {
		seeds = append(seeds, appendAnswer(nil, a))
	}
	fuzzRoundTrip(f, seeds, DecodeAnswer, func(a *Answer) []byte { return appendAnswer(nil, a) })
}

// fuzzRoundTrip fuzzes a codec from seeds: decoding never panics, and
// what decodes encodes to stable bytes that decode to the same value.
func fuzzRoundTrip[T any](f *testing.F, seeds [][]byte, decode func([]byte) (T, error), encode func(T) []byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := decode(b)
		if err != nil {
			return
		}
		enc := encode(v)
		v2, err := decode(enc)
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if !reflect.DeepEqual(v, v2) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", v2, v)
		}
		if enc2 := encode(v2); !bytes.Equal(enc, enc2) {
			t.Fatalf("the encoding is not stable")
		}
	})
}

// FuzzRow: stored rows decode without panics and round trip.
func FuzzRow(f *testing.F) {
	f.Add((&row{version: 7, expiresAt: 1790072130123400, updatedAt: 1790072129000000, value: []byte(`{"a":1}`)}).encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRow(b)
		if err != nil {
			return
		}
		r2, err := decodeRow(r.encode())
		if err != nil || !reflect.DeepEqual(r, r2) {
			t.Fatalf("round trip: %+v, %v; want %+v", r2, err, r)
		}
	})
}
