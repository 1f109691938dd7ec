package httpd

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestFetchOffsetsTimestamps(t *testing.T) {
	const us = int64(1_758_536_130_123_000)
	cases := []struct {
		name, ts string
		want     int64
	}{
		{"epoch ms", `1758536130123`, us},
		{"epoch ms as digits", `"1758536130123"`, us},
		{"ISO Z", `"2025-09-22T10:15:30.123Z"`, us},
		{"ISO offset", `"2025-09-22T12:15:30.123+02:00"`, us},
		{"ISO no zone", `"2025-09-22T10:15:30.123"`, us},
		{"date", `"2025-09-22"`, 1_758_499_200_000_000},
		{"zero", `0`, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil, Options{})
			w := e.do(t, "POST", "/api/v1/fetch/offsets", `{"entries":[{"queue":"q","partition":7,"timestamp":`+c.ts+`}]}`)
			wantStatus(t, w, http.StatusOK)
			want := []OffsetQuery{{Queue: "q", Partition: "7", Ts: c.want}}
			if got := e.fb.only(t).arg; !reflect.DeepEqual(got, want) {
				t.Fatalf("broker got %+v, want %+v", got, want)
			}
		})
	}
}

func TestFetchOffsetsAnswer(t *testing.T) {
	fb := &fakeBroker{fetchOffsets: func(context.Context, string, []OffsetQuery) ([]OffsetAnswer, error) {
		return []OffsetAnswer{
			{Queue: "q", Partition: "Default", Found: true, Offset: 5, Ts: 1_758_536_130_000_000, HighWatermark: 9, LogStartOffset: 1},
			{Queue: "q", Partition: "p", HighWatermark: 3},
			{Queue: "x", Partition: "Default", Error: "UNKNOWN_TOPIC_OR_PARTITION"},
		}, nil
	}}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "POST", "/api/v1/fetch/offsets", `{"entries":[
		{"queue":"q","timestamp":1},{"queue":"q","partition":"p","timestamp":1},{"queue":"x","timestamp":1}]}`)
	wantJSON(t, w, http.StatusOK, `{"entries":[
		{"queue":"q","partition":"Default","offset":5,"ts":"2025-09-22T10:15:30.000000Z","highWatermark":9,"logStartOffset":1},
		{"queue":"q","partition":"p","offset":null,"ts":null,"highWatermark":3,"logStartOffset":0},
		{"queue":"x","partition":"Default","offset":null,"ts":null,"highWatermark":0,"logStartOffset":0,"error":"UNKNOWN_TOPIC_OR_PARTITION"}]}`)
}

func TestFetchOffsetsRefusals(t *testing.T) {
	many := `{"entries":[` + strings.TrimSuffix(strings.Repeat(`{"queue":"q","timestamp":0},`, MaxEntries+1), ",") + `]}`
	cases := []struct{ name, body, msg string }{
		{"too many", many, "at most 1024"},
		{"no timestamp", `{"entries":[{"queue":"q"}]}`, "entries[0].timestamp is required"},
		{"bad ISO", `{"entries":[{"queue":"q","timestamp":"yesterday"}]}`, "entries[0].timestamp must be epoch milliseconds or an ISO-8601 time"},
		{"a bool", `{"entries":[{"queue":"q","timestamp":true}]}`, "entries[0].timestamp must be"},
		{"negative", `{"entries":[{"queue":"q","timestamp":-1}]}`, "entries[0].timestamp -1 is outside 0..253402300799999 ms"},
		{"empty queue", `{"entries":[{"queue":"","timestamp":0}]}`, "entries[0].queue is required"},
	}
	for _, c := range cases {
		wantRefusal(t, c.name, "POST", "/api/v1/fetch/offsets", c.body, CodeBadRequest, c.msg)
	}
}

func TestFetchOffsetsEmpty(t *testing.T) {
	e := newEnv(t, nil, Options{})
	wantJSON(t, e.do(t, "POST", "/api/v1/fetch/offsets", `{"entries":[]}`), http.StatusOK, `{"entries":[]}`)
	e.fb.none(t)
}
