package httpd

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"

	"github.com/go-chi/chi/v5"
)

// CPTokenHeader carries the control plane's token (QUEEN_PROXY_CP_TOKEN).
const CPTokenHeader = "x-queen-cp-token"

// CPMaxBodyBytes caps a control-plane body (API.md §10): past it, 413.
const CPMaxBodyBytes = 1 << 20

// cpSlug is a slug: a DNS label of at most 63 characters.
var cpSlug = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// cpGuard refuses a request whose x-queen-cp-token is not token with 401,
// before anything reads its body. The two are compared as sha256 digests
// in constant time, so neither the token's bytes nor its length show in
// how long a refusal takes.
func cpGuard(token string) func(http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got := sha256.Sum256([]byte(r.Header.Get(CPTokenHeader)))
			if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
				writeError(w, r, cpUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// cpTokenAuth is the control plane's token as a data-plane credential
// (an Authenticator): the operator's, it reaches the node-wide reports
// (ClassNode), the membership changes (ClassCluster) and the public
// routes, nothing of any tenant's.
type cpTokenAuth struct{ want [sha256.Size]byte }

func newCPTokenAuth(token string) cpTokenAuth { return cpTokenAuth{want: sha256.Sum256([]byte(token))} }

func (a cpTokenAuth) Authenticate(r *http.Request) (Principal, error) {
	if len(r.Header.Values(CPTokenHeader)) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNoCredential, CPTokenHeader)
	}
	got := sha256.Sum256([]byte(r.Header.Get(CPTokenHeader)))
	if subtle.ConstantTimeCompare(got[:], a.want[:]) != 1 {
		return nil, errors.New(CPTokenHeader + " is wrong")
	}
	return operator{}, nil
}

// operator is the principal of the control plane's token.
type operator struct{}

func (operator) Allows(c Class) bool { return c == ClassPublic || c == ClassNode || c == ClassCluster }
func (operator) Subject() string     { return "" }
func (operator) Tenant() string      { return "" }
func (operator) String() string      { return "the control plane's token" }

// cpRoutes registers the control plane under /api/cp (API.md §10), all
// of ClassControlPlane: cpGuard, not the credential chain, guards them.
func (s *server) cpRoutes(r *routes, cp ControlPlane) {
	r.add(ClassControlPlane, http.MethodPost, "/tenants", cpHandler(func(r *http.Request, body object) (any, error) {
		var t CPTenantSpec
		var err error
		if t.Slug, err = cpSlugField(body, "slug"); err != nil {
			return nil, err
		}
		if t.Name, _, err = body.str("name", "name"); err != nil {
			return nil, err
		}
		return cp.CreateTenant(r.Context(), t)
	}, "slug", "name"))
	r.add(ClassControlPlane, http.MethodGet, "/tenants", cpRead(func(r *http.Request) (any, error) {
		ts, err := cp.Tenants(r.Context())
		return map[string]any{"tenants": orEmpty(ts)}, err
	}))
	r.add(ClassControlPlane, http.MethodGet, "/tenants/{slug}", cpSlugRead(func(r *http.Request, slug string) (any, error) {
		return cp.Tenant(r.Context(), slug)
	}))
	r.add(ClassControlPlane, http.MethodGet, "/tenants/{slug}/status", cpSlugRead(func(r *http.Request, slug string) (any, error) {
		return cpTenantStatus(r, cp, slug)
	}))
	r.add(ClassControlPlane, http.MethodPut, "/tenants/{slug}/status", cpHandler(func(r *http.Request, body object) (any, error) {
		slug, status, err := cpStatusBody(r, body)
		if err != nil {
			return nil, err
		}
		if _, err := cp.SetTenantStatus(r.Context(), slug, status); err != nil {
			return nil, err
		}
		return cpTenantStatus(r, cp, slug)
	}, "status"))
	r.add(ClassControlPlane, http.MethodPost, "/tenants/{slug}/purge", cpSlugRead(func(r *http.Request, slug string) (any, error) {
		return cp.PurgeTenant(r.Context(), slug)
	}))
	r.add(ClassControlPlane, http.MethodDelete, "/tenants/{slug}", cpSlugRead(func(r *http.Request, slug string) (any, error) {
		return cp.DeleteTenant(r.Context(), slug)
	}))

	r.add(ClassControlPlane, http.MethodGet, "/clusters", cpList("clusters", "tenant", cp.Clusters))
	r.add(ClassControlPlane, http.MethodPut, "/clusters/{slug}", cpHandler(func(r *http.Request, body object) (any, error) {
		slug, err := cpSlugParam(r)
		if err != nil {
			return nil, err
		}
		var c CPClusterSpec
		if c.Tenant, err = cpSlugField(body, "tenant"); err != nil {
			return nil, err
		}
		if c.BrokerTenant, _, err = body.str("brokerTenant", "brokerTenant"); err != nil {
			return nil, err
		}
		return cp.EnsureCluster(r.Context(), slug, c)
	}, "tenant", "brokerTenant"))
	r.add(ClassControlPlane, http.MethodGet, "/clusters/{slug}", cpSlugRead(func(r *http.Request, slug string) (any, error) {
		return cp.Cluster(r.Context(), slug)
	}))
	r.add(ClassControlPlane, http.MethodGet, "/clusters/{slug}/status", cpSlugRead(func(r *http.Request, slug string) (any, error) {
		return cp.Cluster(r.Context(), slug)
	}))
	r.add(ClassControlPlane, http.MethodPut, "/clusters/{slug}/status", cpHandler(func(r *http.Request, body object) (any, error) {
		slug, status, err := cpStatusBody(r, body)
		if err != nil {
			return nil, err
		}
		return cp.SetClusterStatus(r.Context(), slug, status)
	}, "status"))
	r.add(ClassControlPlane, http.MethodDelete, "/clusters/{slug}", cpSlugRead(func(r *http.Request, slug string) (any, error) {
		return cp.DeleteCluster(r.Context(), slug)
	}))

	r.add(ClassControlPlane, http.MethodPost, "/keys", cpHandler(func(r *http.Request, body object) (any, error) {
		k, err := cpKeyBody(body)
		if err != nil {
			return nil, err
		}
		return cp.RegisterKey(r.Context(), k)
	}, "cluster", "scopes", "env", "hash"))
	r.add(ClassControlPlane, http.MethodGet, "/keys", cpList("keys", "cluster", cp.Keys))
	r.add(ClassControlPlane, http.MethodDelete, "/keys/{id}", cpRead(func(r *http.Request) (any, error) {
		id := chi.URLParam(r, "id")
		removed, err := cp.RevokeKey(r.Context(), id)
		return map[string]any{"id": id, "revoked": removed}, err
	}))

	r.add(ClassControlPlane, http.MethodPut, "/clusters/{slug}/s3", cpRaw(func(r *http.Request, body []byte) (any, error) {
		slug, err := cpSlugParam(r)
		if err != nil {
			return nil, err
		}
		return cp.PutSink(r.Context(), slug, body)
	}))
	r.add(ClassControlPlane, http.MethodGet, "/clusters/{slug}/s3", cpSlugRead(func(r *http.Request, slug string) (any, error) {
		return cp.Sink(r.Context(), slug)
	}))
	r.add(ClassControlPlane, http.MethodDelete, "/clusters/{slug}/s3", cpSlugRead(func(r *http.Request, slug string) (any, error) {
		removed, err := cp.DeleteSink(r.Context(), slug)
		return map[string]any{"cluster": slug, "removed": removed}, err
	}))
}

// cpRead serves a control-plane route that takes no body.
func cpRead(fn func(r *http.Request) (any, error)) http.Handler { return reply(http.StatusOK, fn) }

// cpList answers {key:[…]} of what list finds, filtered by the slug of
// the query parameter param (absent: all; not a slug: 400).
func cpList[T any](key, param string, list func(ctx context.Context, slug string) ([]T, error)) http.Handler {
	return cpRead(func(r *http.Request) (any, error) {
		slug := r.URL.Query().Get(param)
		if slug != "" && !cpSlug.MatchString(slug) {
			return nil, cpBadSlug(param, slug)
		}
		got, err := list(r.Context(), slug)
		return map[string]any{key: orEmpty(got)}, err
	})
}

// cpSlugRead is cpRead for a route of one {slug}, which must be a DNS
// label (cpSlugParam).
func cpSlugRead(fn func(r *http.Request, slug string) (any, error)) http.Handler {
	return cpRead(func(r *http.Request) (any, error) {
		slug, err := cpSlugParam(r)
		if err != nil {
			return nil, err
		}
		return fn(r, slug)
	})
}

// cpRaw serves a control-plane route whose body fn reads itself: at most
// CPMaxBodyBytes of JSON.
func cpRaw(fn func(r *http.Request, body []byte) (any, error)) http.Handler {
	return cpRead(func(r *http.Request) (any, error) {
		body, err := readBody(r, CPMaxBodyBytes)
		if err != nil {
			return nil, err
		}
		if err := parseJSON(body); err != nil {
			return nil, err
		}
		return fn(r, body)
	})
}

// cpHandler serves a control-plane route whose body is a JSON object of
// the fields named: any other field is 400 bad_request naming it.
func cpHandler(fn func(r *http.Request, body object) (any, error), fields ...string) http.Handler {
	return cpRaw(func(r *http.Request, raw []byte) (any, error) {
		body, err := asObject(raw, "the body")
		if err != nil {
			return nil, err
		}
		for k := range body {
			if !contains(fields, k) {
				return nil, badRequest("%s is not a field of this body: the fields are %v", k, fields)
			}
		}
		return fn(r, body)
	})
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// cpSlugParam is the route's {slug}, which must be a DNS label.
func cpSlugParam(r *http.Request) (string, error) {
	slug := chi.URLParam(r, "slug")
	if !cpSlug.MatchString(slug) {
		return "", cpBadSlug("the slug", slug)
	}
	return slug, nil
}

// cpSlugField is body's required slug field k.
func cpSlugField(body object, k string) (string, error) {
	slug, ok, err := body.str(k, k)
	switch {
	case err != nil:
		return "", err
	case !ok:
		return "", badRequest("%s is required", k)
	case !cpSlug.MatchString(slug):
		return "", cpBadSlug(k, slug)
	}
	return slug, nil
}

func cpBadSlug(what, slug string) *Error {
	return cpError(http.StatusBadRequest, CodeCPBadSlug, clipf("%s %q is not a slug: a DNS label of 1 to 63 characters a-z, 0-9 and -, "+
		"starting and ending with a letter or digit", what, slug))
}

// clipf formats as the error constructors do, each string argument
// clipped.
func clipf(format string, args ...any) string { return badRequest(format, args...).Message }

// cpStatusBody reads {slug} and the body's status.
func cpStatusBody(r *http.Request, body object) (slug, status string, err error) {
	if slug, err = cpSlugParam(r); err != nil {
		return "", "", err
	}
	status, _, err = body.str("status", "status")
	if err != nil {
		return "", "", err
	}
	switch status {
	case CPStatusActive, CPStatusPushBlocked, CPStatusSuspended:
		return slug, status, nil
	case CPStatusDeleting:
		return "", "", cpError(http.StatusBadRequest, CodeCPInvalidStatus, "status deleting is set by DELETE, not by a status change")
	}
	return "", "", cpError(http.StatusBadRequest, CodeCPInvalidStatus,
		clipf("status %q is not a status: it is active, push_blocked or suspended", status))
}

// cpTenantStatus is a tenant's status and its clusters' statuses.
func cpTenantStatus(r *http.Request, cp ControlPlane, slug string) (any, error) {
	t, err := cp.Tenant(r.Context(), slug)
	if err != nil {
		return nil, err
	}
	cs, err := cp.Clusters(r.Context(), slug)
	if err != nil {
		return nil, err
	}
	return map[string]any{"tenant": t.Slug, "status": t.Status, "clusters": orEmpty(cs)}, nil
}

// cpKeyBody reads POST /api/cp/keys.
func cpKeyBody(body object) (CPKeySpec, error) {
	var k CPKeySpec
	var err error
	if k.Cluster, err = cpSlugField(body, "cluster"); err != nil {
		return k, err
	}
	raw, ok := body["scopes"]
	if !ok || isNull(raw) {
		return k, badRequest("scopes is required: an array of produce, consume, admin and read")
	}
	items, err := asArray(raw, "scopes")
	if err != nil {
		return k, err
	}
	for i, item := range items {
		var s string
		if firstByte(item) != '"' || json.Unmarshal(item, &s) != nil {
			return k, badRequest("scopes[%d] must be a string", i)
		}
		switch s {
		case CPScopeProduce, CPScopeConsume, CPScopeAdmin, CPScopeRead:
		default:
			return k, cpError(http.StatusBadRequest, CodeCPScopeUnknown, clipf("scopes[%d] %q is not a scope: "+
				"they are produce, consume, admin and read", i, s))
		}
		if !contains(k.Scopes, s) {
			k.Scopes = append(k.Scopes, s)
		}
	}
	if len(k.Scopes) == 0 {
		return k, badRequest("scopes is empty: a key needs at least one of produce, consume, admin and read")
	}
	if k.Env, _, err = body.str("env", "env"); err != nil {
		return k, err
	}
	if k.Env != "" && !cpEnv.MatchString(k.Env) {
		return k, badRequest("env %q is not an environment label: 1 to 16 of a-z and 0-9", k.Env)
	}
	if k.Hash, _, err = body.str("hash", "hash"); err != nil {
		return k, err
	}
	if k.Hash != "" && !cpHash.MatchString(k.Hash) {
		return k, badRequest("hash is not a sha256: 64 lower-case hex digits")
	}
	return k, nil
}

var (
	cpEnv  = regexp.MustCompile(`^[a-z0-9]{1,16}$`)
	cpHash = regexp.MustCompile(`^[0-9a-f]{64}$`)
)
