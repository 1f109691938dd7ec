package inproc

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// node is the broker the tests of this package share; each test uses
// queues of its own.
var node *Node

func TestMain(m *testing.M) {
	var err error
	if node, err = Start(Options{}); err != nil {
		fmt.Fprintln(os.Stderr, "inproc:", err)
		os.Exit(1)
	}
	code := m.Run()
	node.Close()
	os.Exit(code)
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// do serves one request on the shared node.
func do(t testing.TB, method, target, body string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	return node.Do(ctx(t), method, target, []byte(body), header...)
}

// want fails unless w has status and, when code is not "", that error code.
func want(t testing.TB, w *httptest.ResponseRecorder, status int, code string) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status %d, want %d: %.400s", w.Code, status, w.Body)
	}
	if code == "" {
		return
	}
	var b struct{ Code, Reason string }
	if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil || (b.Code != code && b.Reason != code) {
		t.Fatalf("body %.400s, want code %s (%v)", w.Body, code, err)
	}
}

// wantMsg fails unless w's error message holds each of parts.
func wantMsg(t testing.TB, w *httptest.ResponseRecorder, parts ...string) {
	t.Helper()
	var b struct{ Error, Detail string }
	if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil {
		t.Fatalf("body %.400s: %v", w.Body, err)
	}
	for _, p := range parts {
		if !strings.Contains(b.Error+" "+b.Detail, p) {
			t.Fatalf("error %q does not say %q", b.Error+" "+b.Detail, p)
		}
	}
}

// pushAnswer is one element of a push's answer.
type pushAnswer struct {
	Status string
	Offset *int64
	Error  string
}

// push pushes one item to queue q, partition p and answers its element.
func push(t testing.TB, q, p, txn string, payload string) pushAnswer {
	t.Helper()
	item := map[string]any{"queue": q, "partition": p, "payload": json.RawMessage(payload)}
	if txn != "" {
		item["transactionId"] = txn
	}
	body, _ := json.Marshal(map[string]any{"items": []any{item}})
	w := do(t, "POST", "/api/v1/push", string(body))
	want(t, w, 201, "")
	var got []pushAnswer
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || len(got) != 1 {
		t.Fatalf("push answer %s: %v", w.Body, err)
	}
	return got[0]
}

// fetched is the first entry of a fetch's answer.
type fetched struct {
	Records []struct {
		Offset        int64
		TransactionID string
		Payload       json.RawMessage
	}
	HighWatermark  int64
	LogStartOffset int64
	Error          string
}

func fetch(t testing.TB, q, p string, offset int64) fetched {
	t.Helper()
	return fetchWith(t, q, p, offset, nil)
}

// fetchWith is fetch with the body's other fields (minBytes, maxWaitMs).
func fetchWith(t testing.TB, q, p string, offset int64, fields map[string]any) fetched {
	t.Helper()
	return fetchAnswer(t, do(t, "POST", "/api/v1/fetch", string(fetchBody(q, p, offset, fields))))
}

// fetchBody is a fetch of q/p from offset, with the body's other fields.
func fetchBody(q, p string, offset int64, fields map[string]any) []byte {
	req := map[string]any{"entries": []any{map[string]any{"queue": q, "partition": p, "offset": offset}}}
	for k, v := range fields {
		req[k] = v
	}
	body, _ := json.Marshal(req)
	return body
}

// fetchAnswer wants a 200 fetch answer and decodes its one entry.
func fetchAnswer(t testing.TB, w *httptest.ResponseRecorder) fetched {
	t.Helper()
	want(t, w, 200, "")
	var got struct{ Entries []fetched }
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || len(got.Entries) != 1 {
		t.Fatalf("fetch answer %s: %v", w.Body, err)
	}
	return got.Entries[0]
}
