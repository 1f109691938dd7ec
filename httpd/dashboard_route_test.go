package httpd

import (
	"net/http"
	"strings"
	"testing"
)

// TestDashboardRoutes: GET / serves the dashboard's page and
// /dashboard/* its assets; with auth on, they need no credential when
// "/" is a skip path (the assets follow the page), and do when it is not,
// while the API the page reads stays guarded.
func TestDashboardRoutes(t *testing.T) {
	auth := []Authenticator{tokenAuth{}}
	open := newEnv(t, nil, Options{Authenticators: auth, SkipPaths: []string{"/health", "/"}})
	for _, c := range []struct{ target, ctype string }{{"/", "text/html"}, {"/dashboard/app.js", "text/javascript"}} {
		w := open.do(t, "GET", c.target, "")
		if w.Code != http.StatusOK || !strings.HasPrefix(w.Header().Get("Content-Type"), c.ctype) {
			t.Errorf("GET %s (skipped): %d %s", c.target, w.Code, w.Header().Get("Content-Type"))
		}
	}
	if w := open.do(t, "GET", "/dashboard/../status", ""); w.Code == http.StatusOK {
		t.Errorf("GET /dashboard/../status: %d, a skip must not reach /status", w.Code)
	}
	if w := open.do(t, "GET", "/api/v1/status/queues", ""); w.Code != http.StatusUnauthorized {
		t.Errorf("GET /api/v1/status/queues without a token: %d, want 401", w.Code)
	}
	closed := newEnv(t, nil, Options{Authenticators: auth, SkipPaths: []string{"/health"}})
	for _, target := range []string{"/", "/dashboard/app.js"} {
		if w := closed.do(t, "GET", target, ""); w.Code != http.StatusUnauthorized {
			t.Errorf("GET %s, / not skipped: %d, want 401", target, w.Code)
		}
	}
}
