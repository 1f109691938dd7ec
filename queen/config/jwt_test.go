package config_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/httpd/jwtauth"
	"github.com/queen-mq/queen-go/queen/config"
)

func pemKey(t *testing.T, pub any) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

func TestJWTDefaults(t *testing.T) {
	c, err := config.Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	j := c.JWT
	v := j.Verifier
	if j.Enabled || v.Algorithm != jwtauth.HS256 || v.Secret != nil || v.PublicKey != nil || v.JWKSURL != "" ||
		v.JWKSRefresh != time.Hour || v.JWKSTimeout != 5*time.Second || v.Issuer != "" || v.Audience != "" ||
		v.Leeway != 30*time.Second || v.RoleClaim != "role" || v.RolesClaim != "roles" || v.Roles != jwtauth.DefaultRoles ||
		!slices.Equal(j.SkipPaths, []string{"/health", "/metrics/prometheus", "/metrics", "/"}) {
		t.Errorf("JWT defaults: %+v", j)
	}
}

func TestJWTSettings(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pub := pemKey(t, &rsaKey.PublicKey)
	jwks := filepath.Join(t.TempDir(), "jwks.json")
	os.WriteFile(jwks, []byte(`{"keys":[]}`), 0o600)
	c, err := config.Load(env(map[string]string{
		"JWT_ENABLED": "TRUE", "JWT_ALGORITHM": "rs256", "JWT_PUBLIC_KEY": strings.ReplaceAll(pub, "\n", `\n`),
		"JWT_JWKS_URL": "file://" + jwks, "JWT_JWKS_REFRESH_INTERVAL": "60", "JWT_JWKS_TIMEOUT_MS": "250",
		"JWT_ISSUER": "https://idp", "JWT_AUDIENCE": "queen", "JWT_CLOCK_SKEW": "0", "JWT_ROLES_CLAIM": "queen_role",
		"JWT_ROLES_ARRAY_CLAIM": "realm_access.roles", "JWT_ROLE_ADMIN": "ops", "JWT_ROLE_READ_WRITE": "rw",
		"JWT_ROLE_READ_ONLY": "ro", "JWT_ROLE_WRITE_ONLY": "wo", "JWT_SKIP_PATHS": " /health , /public/ ,",
	}))
	if err != nil {
		t.Fatal(err)
	}
	j, v := c.JWT, c.JWT.Verifier
	if !j.Enabled || v.Algorithm != jwtauth.RS256 || string(v.PublicKey) != pub || v.JWKSURL != "file://"+jwks ||
		v.JWKSRefresh != time.Minute || v.JWKSTimeout != 250*time.Millisecond || v.Issuer != "https://idp" || v.Audience != "queen" ||
		v.Leeway != 0 || v.RoleClaim != "queen_role" || v.RolesClaim != "realm_access.roles" ||
		v.Roles != (jwtauth.Roles{Admin: "ops", ReadWrite: "rw", ReadOnly: "ro", WriteOnly: "wo"}) ||
		!slices.Equal(j.SkipPaths, []string{"/health", "/public/"}) {
		t.Errorf("JWT settings: %+v", j)
	}
	c, err = config.Load(env(map[string]string{"JWT_ENABLED": "true", "JWT_SECRET": "s", "JWT_ALGORITHM": "AUTO",
		"JWT_JWKS_URL": "https://idp.example/jwks"}))
	if err != nil || c.JWT.Verifier.Algorithm != jwtauth.Auto || string(c.JWT.Verifier.Secret) != "s" {
		t.Errorf("auto: %v %+v", err, c)
	}
	// Off, no key material is needed.
	if _, err := config.Load(env(map[string]string{"JWT_ALGORITHM": "RS256"})); err != nil {
		t.Error(err)
	}
}

// TestJWTRefusals: a bad JWT_* value, or JWT_ENABLED=true without the
// key material of its algorithm, stops the boot with one line naming the
// variable; a secret or key is never quoted.
func TestJWTRefusals(t *testing.T) {
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ec := pemKey(t, &ecKey.PublicKey)
	const pre = "ERROR boot: FATAL: broker: "
	cases := []refusal{
		{map[string]string{"JWT_ENABLED": "sometimes"}, pre + "JWT_ENABLED=sometimes is not a boolean. It is `true` or `false`: whether every request but JWT_SKIP_PATHS needs Authorization: Bearer <jwt>"},
		{map[string]string{"JWT_ALGORITHM": "PS256"}, pre + "JWT_ALGORITHM=PS256 is not a JWT algorithm. It is one of HS256, RS256, ES256, EdDSA, auto: what tokens are signed with; auto takes what the key material configured verifies"},
		{map[string]string{"JWT_ENABLED": "true"}, pre + "JWT_ENABLED=true with JWT_ALGORITHM=HS256 and no JWT_SECRET. It is the secret HS256 tokens are signed with (at least 32 bytes advised)"},
		{map[string]string{"JWT_ENABLED": "true", "JWT_ALGORITHM": "EdDSA"}, pre + "JWT_ENABLED=true with JWT_ALGORITHM=EdDSA and neither JWT_PUBLIC_KEY nor JWT_JWKS_URL. One of them holds the key EdDSA tokens are checked with"},
		{map[string]string{"JWT_ENABLED": "true", "JWT_ALGORITHM": "auto"}, pre + "JWT_ENABLED=true with JWT_ALGORITHM=auto and no JWT_SECRET, JWT_PUBLIC_KEY nor JWT_JWKS_URL. auto verifies with whichever of them is set"},
		{map[string]string{"JWT_ENABLED": "true", "JWT_ALGORITHM": "RS256", "JWT_PUBLIC_KEY": ec}, pre + "JWT_ENABLED=true with JWT_ALGORITHM=RS256 and a JWT_PUBLIC_KEY that verifies ES256. It is the key RS256 tokens are checked with: one of that kind, or JWT_ALGORITHM=auto"},
		{map[string]string{"JWT_PUBLIC_KEY": "hunter2-not-a-key"}, pre + "JWT_PUBLIC_KEY (17 characters) is not a PEM public key: no PEM block. It is the key RS256, ES256 and EdDSA tokens are checked with, a PUBLIC KEY, RSA PUBLIC KEY or CERTIFICATE block (RSA of 2048 bits or more, EC P-256 or Ed25519)"},
		{map[string]string{"JWT_JWKS_URL": "ftp://idp/jwks"}, pre + "JWT_JWKS_URL=ftp://idp/jwks names no readable file. It is the JWK Set of the token keys: an http(s) URL, a file:// URL or a file path"},
		{map[string]string{"JWT_JWKS_URL": "https:///jwks"}, pre + "JWT_JWKS_URL=https:///jwks is not an http(s) URL with a host. It is where the JWK Set of the token keys is fetched, or a file:// URL or path of a JWKS file"},
		{map[string]string{"JWT_JWKS_REFRESH_INTERVAL": "1"}, pre + "JWT_JWKS_REFRESH_INTERVAL=1 is outside 10..=604800. It is how often the JWKS is fetched (or read) again, in seconds"},
		{map[string]string{"JWT_JWKS_TIMEOUT_MS": "5s"}, pre + "JWT_JWKS_TIMEOUT_MS=5s is not a whole number. It is how long one JWKS fetch may take, in milliseconds, in 100..=60000"},
		{map[string]string{"JWT_CLOCK_SKEW": "-1"}, pre + "JWT_CLOCK_SKEW=-1 is outside 0..=3600. It is the clock skew allowed on a token's exp, nbf and iat, in seconds"},
		{map[string]string{"JWT_SKIP_PATHS": "/health,metrics"}, pre + "JWT_SKIP_PATHS=/health,metrics is not a list of paths. Each is a path from the root, such as /health, and one ending in / is a prefix (/ alone is the root only)"},
	}
	wantRefusals(t, cases)
}
