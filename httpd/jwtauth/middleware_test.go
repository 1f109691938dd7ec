package jwtauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/queen-mq/queen-go/httpd"
)

// broker is the least httpd.Broker: it keeps the items pushed and
// answers every other call empty.
type broker struct {
	mu     sync.Mutex
	pushed []httpd.PushItem
}

func (b *broker) Push(ctx context.Context, tenant string, items []httpd.PushItem) ([]httpd.PushResult, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pushed = append(b.pushed, items...)
	out := make([]httpd.PushResult, len(items))
	for i := range items {
		out[i].MessageID = items[i].MessageID
	}
	return out, nil
}
func (b *broker) Fetch(context.Context, string, httpd.FetchRequest) ([]httpd.FetchEntry, error) {
	return nil, nil
}
func (b *broker) FetchOffsets(context.Context, string, []httpd.OffsetQuery) ([]httpd.OffsetAnswer, error) {
	return nil, nil
}
func (b *broker) PartitionsChanged(context.Context, string, []httpd.ChangedQuery) (httpd.ChangedAnswer, error) {
	return httpd.ChangedAnswer{}, nil
}
func (b *broker) Configure(_ context.Context, _ string, r httpd.ConfigureRequest) (httpd.ConfigureAnswer, error) {
	return httpd.ConfigureAnswer{Queue: r.Queue, Options: json.RawMessage(`{}`)}, nil
}
func (b *broker) KV(context.Context, string, []httpd.KVOp) (json.Marshaler, error) {
	return json.RawMessage(`{"results":[]}`), nil
}
func (b *broker) Queues(context.Context, string) ([]httpd.QueueSummary, error) { return nil, nil }
func (b *broker) Queue(context.Context, string, string) (httpd.QueueDetail, bool, error) {
	return httpd.QueueDetail{}, false, nil
}
func (b *broker) Health(context.Context) (bool, any) { return true, nil }
func (b *broker) Status(context.Context) any         { return map[string]any{} }

// serve builds the API over a broker with v in front, and answers one
// request with token ("" for no Authorization header).
type api struct {
	h http.Handler
	b *broker
}

func newAPI(t *testing.T, v *Verifier, skip []string) *api {
	t.Helper()
	b := &broker{}
	return &api{b: b, h: httpd.New(b, httpd.Options{Authenticators: []httpd.Authenticator{v}, SkipPaths: skip,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})}
}

func (a *api) do(method, path, body, auth string) *httptest.ResponseRecorder {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r := httptest.NewRequest(method, path, rd)
	if auth != "" {
		r.Header.Set("Authorization", auth)
	}
	w := httptest.NewRecorder()
	a.h.ServeHTTP(w, r)
	return w
}

// refusedWith fails unless w is status with the code and a message
// saying want.
func refusedWith(t *testing.T, w *httptest.ResponseRecorder, status int, code, want string) {
	t.Helper()
	var body struct{ Error, Code string }
	if w.Code != status || json.Unmarshal(w.Body.Bytes(), &body) != nil || body.Code != code || !strings.Contains(body.Error, want) {
		t.Fatalf("answer %d %s, want %d %s saying %q", w.Code, w.Body, status, code, want)
	}
	if status == http.StatusUnauthorized && w.Header().Get("WWW-Authenticate") == "" {
		t.Fatal("a 401 without WWW-Authenticate")
	}
}

func TestMiddleware(t *testing.T) {
	v := newVerifier(t, Config{Secret: []byte(secret)})
	a := newAPI(t, v, []string{"/health", "/metrics/prometheus", "/metrics", "/"})
	bearer := func(role string) string { return "Bearer " + hs(t, map[string]any{"role": role, "sub": "svc-" + role}) }
	const push = `{"items":[{"queue":"q","payload":{"n":1},"producerSub":"mallory"}]}`

	refusedWith(t, a.do("GET", "/api/v1/resources/queues", "", ""), 401, httpd.CodeUnauthorized, "no Authorization header")
	refusedWith(t, a.do("GET", "/api/v1/resources/queues", "", "Bearer"), 401, httpd.CodeUnauthorized, "Bearer with no token")
	refusedWith(t, a.do("GET", "/api/v1/resources/queues", "", "Basic YTpi"), 401, httpd.CodeUnauthorized, "not of the Bearer scheme")
	refusedWith(t, a.do("GET", "/api/v1/resources/queues", "", "Bearer "+hs(t, map[string]any{"exp": now.Unix() - 3600})), 401,
		httpd.CodeUnauthorized, "expired")
	refusedWith(t, a.do("GET", "/status", "", ""), 401, httpd.CodeUnauthorized, "no Authorization header")
	refusedWith(t, a.do("POST", "/api/v1/push", push, bearer("read-only")), 403, httpd.CodeForbidden,
		"a token of level read-only does not reach POST /api/v1/push, a route of class push")
	refusedWith(t, a.do("POST", "/api/v1/configure", `{"queue":"q"}`, bearer("read-only")), 403, httpd.CodeForbidden,
		"read-only does not reach POST /api/v1/configure, a route of class configure")
	if len(a.b.pushed) != 0 {
		t.Fatalf("a refused push reached the broker: %+v", a.b.pushed)
	}

	// A write-only token pushes; its sub is on the record, the body's
	// producerSub ignored.
	if w := a.do("POST", "/api/v1/push", push, bearer("write-only")); w.Code != http.StatusCreated {
		t.Fatalf("write-only push: %d %s", w.Code, w.Body)
	}
	if len(a.b.pushed) != 1 || a.b.pushed[0].ProducerSub != "svc-write-only" {
		t.Fatalf("pushed %+v", a.b.pushed)
	}
	if w := a.do("POST", "/api/v1/configure", `{"queue":"q"}`, bearer("admin")); w.Code != http.StatusOK {
		t.Fatalf("admin configure: %d %s", w.Code, w.Body)
	}

	// Skip paths need no token; "/" is the root path only (the
	// dashboard's page, and its assets with it), not a prefix of the API.
	for _, p := range []string{"/health", "/metrics", "/metrics/prometheus", "/", "/dashboard/app.js"} {
		if w := a.do("GET", p, "", ""); w.Code != http.StatusOK {
			t.Errorf("GET %s without a token: %d %s", p, w.Code, w.Body)
		}
	}
	refusedWith(t, a.do("GET", "/api/v1/resources/queues", "", ""), 401, httpd.CodeUnauthorized, "")
	refusedWith(t, a.do("GET", "/status", "", ""), 401, httpd.CodeUnauthorized, "")
	refusedWith(t, a.do("GET", "/health/", "", ""), 404, httpd.CodeNoSuchRoute, "Not Found")
}

// TestMiddlewareLevels: each level against a route of each class the
// plain Broker serves: allowed ones answer, the others 403.
func TestMiddlewareLevels(t *testing.T) {
	v := newVerifier(t, Config{Secret: []byte(secret)})
	a := newAPI(t, v, nil) // no skip path: the public routes need a token too
	routes := []struct {
		class              httpd.Class
		method, path, body string
	}{
		{httpd.ClassPublic, "GET", "/health", ""},
		{httpd.ClassPublic, "GET", "/metrics", ""},
		{httpd.ClassRead, "GET", "/api/v1/resources/queues", ""},
		{httpd.ClassRead, "POST", "/api/v1/fetch", `{"entries":[]}`},
		{httpd.ClassPush, "POST", "/api/v1/push", `{"items":[{"queue":"q","payload":1}]}`},
		{httpd.ClassShared, "POST", "/api/v1/kv", `{"operations":[]}`},
		{httpd.ClassSharedRead, "GET", "/api/v1/kv/ns/key", ""},
		{httpd.ClassConfigure, "POST", "/api/v1/configure", `{"queue":"q"}`}, // read-write, as API.md §8 says
	}
	for _, role := range []string{"", "read-only", "write-only", "read-write", "admin"} {
		lvl, _ := DefaultRoles.level(role)
		tok := "Bearer " + hs(t, map[string]any{"role": role})
		for _, r := range routes {
			w := a.do(r.method, r.path, r.body, tok)
			if lvl.Allows(r.class) {
				if w.Code == http.StatusUnauthorized || w.Code == http.StatusForbidden {
					t.Errorf("level %s, %s %s (%s): %d %s", lvl, r.method, r.path, r.class, w.Code, w.Body)
				}
				continue
			}
			if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), fmt.Sprintf("class %s", r.class)) {
				t.Errorf("level %s, %s %s (%s): %d %s, want 403", lvl, r.method, r.path, r.class, w.Code, w.Body)
			}
		}
	}
}
