package httpd

import (
	"net/http"
	"strings"
	"testing"
)

// The shared fixtures of the route tests: refusal tables, the status
// routes' requests, a scrape of the metrics.

// refusalCase is a body a route refuses with 400 before it asks the
// broker: the code and a part of the message it answers.
type refusalCase struct{ name, body, code, msg string }

// wantRefusals sends each case's body to method target, each over a
// fresh env (wantRefusal).
func wantRefusals(t *testing.T, method, target string, cases []refusalCase) {
	t.Helper()
	for _, c := range cases {
		wantRefusal(t, c.name, method, target, c.body, c.code, c.msg)
	}
}

// wantRefusal is the subtest name: method target with body, over a
// fresh env, answers 400 with code and msg, and calls no broker.
func wantRefusal(t *testing.T, name, method, target, body, code, msg string) {
	t.Helper()
	wantRefused(t, name, method, target, body, http.StatusBadRequest, code, msg)
}

// wantRefused is wantRefusal with another status than 400 (a path with
// no route is 404).
func wantRefused(t *testing.T, name, method, target, body string, status int, code, msg string) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		e := newEnv(t, nil, Options{})
		wantError(t, e.do(t, method, target, body), status, code, msg)
		e.fb.none(t)
	})
}

// queryRefusal is a query a GET route refuses with 400 bad_request
// before it asks the broker, and a part of the message it answers.
type queryRefusal struct{ name, query, msg string }

// wantQueryRefusals sends GET target with each case's query
// (wantRefusal: 400 bad_request).
func wantQueryRefusals(t *testing.T, target string, cases []queryRefusal) {
	t.Helper()
	for _, c := range cases {
		wantRefusal(t, c.name, "GET", target+c.query, "", CodeBadRequest, c.msg)
	}
}

// scrape is GET /metrics/prometheus, which must answer 200 in the text
// format: its body.
func scrape(t *testing.T, e *env) string {
	t.Helper()
	w := e.do(t, "GET", "/metrics/prometheus", "")
	wantStatus(t, w, 200)
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Fatalf("Content-Type = %q", ct)
	}
	return w.Body.String()
}
