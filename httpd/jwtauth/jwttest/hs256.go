package jwttest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"testing"
)

// HS256 answers claims as a compact JWT with header
// {"alg":"HS256","typ":"JWT"}, signed with secret. A claim that does not
// marshal to JSON fails t.
func HS256(t testing.TB, secret string, claims map[string]any) string {
	t.Helper()
	enc := base64.RawURLEncoding
	body, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	s := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc.EncodeToString(body)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(s))
	return s + "." + enc.EncodeToString(mac.Sum(nil))
}
