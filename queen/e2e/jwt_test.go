package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/httpd/jwtauth/jwttest"
)

// jwtSecret is the HS256 secret of TestJWTAuth's node.
const jwtSecret = "e2e-secret-of-at-least-thirty-two-bytes"

// hs256 signs claims with jwtSecret, by hand (jwttest): the broker's
// verifier is a library; the test's token is made apart from it.
func hs256(t *testing.T, claims map[string]any) string {
	t.Helper()
	return jwttest.HS256(t, jwtSecret, claims)
}

// token is a token of role for sub, valid for an hour.
func token(t *testing.T, role, sub string) string {
	now := time.Now().Unix()
	return hs256(t, map[string]any{"sub": sub, "role": role, "iss": "queen-e2e", "iat": now, "exp": now + 3600})
}

// callAs sends body (nil: no body) with the bearer token tok ("" none)
// and answers the status and the body.
func (n *node) callAs(ctx context.Context, tok, method, path string, body any) (int, []byte) {
	n.t.Helper()
	api := n.api()
	api.Token = tok
	resp, raw, err := api.Do(ctx, method, path, body, nil)
	if err != nil {
		n.t.Fatal(err)
	}
	return resp.StatusCode, raw
}

// TestJWTAuth runs one real node with JWT_ENABLED=true and HS256: no
// token is 401, a read-only token cannot push (403), a write-only one
// pushes and its record's producerSub is the token's sub in a pop (and a
// fetch), whatever the body said; an admin token configures; /health
// needs none. Then the official Python client, with bearer_token, against
// the same node (skipped without the client venv, as the client lane is).
func TestJWTAuth(t *testing.T) {
	n := cluster(t, 1, "JWT_ENABLED=true", "JWT_SECRET="+jwtSecret, "JWT_ISSUER=queen-e2e")[0]
	n.start()
	n.waitReady() // /health is a skip path
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if strings.Contains(n.log(), jwtSecret) {
		t.Fatal("the node logged the secret")
	}
	admin, ro, wo, rw := token(t, "admin", "ops"), token(t, "read-only", "dashboard"), token(t, "write-only", "svc-orders"),
		token(t, "read-write", "worker")
	push := map[string]any{"items": []any{map[string]any{"queue": "jwt-q", "payload": map[string]any{"n": 1}, "producerSub": "mallory"}}}

	want := func(code int, raw []byte, status int, errCode string) {
		t.Helper()
		var e struct{ Error, Code string }
		if code != status || json.Unmarshal(raw, &e) != nil || e.Code != errCode || e.Error == "" {
			t.Fatalf("answer %d %s, want %d %s", code, raw, status, errCode)
		}
	}
	code, raw := n.callAs(ctx, "", http.MethodPost, "/api/v1/push", push)
	want(code, raw, http.StatusUnauthorized, "unauthorized")
	code, raw = n.callAs(ctx, hs256(t, map[string]any{"sub": "x", "role": "admin", "iss": "elsewhere"}), http.MethodPost, "/api/v1/push", push)
	want(code, raw, http.StatusUnauthorized, "unauthorized")
	code, raw = n.callAs(ctx, ro, http.MethodPost, "/api/v1/push", push)
	want(code, raw, http.StatusForbidden, "forbidden")

	for {
		code, raw = n.callAs(ctx, admin, http.MethodPost, "/api/v1/configure", map[string]any{"queue": "jwt-q", "options": map[string]any{"leaseTime": 30}})
		if code != http.StatusServiceUnavailable || ctx.Err() != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code != http.StatusOK || !strings.Contains(string(raw), `"configured":true`) {
		t.Fatalf("admin configure: %d %s", code, raw)
	}
	code, raw = n.callAs(ctx, wo, http.MethodPost, "/api/v1/configure", map[string]any{"queue": "jwt-q"})
	want(code, raw, http.StatusForbidden, "forbidden")

	if code, raw = n.callAs(ctx, wo, http.MethodPost, "/api/v1/push", push); code != http.StatusCreated {
		t.Fatalf("write-only push: %d %s", code, raw)
	}
	code, raw = n.callAs(ctx, wo, http.MethodGet, "/api/v1/pop/queue/jwt-q?batch=1", nil)
	want(code, raw, http.StatusForbidden, "forbidden")
	code, raw = n.callAs(ctx, rw, http.MethodGet, "/api/v1/pop/queue/jwt-q?batch=1&wait=true&timeout=5000", nil)
	var pop struct {
		Messages []struct {
			Data        map[string]any
			ProducerSub *string
		}
	}
	if code != http.StatusOK || json.Unmarshal(raw, &pop) != nil || len(pop.Messages) != 1 || pop.Messages[0].ProducerSub == nil ||
		*pop.Messages[0].ProducerSub != "svc-orders" {
		t.Fatalf("pop: %d %s", code, raw)
	}
	code, raw = n.callAs(ctx, ro, http.MethodPost, "/api/v1/fetch", map[string]any{"entries": []any{map[string]any{"queue": "jwt-q", "offset": 0}}})
	if code != http.StatusOK || !strings.Contains(string(raw), `"producerSub":"svc-orders"`) {
		t.Fatalf("read-only fetch: %d %s", code, raw)
	}
	if strings.Contains(n.log(), jwtSecret) || strings.Contains(n.log(), strings.Split(admin, ".")[2]) {
		t.Fatal("the node logged the secret or a token")
	}

	t.Run("python", func(t *testing.T) {
		python := clientPython(t)
		out, code := runClientScript(t, python, "../../clients/python/check_jwt.py", "--url", n.url, "--write-token", wo,
			"--rw-token", rw, "--ro-token", ro, "--sub", "svc-orders")
		if code != 0 || !regexp.MustCompile(`(?m)^3 passed, 0 failed$`).MatchString(out) {
			t.Fatalf("the Python client with bearer_token failed (exit %d):\n%s", code, out)
		}
		t.Log(strings.TrimSpace(out))
	})
}
