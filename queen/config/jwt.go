package config

import (
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/queen-mq/queen-go/httpd/jwtauth"
)

// DefaultSkipPaths are JWT_SKIP_PATHS' default: the health and metrics
// routes, and the root path.
const DefaultSkipPaths = "/health,/metrics/prometheus,/metrics,/"

// JWT is the broker JWT auth's configuration (API.md §0).
type JWT struct {
	// Enabled turns it on (JWT_ENABLED, false): every route but the skip
	// paths then needs Authorization: Bearer <jwt>.
	Enabled bool
	// Verifier holds the verification settings: JWT_ALGORITHM, JWT_SECRET,
	// JWT_PUBLIC_KEY, JWT_JWKS_URL, JWT_JWKS_REFRESH_INTERVAL,
	// JWT_JWKS_TIMEOUT_MS, JWT_ISSUER, JWT_AUDIENCE, JWT_CLOCK_SKEW,
	// JWT_ROLES_CLAIM, JWT_ROLES_ARRAY_CLAIM and JWT_ROLE_* (Logger and
	// HTTPClient are the binary's to set).
	Verifier jwtauth.Config
	// SkipPaths are served without a token (JWT_SKIP_PATHS,
	// DefaultSkipPaths): an entry ending in "/" is a prefix, except "/"
	// alone, the root path only.
	SkipPaths []string
	// SkipPathsSet says JWT_SKIP_PATHS was set: unset, a broker with the
	// control plane keeps its metrics to the operator (only /health and
	// the root are skipped there).
	SkipPathsSet bool
}

// jwt reads the JWT_* variables. Each is checked whether or not
// JWT_ENABLED is set; with it, the algorithm must have its key material.
// Secrets and keys are never quoted in a refusal, only their length.
func (l *loader) jwt() JWT {
	var j JWT
	j.Enabled = l.bool("JWT_ENABLED", false, "whether every request but JWT_SKIP_PATHS needs Authorization: Bearer <jwt>")
	v := &j.Verifier
	v.Algorithm = l.enum("JWT_ALGORITHM", jwtauth.HS256, "JWT algorithm", map[string]string{
		"hs256": jwtauth.HS256, "rs256": jwtauth.RS256, "es256": jwtauth.ES256, "eddsa": jwtauth.EdDSA, "auto": jwtauth.Auto},
		"HS256, RS256, ES256, EdDSA, auto", "what tokens are signed with; auto takes what the key material configured verifies")
	if s := l.raw("JWT_SECRET"); s != "" {
		v.Secret = []byte(s)
	}
	var pubAlg string
	if raw := l.raw("JWT_PUBLIC_KEY"); raw != "" {
		if !strings.Contains(raw, "\n") {
			raw = strings.ReplaceAll(raw, `\n`, "\n") // a PEM on one line, its breaks written \n
		}
		_, alg, err := jwtauth.ParsePublicKey([]byte(raw))
		if err != nil {
			l.fail("JWT_PUBLIC_KEY (%d characters) is not a PEM public key: %v. It is the key RS256, ES256 and EdDSA tokens are checked with, "+
				"a PUBLIC KEY, RSA PUBLIC KEY or CERTIFICATE block (RSA of 2048 bits or more, EC P-256 or Ed25519)", len(raw), err)
		}
		v.PublicKey, pubAlg = []byte(raw), alg
	}
	v.JWKSURL = l.str("JWT_JWKS_URL", "", checkJWKS)
	v.JWKSRefresh = time.Duration(l.int("JWT_JWKS_REFRESH_INTERVAL", 3600, 10, 7*86400,
		"how often the JWKS is fetched (or read) again, in seconds")) * time.Second
	v.JWKSTimeout = ms(l.int("JWT_JWKS_TIMEOUT_MS", 5000, 100, 60_000, "how long one JWKS fetch may take, in milliseconds"))
	v.Issuer = l.str("JWT_ISSUER", "", nil)
	v.Audience = l.str("JWT_AUDIENCE", "", nil)
	v.Leeway = time.Duration(l.int("JWT_CLOCK_SKEW", 30, 0, 3600, "the clock skew allowed on a token's exp, nbf and iat, in seconds")) * time.Second
	v.RoleClaim = l.str("JWT_ROLES_CLAIM", "role", nil)
	v.RolesClaim = l.str("JWT_ROLES_ARRAY_CLAIM", "roles", nil)
	d := jwtauth.DefaultRoles
	v.Roles = jwtauth.Roles{Admin: l.str("JWT_ROLE_ADMIN", d.Admin, nil), ReadWrite: l.str("JWT_ROLE_READ_WRITE", d.ReadWrite, nil),
		ReadOnly: l.str("JWT_ROLE_READ_ONLY", d.ReadOnly, nil), WriteOnly: l.str("JWT_ROLE_WRITE_ONLY", d.WriteOnly, nil)}
	skip := l.str("JWT_SKIP_PATHS", DefaultSkipPaths, func(s string) string {
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" && !strings.HasPrefix(p, "/") {
				return "is not a list of paths. Each is a path from the root, such as /health, and one ending in / is a prefix (/ alone is the root only)"
			}
		}
		return ""
	})
	j.SkipPathsSet = l.raw("JWT_SKIP_PATHS") != ""
	for _, p := range strings.Split(skip, ",") {
		if p = strings.TrimSpace(p); p != "" {
			j.SkipPaths = append(j.SkipPaths, p)
		}
	}
	if j.Enabled {
		l.jwtKeys(v, pubAlg)
	}
	return j
}

// jwtKeys refuses JWT_ENABLED=true without the key material its
// algorithm needs.
func (l *loader) jwtKeys(v *jwtauth.Config, pubAlg string) {
	const pre = "JWT_ENABLED=true with JWT_ALGORITHM=%s "
	switch v.Algorithm {
	case jwtauth.HS256:
		if len(v.Secret) == 0 {
			l.fail(pre+"and no JWT_SECRET. It is the secret HS256 tokens are signed with (at least 32 bytes advised)", v.Algorithm)
		}
	case jwtauth.RS256, jwtauth.ES256, jwtauth.EdDSA:
		switch {
		case len(v.PublicKey) == 0 && v.JWKSURL == "":
			l.fail(pre+"and neither JWT_PUBLIC_KEY nor JWT_JWKS_URL. One of them holds the key %s tokens are checked with", v.Algorithm, v.Algorithm)
		case len(v.PublicKey) > 0 && pubAlg != "" && pubAlg != v.Algorithm:
			l.fail(pre+"and a JWT_PUBLIC_KEY that verifies %s. It is the key %s tokens are checked with: one of that kind, or JWT_ALGORITHM=auto",
				v.Algorithm, pubAlg, v.Algorithm)
		}
	case jwtauth.Auto:
		if len(v.Secret) == 0 && len(v.PublicKey) == 0 && v.JWKSURL == "" {
			l.fail(pre+"and no JWT_SECRET, JWT_PUBLIC_KEY nor JWT_JWKS_URL. auto verifies with whichever of them is set", v.Algorithm)
		}
	}
}

// checkJWKS says what is wrong with a JWT_JWKS_URL: an http(s) URL with a
// host, a file:// URL or a path of a file that exists.
func checkJWKS(s string) string {
	path, file := jwtauth.IsJWKSFile(s)
	if !file {
		if u, err := url.Parse(s); err != nil || u.Host == "" {
			return "is not an http(s) URL with a host. It is where the JWK Set of the token keys is fetched, or a file:// URL or path of a JWKS file"
		}
		return ""
	}
	if st, err := os.Stat(path); err != nil || st.IsDir() {
		return "names no readable file. It is the JWK Set of the token keys: an http(s) URL, a file:// URL or a file path"
	}
	return ""
}
