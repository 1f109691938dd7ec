package httpd

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/queen-mq/queen-go/testkit/syncbuf"
)

// The route tests' env (a handler over a fakeBroker, what it logged, its
// registry), its requests, and the checks of its answers.

// env is a handler over a fake broker, with what it logged and its
// registry.
type env struct {
	h   http.Handler
	fb  *fakeBroker
	log *syncbuf.Buffer
	reg *prometheus.Registry
}

// newEnv serves fb with o (its Logger replaced by the env's, and its
// Registry when it has none).
func newEnv(t *testing.T, fb *fakeBroker, o Options) *env {
	t.Helper()
	if fb == nil {
		fb = &fakeBroker{}
	}
	return newEnvOf(t, fb, fb, o)
}

// newEnvOf serves b, a broker whose calls fb records, as newEnv serves a
// fakeBroker.
func newEnvOf(t *testing.T, b Broker, fb *fakeBroker, o Options) *env {
	t.Helper()
	e := &env{fb: fb, log: &syncbuf.Buffer{}, reg: o.Registry}
	if e.reg == nil {
		e.reg = prometheus.NewRegistry()
	}
	o.Logger = slog.New(slog.NewTextHandler(e.log, nil))
	o.Registry = e.reg
	e.h = New(b, o)
	return e
}

// do sends one request; hdr is name, value pairs.
func (e *env) do(t *testing.T, method, target, body string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := newRequest(method, target, body)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	return serve(e, r)
}

// newRequest is a request with body ("" for none).
func newRequest(method, target, body string) *http.Request {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	return httptest.NewRequest(method, target, rd)
}

// serve answers r with e's handler.
func serve(e *env, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	return w
}

// logLines counts the lines logged.
func (e *env) logLines() int { return strings.Count(e.log.String(), "\n") }

// wantStatus fails unless the answer has status.
func wantStatus(t *testing.T, w *httptest.ResponseRecorder, status int) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status = %d, want %d; body %s", w.Code, status, w.Body)
	}
}

// wantJSON fails unless the answer has status and a body equal, as JSON,
// to want.
func wantJSON(t *testing.T, w *httptest.ResponseRecorder, status int, want string) {
	t.Helper()
	wantStatus(t, w, status)
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	var got, exp any
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatalf("answer is not JSON: %v: %s", err, w.Body)
	}
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		t.Fatalf("want is not JSON: %v", err)
	}
	if !reflect.DeepEqual(got, exp) {
		t.Fatalf("body =\n%s\nwant\n%s", w.Body, want)
	}
}

// wantBody fails unless the answer has status and its body is want byte
// for byte (a golden answer), JSON (wantJSON).
func wantBody(t *testing.T, w *httptest.ResponseRecorder, status int, want string) {
	t.Helper()
	wantStatus(t, w, status)
	if w.Body.String() != want {
		t.Fatalf("body =\n%s\nwant\n%s", w.Body, want)
	}
	wantJSON(t, w, status, want)
}

// errBody is an error answer of either shape.
type errBody struct {
	Error  string `json:"error"`
	Code   string `json:"code"`
	Reason string `json:"reason"`
	Detail string `json:"detail"`
	Leader string `json:"leader"`
}

// errorOf fails unless the answer has status, and reads its error body.
func errorOf(t *testing.T, w *httptest.ResponseRecorder, status int) errBody {
	t.Helper()
	wantStatus(t, w, status)
	var b errBody
	if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil {
		t.Fatalf("error body is not JSON: %v: %s", err, w.Body)
	}
	return b
}

// wantError fails unless the answer is an engine error with status and
// code whose message holds msg.
func wantError(t *testing.T, w *httptest.ResponseRecorder, status int, code, msg string) errBody {
	t.Helper()
	b := errorOf(t, w, status)
	if b.Code != code || !strings.Contains(b.Error, msg) {
		t.Fatalf("error = %s, want code %q with %q", w.Body, code, msg)
	}
	return b
}

// wantKVError fails unless the answer is a KV error with status, error
// code and reason.
func wantKVError(t *testing.T, w *httptest.ResponseRecorder, status int, code, reason string) errBody {
	t.Helper()
	b := errorOf(t, w, status)
	if b.Error != code || b.Reason != reason || b.Detail == "" || b.Code != "" {
		t.Fatalf("error = %s, want error %q reason %q and a detail", w.Body, code, reason)
	}
	return b
}

// decode unmarshals the answer's body into v.
func decode(t *testing.T, w *httptest.ResponseRecorder, v any) {
	t.Helper()
	if err := json.Unmarshal(w.Body.Bytes(), v); err != nil {
		t.Fatalf("answer is not JSON: %v: %s", err, w.Body)
	}
}
