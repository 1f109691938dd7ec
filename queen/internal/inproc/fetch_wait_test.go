package inproc

import (
	"net/http/httptest"
	"testing"
)

// TestFetchLongPoll: a fetch that asks for minBytes answers what there is
// when its wait ends with nothing new, and a record pushed while it waits
// is in its answer.
func TestFetchLongPoll(t *testing.T) {
	wait := func(ms int) map[string]any { return map[string]any{"minBytes": 1, "maxWaitMs": ms} }
	push(t, "fetch-wait", "p", "", `{"n":0}`)
	if got := fetchWith(t, "fetch-wait", "p", 1, wait(50)); len(got.Records) != 0 || got.HighWatermark != 1 {
		t.Fatalf("a wait that ends with nothing new: %+v, want no record and high watermark 1", got)
	}
	// The parked fetch is served on a goroutine of its own; the test's
	// goroutine reads its answer.
	answered := make(chan *httptest.ResponseRecorder, 1)
	body := fetchBody("fetch-wait", "p", 1, wait(30_000))
	go func() { answered <- node.Do(ctx(t), "POST", "/api/v1/fetch", body) }()
	push(t, "fetch-wait", "p", "", `{"n":1}`)
	got := fetchAnswer(t, <-answered)
	if len(got.Records) != 1 || got.Records[0].Offset != 1 || string(got.Records[0].Payload) != `{"n":1}` {
		t.Fatalf("the parked fetch answered %+v, want the record pushed while it waited (offset 1)", got)
	}
}
