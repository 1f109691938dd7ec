package jwtauth

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"

	"github.com/queen-mq/queen-go/httpd"
)

// MaxSubjectBytes bounds a token's sub: every record a push writes keeps
// it, so a token with a longer one is refused.
const MaxSubjectBytes = 512

// Config configures a Verifier. queen/config reads it from JWT_*.
type Config struct {
	// Algorithm is HS256 ("" too), RS256, ES256, EdDSA or Auto.
	Algorithm string
	// Secret is HS256's key (JWT_SECRET).
	Secret []byte
	// PublicKey is a PEM public key (JWT_PUBLIC_KEY, ParsePublicKey).
	PublicKey []byte
	// JWKSURL is a JWK Set's http(s) URL, a file:// URL or a file path
	// (JWT_JWKS_URL), read again every JWKSRefresh (0: never) and when a
	// token names a kid it lacks (at most every 30 s); a fetch takes at
	// most JWKSTimeout.
	JWKSURL     string
	JWKSRefresh time.Duration
	JWKSTimeout time.Duration
	// Issuer and Audience, when not "", must be the token's iss and one
	// of its aud.
	Issuer, Audience string
	// Leeway is the clock skew allowed on exp, nbf and iat
	// (JWT_CLOCK_SKEW).
	Leeway time.Duration
	// RoleClaim names the claim of one role (JWT_ROLES_CLAIM, "role" when
	// ""), RolesClaim the array of roles (JWT_ROLES_ARRAY_CLAIM, "roles"
	// when ""). A name with dots walks nested objects
	// ("realm_access.roles") when no claim has the whole name.
	RoleClaim, RolesClaim string
	// Roles are the role names of the levels; a zero field is
	// DefaultRoles'.
	Roles Roles
	// HTTPClient fetches the JWKS (nil: http.DefaultClient).
	HTTPClient *http.Client
	// Logger gets a line per JWKS fetch or read that fails. nil:
	// slog.Default().
	Logger *slog.Logger
	// Now is the clock exp, nbf and iat are judged by (nil: time.Now).
	Now func() time.Time
}

// Verifier checks broker JWTs: the signature with the configured key
// material only, then exp, nbf and iat (with the leeway), iss and aud
// when configured, then the role. It is an httpd.Authenticator of
// "Authorization: Bearer <jwt>".
type Verifier struct {
	// methods are the algorithms a token may name; secret is HS256's
	// key, nil when HS256 is not one of them.
	methods []string
	secret  []byte
	// public is the configured public key (nil: none); jwks the JWK Set
	// (nil: none).
	public crypto.PublicKey
	jwks   keyfunc.Keyfunc
	parser *jwt.Parser
	role   string
	roles  string
	names  Roles
}

var _ httpd.Authenticator = (*Verifier)(nil)

// New checks c and makes its Verifier; a JWKS is read (a file) or its
// fetching started (a URL) until ctx ends. The error names what is
// missing or wrong.
func New(ctx context.Context, c Config) (*Verifier, error) {
	v := &Verifier{role: c.RoleClaim, roles: c.RolesClaim, names: c.Roles}
	if v.role == "" {
		v.role = "role"
	}
	if v.roles == "" {
		v.roles = "roles"
	}
	v.names = withDefaults(v.names)
	log := c.Logger
	if log == nil {
		log = slog.Default()
	}
	var pubAlg string
	if len(c.PublicKey) > 0 {
		k, alg, err := ParsePublicKey(c.PublicKey)
		if err != nil {
			return nil, fmt.Errorf("the public key: %w", err)
		}
		v.public, pubAlg = k, alg
	}
	alg := c.Algorithm
	if alg == "" {
		alg = HS256
	}
	switch alg {
	case HS256:
		if len(c.Secret) == 0 {
			return nil, errors.New("HS256 needs a secret")
		}
		v.methods, v.secret, v.public = []string{HS256}, c.Secret, nil
	case RS256, ES256, EdDSA:
		if v.public == nil && c.JWKSURL == "" {
			return nil, fmt.Errorf("%s needs a public key or a JWKS", alg)
		}
		if v.public != nil && pubAlg != alg {
			return nil, fmt.Errorf("the public key verifies %s, not %s", pubAlg, alg)
		}
		v.methods = []string{alg}
	case Auto:
		if len(c.Secret) > 0 {
			v.methods, v.secret = append(v.methods, HS256), c.Secret
		}
		if v.public != nil {
			v.methods = append(v.methods, pubAlg)
		}
		if c.JWKSURL != "" {
			v.methods = append(v.methods, RS256, ES256, EdDSA)
		}
		if len(v.methods) == 0 {
			return nil, errors.New("auto needs a secret, a public key or a JWKS")
		}
		slices.Sort(v.methods)
		v.methods = slices.Compact(v.methods)
	default:
		return nil, fmt.Errorf("unknown algorithm %q", alg)
	}
	if c.JWKSURL != "" && alg != HS256 {
		k, err := newJWKS(ctx, &c, log)
		if err != nil {
			return nil, err
		}
		v.jwks = k
	}
	opts := []jwt.ParserOption{jwt.WithLeeway(c.Leeway), jwt.WithIssuedAt()}
	if c.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(c.Issuer))
	}
	if c.Audience != "" {
		opts = append(opts, jwt.WithAudience(c.Audience))
	}
	if c.Now != nil {
		opts = append(opts, jwt.WithTimeFunc(c.Now))
	}
	v.parser = jwt.NewParser(opts...)
	return v, nil
}

func withDefaults(r Roles) Roles {
	d := DefaultRoles
	for _, f := range []struct{ dst, def *string }{{&r.Admin, &d.Admin}, {&r.ReadWrite, &d.ReadWrite},
		{&r.ReadOnly, &d.ReadOnly}, {&r.WriteOnly, &d.WriteOnly}} {
		if *f.dst == "" {
			*f.dst = *f.def
		}
	}
	return r
}

// Methods are the algorithms a token may be signed with.
func (v *Verifier) Methods() []string { return slices.Clone(v.methods) }

// Authenticate reads "Authorization: Bearer <jwt>" (the scheme in any
// case). No Authorization header, or another scheme, wraps
// httpd.ErrNoCredential; a Bearer header without a token, two headers,
// or a token that does not verify is an error saying which.
func (v *Verifier) Authenticate(r *http.Request) (httpd.Principal, error) {
	hs := r.Header.Values("Authorization")
	switch {
	case len(hs) == 0:
		return nil, fmt.Errorf("%w: the request has no Authorization header; send Authorization: Bearer <jwt>", httpd.ErrNoCredential)
	case len(hs) > 1:
		return nil, errors.New("the request has more than one Authorization header")
	}
	scheme, token, _ := strings.Cut(strings.TrimSpace(hs[0]), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return nil, fmt.Errorf("%w: the Authorization header is not of the Bearer scheme; send Authorization: Bearer <jwt>", httpd.ErrNoCredential)
	}
	if token = strings.TrimSpace(token); token == "" {
		return nil, errors.New("the Authorization header is Bearer with no token")
	}
	return v.Verify(r.Context(), token)
}

// Verify checks a token and answers its principal. Its errors say what
// was wrong, and never quote the token.
func (v *Verifier) Verify(ctx context.Context, token string) (Principal, error) {
	claims := jwt.MapClaims{}
	_, err := v.parser.ParseWithClaims(token, claims, v.keyfunc(ctx))
	if err != nil {
		return Principal{}, v.refusal(err, claims)
	}
	p := Principal{Levels: v.levels(claims)}
	switch sub := claims["sub"].(type) {
	case nil:
	case string:
		if len(sub) > MaxSubjectBytes {
			return Principal{}, fmt.Errorf("the token's sub is over %d bytes", MaxSubjectBytes)
		}
		p.Sub = sub
	default:
		return Principal{}, errors.New("the token's sub is not a string")
	}
	return p, nil
}

// keyfunc answers the keys a token's signature may be checked with: the
// secret for HS256 only, and for the others only public keys of the
// token's algorithm (the configured key, the JWKS's keys of the token's
// kid, or all of them when it names none). No key ever serves two
// algorithms, so a token signed with the public key as an HMAC secret,
// or naming another algorithm than its key's, never verifies.
func (v *Verifier) keyfunc(ctx context.Context) jwt.Keyfunc {
	return func(t *jwt.Token) (any, error) {
		alg := t.Method.Alg()
		if !slices.Contains(v.methods, alg) {
			return nil, &algError{alg: alg, want: v.methods}
		}
		if alg == HS256 {
			return v.secret, nil
		}
		var set jwt.VerificationKeySet
		if v.public != nil && keyAlgorithm(v.public) == alg {
			set.Keys = append(set.Keys, v.public)
		}
		if v.jwks != nil {
			got, err := v.jwks.KeyfuncCtx(ctx)(t)
			if err != nil && len(set.Keys) == 0 {
				return nil, errNoKey
			}
			var keys []jwt.VerificationKey
			switch g := got.(type) {
			case jwt.VerificationKeySet:
				keys = g.Keys
			case nil:
			default:
				keys = []jwt.VerificationKey{g}
			}
			for _, k := range keys {
				if keyAlgorithm(k) == alg {
					set.Keys = append(set.Keys, k)
				}
			}
		}
		if len(set.Keys) == 0 {
			return nil, errNoKey
		}
		return set, nil
	}
}

var errNoKey = errors.New("no configured key verifies the token's algorithm and kid")

type algError struct {
	alg  string
	want []string
}

func (e *algError) Error() string {
	alg := "an unknown algorithm"
	if slices.Contains(Algorithms, e.alg) || strings.EqualFold(e.alg, "none") {
		alg = e.alg
	}
	return fmt.Sprintf("the token is signed with %s; this broker takes %s", alg, strings.Join(e.want, ", "))
}

// refusal is the message of a token that did not verify.
func (v *Verifier) refusal(err error, claims jwt.MapClaims) error {
	var ae *algError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.Is(err, errNoKey):
		return errNoKey
	case errors.Is(err, jwt.ErrTokenMalformed):
		return errors.New("the bearer token is not a well-formed JWT")
	case errors.Is(err, jwt.ErrTokenUnverifiable):
		// An alg jwt does not know (its keyfunc never ran).
		return errors.New("the token's algorithm is not one this broker knows")
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return errors.New("the token's signature does not verify with the configured key")
	case errors.Is(err, jwt.ErrTokenExpired):
		return fmt.Errorf("the token expired%s", at(claims, "exp"))
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return fmt.Errorf("the token is not valid yet%s", at(claims, "nbf"))
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return fmt.Errorf("the token is issued in the future%s", at(claims, "iat"))
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing) && claims["iss"] == nil:
		return errors.New("the token has no iss; this broker takes one issuer (JWT_ISSUER)")
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing) && claims["aud"] == nil:
		return errors.New("the token has no aud; this broker takes one audience (JWT_AUDIENCE)")
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return errors.New("the token's iss is not the issuer this broker takes (JWT_ISSUER)")
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return errors.New("the token's aud does not name the audience this broker takes (JWT_AUDIENCE)")
	case errors.Is(err, jwt.ErrInvalidType):
		return errors.New("a registered claim of the token has the wrong type")
	}
	return errors.New("the token does not verify")
}

// at renders a time claim for a refusal: " (exp 2026-…Z)", or "".
func at(claims jwt.MapClaims, name string) string {
	f, ok := claims[name].(float64)
	if !ok {
		return ""
	}
	return " (" + name + " " + time.Unix(int64(f), 0).UTC().Format(time.RFC3339) + ")"
}

// levels reads the role claim, else the roles array: the levels the
// token's roles name, the most privileged kept (admin makes every other
// level moot, read-write read-only and write-only).
func (v *Verifier) levels(claims jwt.MapClaims) []Level {
	if s, ok := claim(claims, v.role).(string); ok {
		if l, ok := v.names.level(s); ok {
			return []Level{l}
		}
	}
	list, _ := claim(claims, v.roles).([]any)
	var have [LevelAdmin + 1]bool
	for _, x := range list {
		if s, ok := x.(string); ok {
			if l, ok := v.names.level(s); ok {
				have[l] = true
			}
		}
	}
	switch {
	case have[LevelAdmin]:
		return []Level{LevelAdmin}
	case have[LevelReadWrite]:
		return []Level{LevelReadWrite}
	}
	var out []Level
	for _, l := range []Level{LevelReadOnly, LevelWriteOnly} {
		if have[l] {
			out = append(out, l)
		}
	}
	return out
}

// claim is the claim named name, or the nested one its dots name.
func claim(claims jwt.MapClaims, name string) any {
	if x, ok := claims[name]; ok || !strings.Contains(name, ".") {
		return x
	}
	var cur any = map[string]any(claims)
	for _, part := range strings.Split(name, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	return cur
}
