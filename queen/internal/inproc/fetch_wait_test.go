package inproc

import (
	"encoding/json"
	"fmt"
	"testing"
)

// fetchWaiting is a fetch of q/p from offset that asks for minBytes and
// waits up to maxWaitMs for them.
func fetchWaiting(t *testing.T, q, p string, offset int64, minBytes, maxWaitMs int) fetched {
	t.Helper()
	w := do(t, "POST", "/api/v1/fetch", fmt.Sprintf(`{"minBytes":%d,"maxWaitMs":%d,"entries":[{"queue":%q,"partition":%q,"offset":%d}]}`,
		minBytes, maxWaitMs, q, p, offset))
	want(t, w, 200, "")
	var got struct{ Entries []fetched }
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || len(got.Entries) != 1 {
		t.Fatalf("fetch answer %s: %v", w.Body, err)
	}
	return got.Entries[0]
}

// TestFetchLongPoll: a fetch that asks for minBytes answers what there is
// when its wait ends with nothing new, and a record pushed while it waits
// is in its answer.
func TestFetchLongPoll(t *testing.T) {
	push(t, "fetch-wait", "p", "", `{"n":0}`)
	if got := fetchWaiting(t, "fetch-wait", "p", 1, 1, 50); len(got.Records) != 0 || got.HighWatermark != 1 {
		t.Fatalf("a wait that ends with nothing new: %+v, want no record and high watermark 1", got)
	}
	answered := make(chan fetched, 1)
	go func() { answered <- fetchWaiting(t, "fetch-wait", "p", 1, 1, 30_000) }()
	push(t, "fetch-wait", "p", "", `{"n":1}`)
	got := <-answered
	if len(got.Records) != 1 || got.Records[0].Offset != 1 || string(got.Records[0].Payload) != `{"n":1}` {
		t.Fatalf("the parked fetch answered %+v, want the record pushed while it waited (offset 1)", got)
	}
}
