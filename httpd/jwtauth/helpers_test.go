package jwtauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
)

// now is the clock of every test verifier: tokens are judged at it.
var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

const secret = "s3cr3t-of-at-least-32-bytes-for-hs256!"

// keys are one key pair of each asymmetric kind, made once.
var keys = sync.OnceValue(func() (k struct {
	rsa, rsa2 *rsa.PrivateKey
	ec        *ecdsa.PrivateKey
	ed        ed25519.PrivateKey
}) {
	var err error
	if k.rsa, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		panic(err)
	}
	if k.rsa2, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
		panic(err)
	}
	if k.ec, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		panic(err)
	}
	if _, k.ed, err = ed25519.GenerateKey(rand.Reader); err != nil {
		panic(err)
	}
	return k
})

// pemOf is pub as a PEM PUBLIC KEY block.
func pemOf(t testing.TB, pub any) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// claims are valid ones at now: sub, a role, iat, nbf and exp around now.
func claims(extra map[string]any) jwt.MapClaims {
	c := jwt.MapClaims{"sub": "alice", "role": "admin", "iat": now.Unix() - 10, "nbf": now.Unix() - 10, "exp": now.Add(time.Hour).Unix()}
	for k, v := range extra {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}

// sign makes a token; kid "" puts none in the header.
func sign(t testing.TB, m jwt.SigningMethod, key any, c jwt.MapClaims, kid string) string {
	t.Helper()
	tok := jwt.NewWithClaims(m, c)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// hs is an HS256 token of the test secret.
func hs(t testing.TB, extra map[string]any) string {
	return sign(t, jwt.SigningMethodHS256, []byte(secret), claims(extra), "")
}

// newVerifier makes a verifier at now from c.
func newVerifier(t testing.TB, c Config) *Verifier {
	t.Helper()
	c.Now = func() time.Time { return now }
	if c.Leeway == 0 {
		c.Leeway = 30 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	v, err := New(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// refused fails unless v refuses token with a message containing want,
// which never quotes the token nor its signature.
func refused(t *testing.T, v *Verifier, token, want string) {
	t.Helper()
	_, err := v.Verify(context.Background(), token)
	if err == nil {
		t.Fatalf("token accepted, want a refusal saying %q", want)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("refusal %q does not say %q", err, want)
	}
	parts := strings.Split(token, ".")
	for _, p := range parts {
		if len(p) >= 8 && strings.Contains(err.Error(), p) {
			t.Fatalf("refusal %q quotes the token", err)
		}
	}
}

// jwks renders a JWK Set of public keys, each with its kid and alg.
func jwks(t testing.TB, ks map[string]any) []byte {
	t.Helper()
	set := jwkset.NewMemoryStorage()
	for kid, k := range ks {
		alg := jwkset.ALG(keyAlgorithm(k))
		if _, ok := k.([]byte); ok {
			alg = jwkset.AlgHS256
		}
		j, err := jwkset.NewJWKFromKey(k, jwkset.JWKOptions{Metadata: jwkset.JWKMetadataOptions{KID: kid, ALG: alg}, Marshal: jwkset.JWKMarshalOptions{Private: true}})
		if err != nil {
			t.Fatal(err)
		}
		if err := set.KeyWrite(context.Background(), j); err != nil {
			t.Fatal(err)
		}
	}
	b, err := set.JSONPrivate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var check map[string]any
	if err := json.Unmarshal(b, &check); err != nil {
		t.Fatal(err)
	}
	return b
}
