package jwtauth

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

// FuzzVerify: no token string makes Verify panic, and every token it
// accepts is signed with the configured secret: its header says HS256
// and its signature is the HMAC-SHA256 of its first two parts, checked
// here by hand, apart from the library.
func FuzzVerify(f *testing.F) {
	unsigned := sign(f, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claims(nil), "")
	for _, s := range []string{
		hs(f, nil),
		hs(f, map[string]any{"roles": []string{"read-only", "write-only"}, "role": nil}),
		hs(f, map[string]any{"exp": now.Unix() - 3600}),
		sign(f, jwt.SigningMethodHS256, []byte("another secret"), claims(nil), ""),
		sign(f, jwt.SigningMethodHS512, []byte(secret), claims(nil), ""),
		sign(f, jwt.SigningMethodRS256, keys().rsa, claims(nil), "k1"),
		unsigned,
		strings.TrimSuffix(unsigned, "."),
		"", ".", "..", "a.b.c", "eyJhbGciOiJIUzI1NiJ9..", "Bearer x",
	} {
		f.Add(s)
	}
	v := newVerifier(f, Config{Secret: []byte(secret)})
	f.Fuzz(func(t *testing.T, token string) {
		p, err := v.Verify(context.Background(), token)
		if err != nil {
			return
		}
		parts := strings.Split(token, ".")
		if len(parts) != 3 {
			t.Fatalf("accepted %q of %d parts", token, len(parts))
		}
		head, err := base64.RawURLEncoding.DecodeString(parts[0])
		if err != nil {
			t.Fatalf("accepted %q whose header is not base64url", token)
		}
		var h struct {
			Alg string `json:"alg"`
		}
		if json.Unmarshal(head, &h) != nil || h.Alg != HS256 {
			t.Fatalf("accepted %q of header %s", token, head)
		}
		sig, err := base64.RawURLEncoding.DecodeString(parts[2])
		if err != nil {
			t.Fatalf("accepted %q whose signature is not base64url", token)
		}
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(parts[0] + "." + parts[1]))
		if !bytes.Equal(mac.Sum(nil), sig) {
			t.Fatalf("accepted %q, not signed with the secret", token)
		}
		if len(p.Sub) > MaxSubjectBytes {
			t.Fatalf("accepted a sub of %d bytes", len(p.Sub))
		}
	})
}
