package jwtauth

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/queen-mq/queen-go/httpd"
)

func TestHS256(t *testing.T) {
	v := newVerifier(t, Config{Secret: []byte(secret)})
	p, err := v.Verify(context.Background(), hs(t, nil))
	if err != nil || p.Sub != "alice" || !slices.Equal(p.Levels, []Level{LevelAdmin}) {
		t.Fatalf("principal %+v, %v", p, err)
	}
	// Within the leeway (30 s) of exp, nbf and iat.
	for _, c := range []map[string]any{{"exp": now.Unix() - 20}, {"nbf": now.Unix() + 20}, {"iat": now.Unix() + 20},
		{"exp": nil, "nbf": nil, "iat": nil}} {
		if _, err := v.Verify(context.Background(), hs(t, c)); err != nil {
			t.Errorf("claims %v: %v", c, err)
		}
	}
	cases := []struct {
		name, token, want string
	}{
		{"forged signature", sign(t, jwt.SigningMethodHS256, []byte("another secret of thirty-two bytes"), claims(nil), ""),
			"signature does not verify"},
		{"expired", hs(t, map[string]any{"exp": now.Unix() - 31}), "expired (exp 2026-12-01T11:59:29Z)"},
		{"not yet valid", hs(t, map[string]any{"nbf": now.Unix() + 31}), "not valid yet (nbf 2026-12-01T12:00:31Z)"},
		{"issued in the future", hs(t, map[string]any{"iat": now.Unix() + 31}), "issued in the future"},
		{"exp of the wrong type", hs(t, map[string]any{"exp": "tomorrow"}), "wrong type"},
		{"not a JWT", "abc.def", "not a well-formed JWT"},
		{"garbage", "!!!.???.***", "not a well-formed JWT"},
		{"HS384", sign(t, jwt.SigningMethodHS384, []byte(secret), claims(nil), ""), "signed with an unknown algorithm; this broker takes HS256"},
		{"RS256 under HS256", sign(t, jwt.SigningMethodRS256, keys().rsa, claims(nil), ""), "signed with RS256; this broker takes HS256"},
		{"sub not a string", hs(t, map[string]any{"sub": 7}), "sub is not a string"},
		{"sub too long", hs(t, map[string]any{"sub": strings.Repeat("s", MaxSubjectBytes+1)}), "sub is over 512 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { refused(t, v, c.token, c.want) })
	}
}

// TestAlgNone: an unsigned token is refused whatever it claims, under
// every algorithm setting.
func TestAlgNone(t *testing.T) {
	unsigned := sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claims(nil), "")
	// The same, hand-made, with a signature part that is not empty, and
	// with the alg spelled otherwise.
	head := func(alg string) string {
		return base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"` + alg + `","typ":"JWT"}`))
	}
	body := strings.Split(unsigned, ".")[1]
	tokens := []string{unsigned, head("none") + "." + body + ".c2ln", head("None") + "." + body + ".", head("NONE") + "." + body + "."}
	for _, c := range []Config{{Secret: []byte(secret)}, {Algorithm: Auto, Secret: []byte(secret), PublicKey: pemOf(t, &keys().rsa.PublicKey)},
		{Algorithm: RS256, PublicKey: pemOf(t, &keys().rsa.PublicKey)}} {
		v := newVerifier(t, c)
		for _, tok := range tokens {
			if _, err := v.Verify(context.Background(), tok); err == nil {
				t.Fatalf("%s accepted %q", c.Algorithm, tok)
			}
		}
		refused(t, v, unsigned, "signed with none")
	}
}

// TestAlgorithmConfusion: a token signed with HMAC, whose secret is the
// configured public key's PEM (or its DER), never verifies; nor one of
// another algorithm than the one configured.
func TestAlgorithmConfusion(t *testing.T) {
	k := keys()
	pub := pemOf(t, &k.rsa.PublicKey)
	block := strings.TrimSpace(string(pub))
	confused := []string{
		sign(t, jwt.SigningMethodHS256, pub, claims(nil), ""),
		sign(t, jwt.SigningMethodHS256, []byte(block), claims(nil), ""),
		sign(t, jwt.SigningMethodHS256, []byte(strings.TrimSuffix(string(pub), "\n")), claims(nil), ""),
	}
	for _, c := range []Config{
		{Algorithm: RS256, PublicKey: pub},
		{Algorithm: Auto, PublicKey: pub},
		{Algorithm: Auto, PublicKey: pub, Secret: []byte(secret)},
	} {
		v := newVerifier(t, c)
		for _, tok := range confused {
			if _, err := v.Verify(context.Background(), tok); err == nil {
				t.Fatalf("%s with a public key accepted an HS256 token signed with the key's PEM", c.Algorithm)
			}
		}
	}
	rs := newVerifier(t, Config{Algorithm: RS256, PublicKey: pub})
	refused(t, rs, sign(t, jwt.SigningMethodHS256, []byte(secret), claims(nil), ""), "signed with HS256; this broker takes RS256")
	refused(t, rs, sign(t, jwt.SigningMethodES256, k.ec, claims(nil), ""), "signed with ES256; this broker takes RS256")
	refused(t, rs, sign(t, jwt.SigningMethodRS256, k.rsa2, claims(nil), ""), "signature does not verify")
	// auto with an RSA key takes RS256 only, not another asymmetric kind.
	auto := newVerifier(t, Config{Algorithm: Auto, PublicKey: pub})
	if got := auto.Methods(); !slices.Equal(got, []string{RS256}) {
		t.Fatalf("auto with an RSA key takes %v", got)
	}
	refused(t, auto, sign(t, jwt.SigningMethodEdDSA, k.ed, claims(nil), ""), "signed with EdDSA; this broker takes RS256")
}

func TestPublicKeys(t *testing.T) {
	k := keys()
	cases := []struct {
		alg    string
		m      jwt.SigningMethod
		sign   any
		pub    any
		forger any
	}{
		{RS256, jwt.SigningMethodRS256, k.rsa, &k.rsa.PublicKey, k.rsa2},
		{ES256, jwt.SigningMethodES256, k.ec, &k.ec.PublicKey, nil},
		{EdDSA, jwt.SigningMethodEdDSA, k.ed, k.ed.Public(), nil},
	}
	for _, c := range cases {
		t.Run(c.alg, func(t *testing.T) {
			for _, alg := range []string{c.alg, Auto} {
				v := newVerifier(t, Config{Algorithm: alg, PublicKey: pemOf(t, c.pub)})
				p, err := v.Verify(context.Background(), sign(t, c.m, c.sign, claims(map[string]any{"role": "read-only"}), ""))
				if err != nil || !slices.Equal(p.Levels, []Level{LevelReadOnly}) {
					t.Fatalf("%s: %+v %v", alg, p, err)
				}
				tok := sign(t, c.m, c.sign, claims(nil), "")
				parts := strings.Split(tok, ".")
				forged := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"mallory","role":"admin"}`)) + "." + parts[2]
				refused(t, v, forged, "signature does not verify")
			}
		})
	}
	// A key of another kind than the algorithm, or one too weak, is
	// refused at setup.
	for _, c := range []struct {
		alg  string
		pem  []byte
		want string
	}{
		{RS256, pemOf(t, &k.ec.PublicKey), "verifies ES256, not RS256"},
		{ES256, pemOf(t, k.ed.Public()), "verifies EdDSA, not ES256"},
		{RS256, []byte("not a pem"), "no PEM block"},
		{RS256, nil, "needs a public key or a JWKS"},
		{HS256, pemOf(t, &k.rsa.PublicKey), "HS256 needs a secret"},
		{Auto, nil, "auto needs a secret, a public key or a JWKS"},
		{"PS256", nil, `unknown algorithm "PS256"`},
	} {
		_, err := New(context.Background(), Config{Algorithm: c.alg, PublicKey: c.pem})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.alg, err, c.want)
		}
	}
}

func TestIssuerAudience(t *testing.T) {
	v := newVerifier(t, Config{Secret: []byte(secret), Issuer: "https://idp.example", Audience: "queen"})
	for _, c := range []map[string]any{{"iss": "https://idp.example", "aud": "queen"}, {"iss": "https://idp.example", "aud": []string{"other", "queen"}}} {
		if _, err := v.Verify(context.Background(), hs(t, c)); err != nil {
			t.Errorf("%v: %v", c, err)
		}
	}
	refused(t, v, hs(t, map[string]any{"iss": "https://evil.example", "aud": "queen"}), "iss is not the issuer")
	refused(t, v, hs(t, map[string]any{"aud": "queen"}), "has no iss")
	refused(t, v, hs(t, map[string]any{"iss": "https://idp.example", "aud": "other"}), "aud does not name the audience")
	refused(t, v, hs(t, map[string]any{"iss": "https://idp.example"}), "has no aud")
	// Empty: any issuer and audience.
	open := newVerifier(t, Config{Secret: []byte(secret)})
	if _, err := open.Verify(context.Background(), hs(t, map[string]any{"iss": "x", "aud": "y"})); err != nil {
		t.Fatal(err)
	}
}

func TestRoles(t *testing.T) {
	v := newVerifier(t, Config{Secret: []byte(secret)})
	cases := []struct {
		claims map[string]any
		want   []Level
	}{
		{map[string]any{"role": "read-write"}, []Level{LevelReadWrite}},
		{map[string]any{"role": "write-only"}, []Level{LevelWriteOnly}},
		{map[string]any{"role": nil}, nil},
		{map[string]any{"role": "root"}, nil},
		{map[string]any{"role": nil, "roles": []string{"read-only", "admin"}}, []Level{LevelAdmin}},
		{map[string]any{"role": nil, "roles": []string{"read-only", "read-write", "write-only"}}, []Level{LevelReadWrite}},
		{map[string]any{"role": nil, "roles": []string{"write-only", "read-only"}}, []Level{LevelReadOnly, LevelWriteOnly}},
		{map[string]any{"role": nil, "roles": []any{7, "read-only"}}, []Level{LevelReadOnly}},
		{map[string]any{"role": nil, "roles": "admin"}, nil},
		// The role claim wins over the array; an unknown one does not.
		{map[string]any{"role": "read-only", "roles": []string{"admin"}}, []Level{LevelReadOnly}},
		{map[string]any{"role": "root", "roles": []string{"admin"}}, []Level{LevelAdmin}},
	}
	for _, c := range cases {
		p, err := v.Verify(context.Background(), hs(t, c.claims))
		if err != nil || !slices.Equal(p.Levels, c.want) {
			t.Errorf("%v: levels %v %v, want %v", c.claims, p.Levels, err, c.want)
		}
	}
	custom := newVerifier(t, Config{Secret: []byte(secret), RoleClaim: "queen_role", RolesClaim: "realm_access.roles",
		Roles: Roles{Admin: "queen-admin", ReadOnly: "viewer"}})
	for _, c := range []struct {
		claims map[string]any
		want   []Level
	}{
		{map[string]any{"role": nil, "queen_role": "queen-admin"}, []Level{LevelAdmin}},
		{map[string]any{"role": nil, "queen_role": "admin"}, nil},
		{map[string]any{"role": nil, "realm_access": map[string]any{"roles": []string{"viewer"}}}, []Level{LevelReadOnly}},
		{map[string]any{"role": nil, "queen_role": "write-only"}, []Level{LevelWriteOnly}}, // the default name stays
	} {
		p, err := custom.Verify(context.Background(), hs(t, c.claims))
		if err != nil || !slices.Equal(p.Levels, c.want) {
			t.Errorf("custom %v: levels %v %v, want %v", c.claims, p.Levels, err, c.want)
		}
	}
}

// TestLevelClasses: what each level reaches, class by class (API.md §0).
func TestLevelClasses(t *testing.T) {
	want := map[Level][]httpd.Class{
		LevelPublic:    {httpd.ClassPublic},
		LevelReadOnly:  {httpd.ClassPublic, httpd.ClassRead, httpd.ClassSharedRead, httpd.ClassNode},
		LevelWriteOnly: {httpd.ClassPublic, httpd.ClassPush, httpd.ClassTimers},
		LevelReadWrite: {httpd.ClassPublic, httpd.ClassRead, httpd.ClassPush, httpd.ClassTimers, httpd.ClassTxn, httpd.ClassConsume,
			httpd.ClassShared, httpd.ClassSharedRead, httpd.ClassNode, httpd.ClassConfigure},
		// No token reaches the control plane: its own token guards it.
		LevelAdmin: slices.DeleteFunc(slices.Clone(httpd.Classes), func(c httpd.Class) bool { return c == httpd.ClassControlPlane }),
	}
	for l, classes := range want {
		for _, c := range httpd.Classes {
			if got := l.Allows(c); got != slices.Contains(classes, c) {
				t.Errorf("level %s allows %s: %v", l, c, got)
			}
		}
	}
	both := Principal{Levels: []Level{LevelReadOnly, LevelWriteOnly}}
	for _, c := range httpd.Classes {
		if got, w := both.Allows(c), LevelReadOnly.Allows(c) || LevelWriteOnly.Allows(c); got != w {
			t.Errorf("read-only+write-only allows %s: %v", c, got)
		}
	}
	if (Principal{}).Allows(httpd.ClassRead) || !(Principal{}).Allows(httpd.ClassPublic) {
		t.Error("a token of no level is not public")
	}
}

func TestAuthenticate(t *testing.T) {
	v := newVerifier(t, Config{Secret: []byte(secret)})
	good := hs(t, nil)
	cases := []struct {
		name       string
		headers    []string
		ok, nocred bool
		want       string
	}{
		{"bearer", []string{"Bearer " + good}, true, false, ""},
		{"scheme in lower case", []string{"bearer " + good}, true, false, ""},
		{"missing header", nil, false, true, "no Authorization header"},
		{"wrong scheme", []string{"Basic YWxpY2U6cHc="}, false, true, "not of the Bearer scheme"},
		{"token alone", []string{good}, false, true, "not of the Bearer scheme"},
		{"Bearer with nothing", []string{"Bearer"}, false, false, "Bearer with no token"},
		{"Bearer and spaces", []string{"Bearer   "}, false, false, "Bearer with no token"},
		{"two headers", []string{"Bearer " + good, "Bearer " + good}, false, false, "more than one Authorization header"},
		{"bad token", []string{"Bearer " + good + "x"}, false, false, "signature does not verify"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/api/v1/resources/queues", nil)
			for _, h := range c.headers {
				r.Header.Add("Authorization", h)
			}
			p, err := v.Authenticate(r)
			if c.ok {
				if err != nil || p.Subject() != "alice" {
					t.Fatalf("%v %v", p, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if got := strings.Contains(err.Error(), httpd.ErrNoCredential.Error()); got != c.nocred {
				t.Fatalf("error %v: no credential %v, want %v", err, got, c.nocred)
			}
			if strings.Contains(err.Error(), good[len(good)-20:]) {
				t.Fatalf("error %q quotes the token", err)
			}
		})
	}
}

// TestJWKSServed: keys from a JWKS an HTTP server serves, by kid or
// (without one) any of them; a rotation is seen at the first token of
// the new key, and the old key is gone after it.
func TestJWKSServed(t *testing.T) {
	k := keys()
	var set atomic.Value
	set.Store(jwks(t, map[string]any{"k1": &k.rsa.PublicKey, "e1": &k.ec.PublicKey}))
	var fetches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write(set.Load().([]byte))
	}))
	defer srv.Close()
	for _, alg := range []string{RS256, Auto} {
		t.Run(alg, func(t *testing.T) {
			set.Store(jwks(t, map[string]any{"k1": &k.rsa.PublicKey, "e1": &k.ec.PublicKey}))
			v := newVerifier(t, Config{Algorithm: alg, JWKSURL: srv.URL, JWKSRefresh: time.Hour, JWKSTimeout: 5 * time.Second,
				HTTPClient: srv.Client()})
			ok := func(tok string) {
				t.Helper()
				if _, err := v.Verify(context.Background(), tok); err != nil {
					t.Fatal(err)
				}
			}
			ok(sign(t, jwt.SigningMethodRS256, k.rsa, claims(nil), "k1"))
			ok(sign(t, jwt.SigningMethodRS256, k.rsa, claims(nil), ""))
			if alg == Auto {
				ok(sign(t, jwt.SigningMethodES256, k.ec, claims(nil), "e1"))
			} else {
				refused(t, v, sign(t, jwt.SigningMethodES256, k.ec, claims(nil), "e1"), "this broker takes RS256")
			}
			// A kid naming a key of another kind does not verify.
			refused(t, v, sign(t, jwt.SigningMethodRS256, k.rsa, claims(nil), "e1"), "no configured key")
			refused(t, v, sign(t, jwt.SigningMethodRS256, k.rsa2, claims(nil), "k1"), "signature does not verify")
			// Rotation: the server now has k2 only.
			set.Store(jwks(t, map[string]any{"k2": &k.rsa2.PublicKey}))
			before := fetches.Load()
			ok(sign(t, jwt.SigningMethodRS256, k.rsa2, claims(nil), "k2"))
			if fetches.Load() == before {
				t.Fatal("the unknown kid fetched nothing")
			}
			refused(t, v, sign(t, jwt.SigningMethodRS256, k.rsa, claims(nil), "k1"), "no configured key")
		})
	}
}

// TestJWKSHMACKey: a symmetric key in a JWKS never verifies anything,
// and an HS256 token is refused where only a JWKS is configured.
func TestJWKSHMACKey(t *testing.T) {
	oct := []byte("an hmac key of thirty-two bytes!")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(jwks(t, map[string]any{"h1": oct, "k1": &keys().rsa.PublicKey}))
	}))
	defer srv.Close()
	v := newVerifier(t, Config{Algorithm: Auto, JWKSURL: srv.URL, HTTPClient: srv.Client()})
	refused(t, v, sign(t, jwt.SigningMethodHS256, oct, claims(nil), "h1"), "signed with HS256")
	refused(t, v, sign(t, jwt.SigningMethodRS256, keys().rsa, claims(nil), "h1"), "no configured key")
}

// TestJWKSFile: keys from a JWKS file, as a path and as a file:// URL;
// a rotated file is read again at the first token of the new key.
func TestJWKSFile(t *testing.T) {
	k := keys()
	path := filepath.Join(t.TempDir(), "jwks.json")
	for i, url := range []string{path, "file://" + path} {
		if err := os.WriteFile(path, jwks(t, map[string]any{"k1": &k.rsa.PublicKey}), 0o600); err != nil {
			t.Fatal(err)
		}
		v := newVerifier(t, Config{Algorithm: RS256, JWKSURL: url, JWKSRefresh: time.Hour})
		if _, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodRS256, k.rsa, claims(nil), "k1")); err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if err := os.WriteFile(path, jwks(t, map[string]any{"k2": &k.rsa2.PublicKey}), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodRS256, k.rsa2, claims(nil), "k2")); err != nil {
			t.Fatalf("%d: after rotation: %v", i, err)
		}
		refused(t, v, sign(t, jwt.SigningMethodRS256, k.rsa, claims(nil), "k1"), "no configured key")
	}
	for _, c := range []struct{ content, want string }{{"", "no such file"}, {"{not json", "not a JWK Set"}} {
		p := filepath.Join(t.TempDir(), "bad.json")
		if c.content != "" {
			os.WriteFile(p, []byte(c.content), 0o600)
		}
		if _, err := New(context.Background(), Config{Algorithm: RS256, JWKSURL: p}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.content, err, c.want)
		}
	}
}

func TestIsJWKSFile(t *testing.T) {
	for in, want := range map[string]string{"/etc/jwks.json": "/etc/jwks.json", "file:///etc/jwks.json": "/etc/jwks.json",
		"jwks.json": "jwks.json", "https://idp/jwks": "", "http://idp/jwks": ""} {
		got, ok := IsJWKSFile(in)
		if got != want || ok != (want != "") {
			t.Errorf("%s: %q %v", in, got, ok)
		}
	}
}
