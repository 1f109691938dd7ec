package httpd

import (
	"context"
	"net/http"
	"reflect"
	"testing"

	"github.com/google/uuid"
)

func TestPartitionsChangedQueries(t *testing.T) {
	since := int64(1_758_536_130_000_000)
	cases := []struct {
		name, body string
		want       []ChangedQuery
	}{
		{"defaults", `{"entries":[{"queue":"q"}]}`, []ChangedQuery{{Queue: "q", Limit: 1000}}},
		{"null since", `{"entries":[{"queue":"q","since":null,"after":null}]}`, []ChangedQuery{{Queue: "q", Limit: 1000}}},
		{"since and cursor", `{"entries":[{"queue":"q","since":"2025-09-22T10:15:30Z","after":"c1","limit":10}]}`,
			[]ChangedQuery{{Queue: "q", Since: &since, After: "c1", Limit: 10}}},
		{"limit over cap", `{"entries":[{"queue":"q","limit":5000}]}`, []ChangedQuery{{Queue: "q", Limit: 1000}}},
		{"limit 0", `{"entries":[{"queue":"q","limit":0}]}`, []ChangedQuery{{Queue: "q", Limit: 1}}},
		{"limit negative", `{"entries":[{"queue":"q","limit":-3}]}`, []ChangedQuery{{Queue: "q", Limit: 1}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil, Options{})
			wantStatus(t, e.do(t, "POST", "/api/v1/partitions/changed", c.body), http.StatusOK)
			if got := e.fb.only(t).arg; !reflect.DeepEqual(got, c.want) {
				t.Fatalf("broker got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestPartitionsChangedAnswer(t *testing.T) {
	id := uuid.MustParse("5f0c8a8e-4b7c-4f6e-9d2a-1c3b5e7f9a0b")
	fb := &fakeBroker{changed: func(context.Context, string, []ChangedQuery) (ChangedAnswer, error) {
		return ChangedAnswer{SafeTime: 1_758_536_130_123_456, Entries: []ChangedEntry{
			{Queue: "q", Next: "cur", Partitions: []ChangedPartition{
				{Name: "Default", ID: id, LastOffset: 9, LogStart: 2, LastWrite: 1_758_536_130_000_000},
				{Name: "p2", ID: id, LastOffset: -1},
			}},
			{Queue: "x", Error: "UNKNOWN_TOPIC_OR_PARTITION"},
		}}, nil
	}}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "POST", "/api/v1/partitions/changed", `{"entries":[{"queue":"q"},{"queue":"x"}]}`)
	wantJSON(t, w, http.StatusOK, `{"safeTime":"2025-09-22T10:15:30.123456Z","safeTimeDegraded":false,"entries":[
		{"queue":"q","partitions":[
			{"name":"Default","id":"5f0c8a8e-4b7c-4f6e-9d2a-1c3b5e7f9a0b","lastOffset":9,"logStart":2,"lastWriteAt":"2025-09-22T10:15:30.000000Z"},
			{"name":"p2","id":"5f0c8a8e-4b7c-4f6e-9d2a-1c3b5e7f9a0b","lastOffset":-1,"logStart":0,"lastWriteAt":null}],
		 "next":"cur"},
		{"queue":"x","partitions":[],"next":null,"error":"UNKNOWN_TOPIC_OR_PARTITION"}]}`)
}

// TestPartitionsChangedEmpty: no entries still asks the broker for
// safeTime.
func TestPartitionsChangedEmpty(t *testing.T) {
	fb := &fakeBroker{changed: func(context.Context, string, []ChangedQuery) (ChangedAnswer, error) {
		return ChangedAnswer{SafeTime: 1_000_000}, nil
	}}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "POST", "/api/v1/partitions/changed", `{"entries":[]}`)
	wantJSON(t, w, http.StatusOK, `{"safeTime":"1970-01-01T00:00:01.000000Z","safeTimeDegraded":false,"entries":[]}`)
	if c := fb.only(t); len(c.arg.([]ChangedQuery)) != 0 {
		t.Fatalf("broker got %+v", c.arg)
	}
}

func TestPartitionsChangedRefusals(t *testing.T) {
	cases := []struct{ name, body, msg string }{
		{"empty queue", `{"entries":[{"queue":""}]}`, "entries[0].queue is required"},
		{"no queue", `{"entries":[{"since":null}]}`, "entries[0].queue is required"},
		{"bad since", `{"entries":[{"queue":"q","since":"last week"}]}`, "entries[0].since"},
		{"since a number", `{"entries":[{"queue":"q","since":1}]}`, "entries[0].since must be a string"},
		{"limit a string", `{"entries":[{"queue":"q","limit":"9"}]}`, `entries[0].limit "9" must be an integer in 1..1000`},
		{"after a number", `{"entries":[{"queue":"q","after":9}]}`, "entries[0].after must be a string"},
	}
	for _, c := range cases {
		wantRefusal(t, c.name, "POST", "/api/v1/partitions/changed", c.body, CodeBadRequest, c.msg)
	}
}
