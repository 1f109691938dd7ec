package main

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/testkit/freeport"
)

// serveHealth serves handler on 127.0.0.1 at a free port and returns the
// getenv that points `queen healthcheck` at it.
func serveHealth(t *testing.T, handler http.HandlerFunc) func(string) string {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return func(k string) string {
		if k == "PORT" {
			return port
		}
		return ""
	}
}

func TestHealthcheck(t *testing.T) {
	var asked string
	ok := serveHealth(t, func(w http.ResponseWriter, r *http.Request) {
		asked = r.Method + " " + r.URL.Path
		w.Write([]byte(`{"status":"healthy"}`))
	})
	var out bytes.Buffer
	if code := healthcheck(ok, &out); code != 0 || out.Len() != 0 {
		t.Errorf("a 200: exit %d, %q; want 0 and nothing said", code, out.String())
	}
	if asked != "GET /health" {
		t.Errorf("asked %q, want GET /health", asked)
	}

	settling := serveHealth(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte("{\"status\":\"settling\",\n \"lagMs\": 9000}"))
	})
	out.Reset()
	code := healthcheck(settling, &out)
	if line := out.String(); code != 1 || strings.Count(line, "\n") != 1 || !strings.Contains(line, "503 Service Unavailable") ||
		!strings.Contains(line, `{"status":"settling", "lagMs": 9000}`) || !strings.Contains(line, "/health") {
		t.Errorf("a 503: exit %d, %q; want 1 and one line naming the status and body", code, line)
	}
}

func TestHealthcheckNoListener(t *testing.T) {
	// A port nothing listens on: taken, then freed.
	port := strconv.Itoa(freeport.Take(t))
	var out bytes.Buffer
	code := healthcheck(func(k string) string {
		if k == "PORT" {
			return port
		}
		return ""
	}, &out)
	if line := out.String(); code != 1 || strings.Count(line, "\n") != 1 || !strings.Contains(line, "127.0.0.1:"+port) ||
		!strings.Contains(line, "refused") {
		t.Errorf("no listener: exit %d, %q; want 1 and one line saying the connection was refused", code, line)
	}
}

func TestHealthcheckBadPort(t *testing.T) {
	var out bytes.Buffer
	code := healthcheck(func(k string) string {
		if k == "PORT" {
			return "http"
		}
		return ""
	}, &out)
	if code != 1 || out.String() != "healthcheck: PORT=http is not a port in 1..=65535\n" {
		t.Errorf("bad PORT: exit %d, %q", code, out.String())
	}
}

// A node that never answers is given up on at the timeout, not waited for.
func TestHealthcheckTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	start := time.Now()
	err := checkHealth(srv.URL+"/health", 200*time.Millisecond)
	if took := time.Since(start); err == nil || !strings.Contains(err.Error(), "deadline exceeded") || took > 2*time.Second {
		t.Errorf("a hung node: %v after %v; want a deadline error within the timeout", err, took)
	}
}

// TestHealthcheckBindAddr: a node bound to one address is asked there; a
// node bound to every address is asked on the loopback.
func TestHealthcheckBindAddr(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2 on this loopback: %v", err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	env := func(bind string) func(string) string {
		return func(k string) string {
			switch k {
			case "PORT":
				return port
			case "QUEEN_BIND_ADDR":
				return bind
			}
			return ""
		}
	}
	var out bytes.Buffer
	if code := healthcheck(env("127.0.0.2"), &out); code != 0 {
		t.Errorf("bound to 127.0.0.2: exit %d, %q; want 0", code, out.String())
	}
	for _, every := range []string{"0.0.0.0", "::"} {
		out.Reset()
		if code := healthcheck(env(every), &out); code != 1 || !strings.Contains(out.String(), "127.0.0.1:"+port) {
			t.Errorf("bound to every address (%s): exit %d, %q; want the loopback asked (nothing there: 1)", every, code, out.String())
		}
	}
	// A bind address the broker refuses is refused here too, in its words.
	out.Reset()
	if code := healthcheck(env("[::1]"), &out); code != 1 || out.String() != "healthcheck: broker: QUEEN_BIND_ADDR=[::1] is not an IP address. "+
		"It is the address the HTTP listener binds, such as 0.0.0.0 or 127.0.0.1\n" {
		t.Errorf("a bind address the broker refuses: exit %d, %q", code, out.String())
	}
}
