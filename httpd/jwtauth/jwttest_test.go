package jwtauth

import (
	"context"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/httpd/jwtauth/jwttest"
)

// TestJWTTestTokenVerifies: the verifier takes a token jwttest minted,
// with its sub and role, and refuses one signed with another secret (the
// end-to-end tests' tokens are made apart from the verifier, by jwttest).
func TestJWTTestTokenVerifies(t *testing.T) {
	const key = "jwttest-secret-of-at-least-32-bytes!"
	v, err := New(context.Background(), Config{Secret: []byte(key), Leeway: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Unix()
	claims := map[string]any{"sub": "ops", "role": "admin", "iat": now, "exp": now + 3600}
	p, err := v.Verify(context.Background(), jwttest.HS256(t, key, claims))
	if err != nil || p.Sub != "ops" || len(p.Levels) != 1 || p.Levels[0] != LevelAdmin {
		t.Fatalf("principal %+v, %v", p, err)
	}
	if _, err := v.Verify(context.Background(), jwttest.HS256(t, "another-secret-of-at-least-32-bytes", claims)); err == nil {
		t.Fatal("a token of another secret verified")
	}
}
