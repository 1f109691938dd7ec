package httpd

import (
	"context"
	"fmt"
	"net/http"
	"testing"
)

func TestDLQQuery(t *testing.T) {
	cases := []struct {
		query string
		want  DLQQuery
	}{
		{"", DLQQuery{Limit: DefaultDLQLimit}},
		{"?queue=q&consumerGroup=g&limit=5", DLQQuery{Queue: "q", Group: "g", Limit: 5}},
		{"?queue=a%20b&limit=1000", DLQQuery{Queue: "a b", Limit: 1000}},
		{"?queue=&consumerGroup=&limit=", DLQQuery{Limit: DefaultDLQLimit}},
		{"?limit=1&limit=x&whatever=1", DLQQuery{Limit: 1}},
		{"?queue=q&partition=p2&offset=4&from=2025-09-22T10:15:30Z&to=2025-09-22T10:15:31Z",
			DLQQuery{Queue: "q", Partition: "p2", Offset: 4, From: 1_758_536_130_000_000, To: 1_758_536_131_000_000, Limit: DefaultDLQLimit}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			e := newEnv(t, nil, Options{})
			wantJSON(t, e.do(t, "GET", "/api/v1/dlq"+c.query, ""), http.StatusOK, `{"messages":[],"total":0}`)
			e.fb.wantCall(t, "DLQ", c.want)
		})
	}
}

func TestDLQRefusals(t *testing.T) {
	wantQueryRefusals(t, "/api/v1/dlq", []queryRefusal{
		{"?limit=0", "?limit=0", `limit "0" is outside 1..1000`},
		{"?limit=1001", "?limit=1001", `limit "1001" is outside 1..1000`},
		{"?limit=-1", "?limit=-1", `limit "-1" is outside 1..1000`},
		{"?limit=ten", "?limit=ten", `limit "ten" must be an integer`},
		{"?queue=%zz", "?queue=%zz", "the query string is malformed"},
		{"?offset=-1", "?offset=-1", "offset"},
		{"?from=yesterday", "?from=yesterday", `from "yesterday" must be an ISO-8601 time`},
		{"?from=2025-09-22T10:15:31Z&to=2025-09-22T10:15:30Z", "?from=2025-09-22T10:15:31Z&to=2025-09-22T10:15:30Z", "is after to"},
	})
}

// TestDLQAnswer: dead letters, byte for byte: payloads as stored (null
// when empty), the message id as a UUID, error null when empty.
func TestDLQAnswer(t *testing.T) {
	fb := &fakeBroker{dlq: func(context.Context, string, DLQQuery) ([]DeadLetter, int, error) {
		return []DeadLetter{
			{ID: "d1", Queue: "q", ConsumerGroup: "g", Partition: "eu west/1", Offset: 41, TransactionID: `t"1`,
				MessageID: [16]byte{0x01, 0x99, 0x71, 0x8d, 0x1e, 0x2b, 0x7c, 0xc4, 0x9a, 0x3b, 0x6a, 0x4b, 0x1f, 0x0c, 0x2d, 0x3e},
				Data:      []byte(`{ "a" :  42.00 }`), CreatedAt: 1_758_536_130_000_001, FailedAt: 1_758_536_190_500_000,
				Attempts: 3, Error: "boom\n<b>"},
			{ID: "d2", Queue: "q", ConsumerGroup: QueueModeGroup, Partition: "Default"},
		}, 7, nil
	}}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "GET", "/api/v1/dlq?queue=q", "")
	want := `{"messages":[` +
		`{"id":"d1","queue":"q","consumerGroup":"g","partition":"eu west/1","offset":41,"transactionId":"t\"1",` +
		`"messageId":"0199718d-1e2b-7cc4-9a3b-6a4b1f0c2d3e","data":{ "a" :  42.00 },` +
		`"createdAt":"2025-09-22T10:15:30.000001Z","failedAt":"2025-09-22T10:16:30.500000Z","attempts":3,` +
		`"error":"boom\n<b>","errorMessage":"boom\n<b>"},` +
		`{"id":"d2","queue":"q","consumerGroup":"__QUEUE_MODE__","partition":"Default","offset":0,"transactionId":"",` +
		`"messageId":"00000000-0000-0000-0000-000000000000","data":null,"createdAt":"1970-01-01T00:00:00.000000Z",` +
		`"failedAt":"1970-01-01T00:00:00.000000Z","attempts":0,"error":null,"errorMessage":null}],"total":7}` + "\n"
	wantBody(t, w, http.StatusOK, want)
}

func TestReplay(t *testing.T) {
	cases := []struct {
		name, target, body string
		want               replayArg
		answer             string
	}{
		{"no body", "/api/v1/dlq/d1/replay", "", replayArg{id: "d1"},
			`{"id":"d1","verdict":"moved","queue":"q","partition":"Default"}`},
		{"white space", "/api/v1/dlq/d1/replay", " \n", replayArg{id: "d1"},
			`{"id":"d1","verdict":"moved","queue":"q","partition":"Default"}`},
		{"null", "/api/v1/dlq/d1/replay", "null", replayArg{id: "d1"},
			`{"id":"d1","verdict":"moved","queue":"q","partition":"Default"}`},
		{"empty object", "/api/v1/dlq/d1/replay", "{}", replayArg{id: "d1"},
			`{"id":"d1","verdict":"moved","queue":"q","partition":"Default"}`},
		{"queue", "/api/v1/dlq/d1/replay", `{"queue":"q2"}`, replayArg{"d1", "q2", ""},
			`{"id":"d1","verdict":"moved","queue":"q2","partition":"Default"}`},
		{"queue and partition", "/api/v1/dlq/d1/replay", `{"queue":"q2","partition":"p","other":1}`,
			replayArg{"d1", "q2", "p"}, `{"id":"d1","verdict":"moved","queue":"q2","partition":"p"}`},
		{"empty and null read as absent", "/api/v1/dlq/d1/replay", `{"queue":"","partition":null}`, replayArg{id: "d1"},
			`{"id":"d1","verdict":"moved","queue":"q","partition":"Default"}`},
		{"escaped id", "/api/v1/dlq/a%2Bb/replay", "", replayArg{id: "a+b"},
			`{"id":"a+b","verdict":"moved","queue":"q","partition":"Default"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil, Options{})
			w := e.do(t, "POST", c.target, c.body)
			wantBody(t, w, http.StatusOK, c.answer+"\n")
			e.fb.wantCall(t, "ReplayDLQ", c.want)
		})
	}
}

func TestReplayAnswers(t *testing.T) {
	fb := &fakeBroker{replay: func(context.Context, string, string, string, string) (ReplayAnswer, error) {
		return ReplayAnswer{Verdict: "duplicate", Queue: "q", Partition: "p"}, nil
	}}
	e := newEnv(t, fb, Options{})
	wantJSON(t, e.do(t, "POST", "/api/v1/dlq/d1/replay", ""), http.StatusOK,
		`{"id":"d1","verdict":"duplicate","queue":"q","partition":"p"}`)

	for _, err := range []error{ErrGone, fmt.Errorf("replay: %w", ErrGone)} {
		fb := &fakeBroker{replay: func(context.Context, string, string, string, string) (ReplayAnswer, error) {
			return ReplayAnswer{}, err
		}}
		e := newEnv(t, fb, Options{})
		w := e.do(t, "POST", "/api/v1/dlq/d1/replay", "")
		wantBody(t, w, http.StatusNotFound, `{"error":"dead letter d1 is gone","code":"gone"}`+"\n")
		if w.Header().Get("Retry-After") != "" || e.logLines() != 0 {
			t.Fatalf("gone: Retry-After %q, log %q", w.Header().Get("Retry-After"), e.log)
		}
	}
}

func TestReplayRefusals(t *testing.T) {
	wantRefusals(t, "POST", "/api/v1/dlq/d1/replay", []refusalCase{
		{"partition without queue", `{"partition":"p"}`, CodeBadRequest, `partition "p" needs a queue`},
		{"partition with empty queue", `{"queue":"","partition":"p"}`, CodeBadRequest, `partition "p" needs a queue`},
		{"queue not a string", `{"queue":1}`, CodeBadRequest, "queue must be a string"},
		{"partition not a string", `{"queue":"q","partition":2}`, CodeBadRequest, "partition must be a string"},
		{"array", `[]`, CodeBadRequest, "the body must be an object"},
		{"malformed", `{"queue":`, CodeBadBody, "the body is not JSON"},
	})
}

func TestPurgeDLQ(t *testing.T) {
	cases := []struct {
		query string
		want  dlqArg
	}{
		{"?queue=q", dlqArg{queue: "q"}},
		{"?queue=a%20b&consumerGroup=g&limit=x", dlqArg{queue: "a b", group: "g"}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			fb := &fakeBroker{purge: func(context.Context, string, string, string) (int, error) { return 4, nil }}
			e := newEnv(t, fb, Options{})
			w := e.do(t, "DELETE", "/api/v1/dlq"+c.query, "")
			wantBody(t, w, http.StatusOK, `{"deleted":4,"queue":"`+c.want.queue+`"}`+"\n")
			e.fb.wantCall(t, "PurgeDLQ", c.want)
		})
	}
	for _, q := range []string{"", "?queue=", "?consumerGroup=g"} {
		wantRefusal(t, "DELETE /api/v1/dlq"+q, "DELETE", "/api/v1/dlq"+q, "", CodeBadRequest, "queue is required")
	}
	e := newEnv(t, nil, Options{})
	wantError(t, e.do(t, "DELETE", "/api/v1/dlq?queue=%zz", ""), http.StatusBadRequest, CodeBadRequest, "malformed")
}
