// Package jwtauth is the broker's JWT auth (API.md §0): an
// httpd.Authenticator of "Authorization: Bearer <jwt>" whose principal is
// the token's level and subject.
//
// # What it owns
//
// Verification with github.com/golang-jwt/jwt/v5, keys from a secret
// (HS256), a PEM public key (RS256, ES256, EdDSA) or a JWK Set
// (github.com/MicahParks/keyfunc/v3 over an http(s) URL; a file read
// into memory the same way), the claims' checks, the roles and what each
// level reaches (Level.Allows over httpd's access classes).
//
// # Invariants
//
//   - A token verifies only with key material configured for its
//     algorithm: the keyfunc answers the secret for HS256 alone, and only
//     public keys of the token's algorithm for the others, so an HMAC
//     token whose secret is the public key's PEM, an alg none token, or a
//     token naming another algorithm than its key never verifies (the
//     algorithm is checked before any key is looked at). A JWK Set's
//     symmetric keys are never used. FuzzVerify holds every accepted
//     token to an HMAC checked by hand.
//   - exp, nbf and iat are checked with Config.Leeway (iat in the future
//     is refused); iss and aud only when configured, and then required.
//     A token without exp is accepted (the issuer chose so).
//   - A refusal's message says what was wrong (expired at, not yet
//     valid, the signature, the algorithm, iss, aud, the sub) and never
//     quotes the token, its kid or its claims other than the time ones.
//   - The role claim (a string) names one level; when it is absent or
//     names none, the roles array names levels: admin or read-write when
//     one is there, else read-only and write-only, each as it is listed.
//     A token of no known role is level public: it reaches the public
//     routes only. Role names match exactly (case counts).
//   - sub, when present, is a string of at most MaxSubjectBytes (512):
//     a push stamps it on every record it writes.
//
// # Decisions the contract left open
//
//   - ES256 beside RS256 and EdDSA (the issue names it); RSA keys of
//     fewer than 2048 bits, and EC curves other than P-256, are refused
//     at setup. Auto takes HS256 when a secret is set, the public key's
//     own algorithm, and RS256, ES256 and EdDSA from a JWKS.
//   - A JWKS is fetched (or read) at start, every refresh interval, and
//     when a token names a kid it lacks, at most every 30 s; a request
//     never waits for that limit. A first fetch that fails is logged and
//     tried again; a JWKS file that cannot be read at start is an error.
//     A token without kid is tried against every key of its algorithm.
//   - The public key and a JWKS may be configured together: a token is
//     tried against both.
//   - Auth errors are 401 unauthorized (with WWW-Authenticate: Bearer)
//     and 403 forbidden: httpd's gate answers them.
//
// # Usage
//
//	v, err := jwtauth.New(ctx, jwtauth.Config{Secret: secret, Leeway: 30 * time.Second})
//	h := httpd.New(broker, httpd.Options{Authenticators: []httpd.Authenticator{v},
//		SkipPaths: []string{"/health", "/metrics/prometheus", "/metrics", "/"}})
package jwtauth
