package httpd

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

func TestHealth(t *testing.T) {
	raft := map[string]any{"raft": map[string]any{"role": "leader", "term": 3}, "status": "ignored"}
	cases := []struct {
		name   string
		ready  bool
		body   any
		status int
		want   string
	}{
		{"ready", true, raft, 200, `{"status":"healthy","engine":"raft","version":"2.1.0","raft":{"role":"leader","term":3}}`},
		{"settling", false, raft, 503, `{"status":"settling","engine":"raft","version":"2.1.0","raft":{"role":"leader","term":3}}`},
		{"no body", true, nil, 200, `{"status":"healthy","engine":"raft","version":"2.1.0"}`},
		{"struct body", true, struct {
			Link string `json:"link"`
		}{"up"}, 200, `{"status":"healthy","engine":"raft","version":"2.1.0","link":"up"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fb := &fakeBroker{health: func(context.Context) (bool, any) { return c.ready, c.body }}
			e := newEnv(t, fb, Options{Version: "2.1.0"})
			w := e.do(t, "GET", "/health", "")
			wantJSON(t, w, c.status, c.want)
			if w.Header().Get("Retry-After") != "" {
				t.Fatalf("a settling node is not a retryable error")
			}
			if e.logLines() != 0 {
				t.Fatalf("logged %q", e.log)
			}
		})
	}
}

func TestHealthBodyNotAnObject(t *testing.T) {
	fb := &fakeBroker{health: func(context.Context) (bool, any) { return true, []int{1} }}
	e := newEnv(t, fb, Options{})
	wantJSON(t, e.do(t, "GET", "/health", ""), 200, `{"status":"healthy","engine":"raft","version":""}`)
	if e.logLines() != 1 {
		t.Fatalf("log = %q", e.log)
	}
}

func TestHeadHealth(t *testing.T) {
	e := newEnv(t, nil, Options{})
	wantStatus(t, e.do(t, "HEAD", "/health", ""), http.StatusOK)
}

func TestStatus(t *testing.T) {
	fb := &fakeBroker{status: func(context.Context) any {
		return map[string]any{"s3": map[string]any{"enabled": true}, "node": "n1"}
	}}
	e := newEnv(t, fb, Options{})
	wantJSON(t, e.do(t, "GET", "/status", ""), 200, `{"s3":{"enabled":true},"node":"n1"}`)

	fb = &fakeBroker{status: func(context.Context) any { return func() {} }}
	e = newEnv(t, fb, Options{})
	wantError(t, e.do(t, "GET", "/status", ""), 500, CodeInternal, "")
}

func TestStatsRefresh(t *testing.T) {
	e := newEnv(t, nil, Options{})
	wantJSON(t, e.do(t, "POST", "/api/v1/stats/refresh", ""), 200, `{"success":true,"refreshed":false,"engine":"raft"}`)
}

func TestMetrics(t *testing.T) {
	e := newEnv(t, answerKV(`{"results":[{"index":0}]}`), Options{})
	e.do(t, "POST", "/api/v1/push", `{"items":[{"queue":"q","payload":1}]}`)
	e.do(t, "GET", "/api/v1/kv/app/k", "")
	e.do(t, "GET", "/api/v1/nothing", "")
	e.do(t, "BREW", "/api/v1/push", "")
	body := scrape(t, e)
	for _, want := range []string{
		`queen_http_requests_total{method="POST",route="/api/v1/push",status="201"} 1`,
		`queen_http_requests_total{method="GET",route="/api/v1/kv/{ns}/*",status="200"} 1`,
		`queen_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
		`queen_http_requests_total{method="other",route="unmatched",status="404"} 1`,
		`queen_http_request_duration_seconds_count{method="POST",route="/api/v1/push",status="201"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s\n%s", want, body)
		}
	}
}

// TestMetricsTwoHandlersOneRegistry: a second New on the same registry
// shares the series instead of panicking.
func TestMetricsTwoHandlersOneRegistry(t *testing.T) {
	e := newEnv(t, nil, Options{})
	h2 := New(&fakeBroker{}, Options{Registry: e.reg, Logger: nil})
	e2 := &env{h: h2, fb: e.fb, log: e.log, reg: e.reg}
	e.do(t, "GET", "/health", "")
	e2.do(t, "GET", "/health", "")
	body := e.do(t, "GET", "/metrics/prometheus", "").Body.String()
	if !strings.Contains(body, `queen_http_requests_total{method="GET",route="/health",status="200"} 2`) {
		t.Fatalf("metrics:\n%s", body)
	}
}
