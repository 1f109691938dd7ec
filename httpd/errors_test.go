package httpd

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestNoSuchRoute(t *testing.T) {
	cases := []struct{ method, path string }{
		{"GET", "/api/v1/nothing"},
		{"GET", "/api/v1/push"},
		{"PUT", "/api/v1/push"},
		{"POST", "/api/v1/push/"},
		{"GET", "/api/v2/push"},
		{"GET", "/api/"},
		{"POST", "/api/v1/kv/app/k"},
		{"PATCH", "/api/v1/kv/app/k"},
		{"GET", "/api/v1/kv/app"},
		{"PUT", "/api/v1/resources/queues/q"},
		{"POST", "/api/v1/queues/q/clear"},
		{"POST", "/api/v1/messages/1/t/dlq"},
		{"POST", "/api/v1/consumer-groups"},
		{"PUT", "/api/v1/consumer-groups/g"},
		{"DELETE", "/api/v1/consumer-groups/lagging/queues"},
		{"GET", "/api/v1/consumer-groups/g/queues/q/seek"},
		{"GET", "/api/v1/consumer-groups/g/subscription"},
		{"POST", "/api/v1/dlq"},
		{"GET", "/api/v1/dlq/d1/replay"},
		{"DELETE", "/api/v1/messages"},
		{"POST", "/api/v1/status"},
		{"DELETE", "/api/v1/resources/queues/q/depth"},
		{"GET", "/api/v1/resources/queues/q/depth/x"},
		{"POST", "/metrics"},
		{"GET", "/api/v1/stats/refresh"},
		{"POST", "/health"},
		{"GET", "/nothing"},
		{"BREW", "/api/v1/push"},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			e := newEnv(t, nil, Options{})
			wantJSON(t, e.do(t, c.method, c.path, `{}`), http.StatusNotFound, `{"error":"Not Found","code":"no_such_route"}`)
			e.fb.none(t)
		})
	}
}

// TestUnavailable: the unknown-outcome kinds are 503 with their code,
// Retry-After: 1 and one log line, on every route that calls the broker
// (brokerRequests), over a broker whose every call fails (failAll); the
// call is the route's, and the only one.
func TestUnavailable(t *testing.T) {
	kinds := []struct {
		err  error
		code string
	}{
		{ErrTimeout, CodeTimeout},
		{fmt.Errorf("propose: %w", ErrTimeout), CodeTimeout},
		{context.DeadlineExceeded, CodeTimeout},
		{ErrNoLeader, CodeNoLeader},
		{fmt.Errorf("read index: %w", ErrNoLeader), CodeNoLeader},
		{ErrRetry, CodeRetry},
	}
	for key, why := range notUnavailable {
		t.Run("not unavailable "+key, func(t *testing.T) {
			r, ok := noTenantRoutes[key]
			if !ok {
				t.Fatalf("notUnavailable has %s, which is not in noTenantRoutes", key)
			}
			method, _, _ := strings.Cut(key, " ")
			e := failEnv(t, ErrTimeout, Options{})
			if w := e.do(t, method, r.target, r.body); w.Code == http.StatusServiceUnavailable {
				t.Fatalf("%s is listed as calling no broker method that fails (%s), but answers 503", key, why)
			}
			e.fb.none(t)
		})
	}
	for _, k := range kinds {
		for _, r := range brokerRequests() {
			method, _, _ := strings.Cut(r.route, " ")
			t.Run(k.err.Error()+" "+method+" "+r.target, func(t *testing.T) {
				e := failEnv(t, k.err, Options{})
				w := e.do(t, method, r.target, r.body)
				wantError(t, w, http.StatusServiceUnavailable, k.code, "")
				if ra := w.Header().Get("Retry-After"); ra != "1" {
					t.Fatalf("Retry-After = %q", ra)
				}
				if e.logLines() != 1 {
					t.Fatalf("log = %q, want one line", e.log)
				}
				if got := e.fb.only(t); r.call != "" && got.method != r.call {
					t.Fatalf("broker got %s, want %s", got.method, r.call)
				}
			})
		}
	}
}

// notUnavailable are the routes of noTenantRoutes that call no broker
// method that can fail, so answer no 503 over failAll, and why.
var notUnavailable = map[string]string{
	"POST /stats/refresh":                           "answers a constant",
	"GET /analytics/system-metrics":                 "reads the node's registry",
	"GET /analytics/worker-metrics":                 "reads the node's registry",
	"HEAD /pop":                                     "404 no_such_route",
	"HEAD /pop/queue/{queue}":                       "404 no_such_route",
	"HEAD /pop/queue/{queue}/partition/{partition}": "404 no_such_route",
	"HEAD /ephemeral/pop":                           "404 no_such_route",
}

// brokerRequests are the requests of every route that calls the broker:
// tenantRequests and streamTenantRequests (each with its call), then the
// routes of noTenantRoutes not in notUnavailable (the Cluster's, whose
// call is not named), by key.
func brokerRequests() []tenantRequest {
	rs := slices.Concat(tenantRequests, streamTenantRequests)
	for _, key := range slices.Sorted(maps.Keys(noTenantRoutes)) {
		if _, ok := notUnavailable[key]; !ok {
			rs = append(rs, tenantRequest{route: key, target: noTenantRoutes[key].target, body: noTenantRoutes[key].body})
		}
	}
	return rs
}

func TestBrokerErrors(t *testing.T) {
	cases := []struct {
		name       string
		err        error
		status     int
		want       string
		retryAfter bool
		logged     bool
	}{
		{"retry with leader", &Error{Status: 503, Code: "retry", Message: "leader changed", Leader: "node-2:6632"}, 503,
			`{"error":"leader changed","code":"retry","leader":"node-2:6632"}`, true, true},
		{"overloaded", &Error{Status: 429, Code: "overloaded", Message: "write budget full"}, 429,
			`{"error":"write budget full","code":"overloaded"}`, true, false},
		{"storage full", &Error{Status: 507, Code: "storage_full", Message: "disk above 85%"}, 507,
			`{"error":"disk above 85%","code":"storage_full"}`, false, false}, // not logged: the broker logs the crossing once
		{"name too long", &Error{Status: 413, Code: "name_too_long"}, 413,
			`{"error":"name_too_long","code":"name_too_long"}`, false, false},
		{"wrapped", fmt.Errorf("push: %w", &Error{Status: 400, Code: "bad_request", Message: "no"}), 400,
			`{"error":"no","code":"bad_request"}`, false, false},
		{"no status", &Error{Code: "weird", Message: "m"}, 500, `{"error":"m","code":"weird"}`, false, true},
		{"other", errors.New("pebble: disk on fire"), 500, `{"error":"internal error","code":"internal"}`, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := failEnv(t, c.err, Options{})
			w := e.do(t, "POST", "/api/v1/push", `{"items":[{"queue":"q","payload":1}]}`)
			wantJSON(t, w, c.status, c.want)
			if got := w.Header().Get("Retry-After") == "1"; got != c.retryAfter {
				t.Fatalf("Retry-After = %q", w.Header().Get("Retry-After"))
			}
			if logged := e.logLines() == 1; logged != c.logged || e.logLines() > 1 {
				t.Fatalf("log = %q", e.log)
			}
			if c.name == "other" && !strings.Contains(e.log.String(), "disk on fire") {
				t.Fatalf("the log line lacks the error: %q", e.log)
			}
		})
	}
}

// TestClientGone: a request whose client went away is not logged, whatever
// the broker answered (a cancelled proposal comes back as a timeout).
func TestClientGone(t *testing.T) {
	for _, err := range []error{context.Canceled, fmt.Errorf("%w: request canceled", ErrTimeout)} {
		e := failEnv(t, err, Options{})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r := newRequest("POST", "/api/v1/push", `{"items":[{"queue":"q","payload":1}]}`).WithContext(ctx)
		w := serve(e, r)
		wantStatus(t, w, statusClientClosed)
		if e.logLines() != 0 {
			t.Fatalf("%v: log = %q", err, e.log)
		}
	}
}

func TestPanicIsInternal(t *testing.T) {
	fb := &fakeBroker{push: func(context.Context, string, []PushItem) ([]PushResult, error) { panic("boom") }}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "POST", "/api/v1/push", `{"items":[{"queue":"q","payload":1}]}`)
	wantJSON(t, w, 500, `{"error":"internal error","code":"internal"}`)
	if e.logLines() != 1 || !strings.Contains(e.log.String(), "boom") {
		t.Fatalf("log = %q", e.log)
	}
}

func TestBodyTooLarge(t *testing.T) {
	big := `{"items":[{"queue":"q","payload":"` + strings.Repeat("x", 200) + `"}]}`
	routes := []struct{ method, path string }{
		{"POST", "/api/v1/push"},
		{"POST", "/api/v1/fetch"},
		{"POST", "/api/v1/fetch/offsets"},
		{"POST", "/api/v1/partitions/changed"},
		{"POST", "/api/v1/configure"},
		{"POST", "/api/v1/kv"},
		{"PUT", "/api/v1/kv/a/k"},
		{"DELETE", "/api/v1/kv/a/k"},
		{"POST", "/api/v1/transaction"},
		{"POST", "/api/v1/consumer-groups/g/queues/q/seek"},
		{"POST", "/api/v1/consumer-groups/g/queues/q/partitions/p/seek"},
		{"POST", "/api/v1/dlq/d1/replay"},
		{"POST", "/api/v1/ephemeral/push"},
		{"POST", "/api/v1/ephemeral/ack"},
		{"POST", "/api/v1/ephemeral/configure"},
		{"POST", "/api/v1/ephemeral/reset"},
	}
	for _, r := range routes {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			e := newEnv(t, nil, Options{MaxBodyBytes: 100})
			wantError(t, e.do(t, r.method, r.path, big), http.StatusRequestEntityTooLarge, CodePayloadTooLarge, "over 100")
			e.fb.none(t)

			// Without a Content-Length the cap still holds.
			req := newRequest(r.method, r.path, big)
			req.ContentLength = -1
			wantError(t, serve(e, req), http.StatusRequestEntityTooLarge, CodePayloadTooLarge, "over 100")
			e.fb.none(t)
		})
	}
	e := newEnv(t, nil, Options{MaxBodyBytes: int64(len(big))})
	wantStatus(t, e.do(t, "POST", "/api/v1/push", big), http.StatusCreated)
}

func TestDefaultMaxBody(t *testing.T) {
	e := newEnv(t, nil, Options{})
	req := newRequest("POST", "/api/v1/push", `{}`)
	req.ContentLength = DefaultMaxBodyBytes + 1
	wantError(t, serve(e, req), http.StatusRequestEntityTooLarge, CodePayloadTooLarge, "")
}
