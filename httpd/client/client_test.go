package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/httpd/client"
	"github.com/queen-mq/queen-go/httpd/wire"
	"github.com/queen-mq/queen-go/testkit/freeport"
)

// seen is one request as the test server read it.
type seen struct {
	method, path, auth, tenant, contentType, body string
}

// server answers every request with status and body, and keeps what it read.
func server(t *testing.T, status int, body string) (*client.Client, *seen) {
	t.Helper()
	got := &seen{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		*got = seen{r.Method, r.URL.RequestURI(), r.Header.Get("Authorization"), r.Header.Get(client.TenantHeader),
			r.Header.Get("Content-Type"), string(b)}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return &client.Client{Base: srv.URL}, got
}

func TestCallSendsJSONAndDecodes(t *testing.T) {
	c, got := server(t, http.StatusCreated, `{"offset":7}`+"\n")
	c.Token, c.Tenant = "tok", "acme"
	var out struct{ Offset int64 }
	code, err := c.Call(context.Background(), http.MethodPost, "/api/v1/push?x=1", map[string]string{"queue": "q"}, &out)
	if err != nil || code != http.StatusCreated || out.Offset != 7 {
		t.Fatalf("Call = %d, %v, %+v", code, err, out)
	}
	want := seen{"POST", "/api/v1/push?x=1", "Bearer tok", "acme", "application/json", `{"queue":"q"}`}
	if *got != want {
		t.Fatalf("request %+v, want %+v", *got, want)
	}
}

func TestDoSendsBytesAsTheyAre(t *testing.T) {
	c, got := server(t, http.StatusOK, "")
	push := append([]byte(wire.PushMagic), 1, 2, 3)
	for _, tc := range []struct {
		body        []byte
		contentType string
	}{
		{[]byte(`{"a":1}`), "application/json"},
		{push, wire.PushContentType},
	} {
		resp, raw, err := c.Do(context.Background(), http.MethodPost, "/p", tc.body, nil)
		if err != nil || resp.StatusCode != http.StatusOK || len(raw) != 0 {
			t.Fatalf("Do = %v, %q, %v", resp, raw, err)
		}
		if got.body != string(tc.body) || got.contentType != tc.contentType || got.auth != "" || got.tenant != "" {
			t.Fatalf("request %+v, want body %q as %s, no credential, no tenant", *got, tc.body, tc.contentType)
		}
	}
}

func TestDoHeaderOverrides(t *testing.T) {
	c, got := server(t, http.StatusOK, "{}")
	c.Tenant = "acme"
	h := http.Header{}
	h.Set(client.TenantHeader, "other")
	if _, _, err := c.Do(context.Background(), http.MethodGet, "/x", nil, h); err != nil {
		t.Fatal(err)
	}
	if got.tenant != "other" || got.contentType != "" || got.method != "GET" {
		t.Fatalf("request %+v: want the caller's tenant, no content type on a GET", *got)
	}
}

func TestCallErrors(t *testing.T) {
	for _, tc := range []struct {
		name, body    string
		status        int
		code, message string
	}{
		{"broker", `{"error":"queue \"q\" not found","code":"queue_not_found"}`, 404, "queue_not_found", `queue "q" not found`},
		{"kv", `{"error":"precondition failed","reason":"version_mismatch","detail":"key k"}`, 409, "version_mismatch", "precondition failed: key k"},
		{"text", "upstream gone\n", 502, "bad_gateway", "upstream gone"},
		{"empty", "", 503, "service_unavailable", "Service Unavailable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := server(t, tc.status, tc.body)
			var out map[string]any
			code, err := c.Call(context.Background(), http.MethodDelete, "/q", nil, &out)
			var e *client.Error
			if code != tc.status || !errors.As(err, &e) {
				t.Fatalf("Call = %d, %v: want %d and an *Error", code, err, tc.status)
			}
			if e.Status != tc.status || e.Code != tc.code || e.Message != tc.message || string(e.Body) != tc.body || out != nil {
				t.Fatalf("error %+v, out %v: want code %q message %q, nothing decoded", e, out, tc.code, tc.message)
			}
			if want := "DELETE /q: " + strconv.Itoa(tc.status); !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), strings.TrimSpace(tc.body)) {
				t.Fatalf("Error() = %q: want %q then the body", err, want)
			}
		})
	}
}

func TestCallUndecodableAnswer(t *testing.T) {
	c, _ := server(t, http.StatusOK, "not json")
	var out struct{}
	code, err := c.Call(context.Background(), http.MethodGet, "/x", nil, &out)
	if code != http.StatusOK || err == nil || !strings.Contains(err.Error(), "GET /x") || !strings.Contains(err.Error(), "not json") {
		t.Fatalf("Call = %d, %v: want 200 and an error naming the call and the body", code, err)
	}
}

func TestNoAnswerIsConnError(t *testing.T) {
	addr, err := freeport.Addr()
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + addr
	c := &client.Client{Base: base}
	code, err := c.Call(context.Background(), http.MethodGet, "/health", nil, nil)
	var ce *client.ConnError
	if code != 0 || !errors.As(err, &ce) || ce.URL != base || ce.Path != "/health" {
		t.Fatalf("Call = %d, %v: want 0 and a *ConnError naming the broker and the path", code, err)
	}
	if !strings.Contains(err.Error(), "cannot reach the broker at "+base) {
		t.Fatalf("Error() = %q", err)
	}
	// A full URL as the path (no Base, as queen-bench calls): the broker is
	// its scheme and host.
	_, err = (&client.Client{}).Call(context.Background(), http.MethodGet, base+"/health", nil, nil)
	if !errors.As(err, &ce) || ce.URL != base {
		t.Fatalf("full URL: %v, want a *ConnError naming %s", err, base)
	}
}
