package httpd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"

	"github.com/go-chi/chi/v5"
)

// Class is the access class of a route: what a credential must allow to
// reach it. Every route has one (the route table, routes.go); the
// credentials (a broker JWT's level, a proxy key's scopes) each map their
// grants onto classes, so that several kinds of credential guard one
// route table.
type Class uint8

// The access classes.
const (
	// ClassPublic: health and metrics. Any valid credential reaches
	// them, and a skip path needs none.
	ClassPublic Class = iota + 1
	// ClassRead: reads of queues, records and state (GET reads, fetch,
	// fetch/offsets, partitions/changed, status, groups, DLQ and message
	// listings, traces).
	ClassRead
	// ClassPush: push, ephemeral push.
	ClassPush
	// ClassTimers: POST /api/v1/timers.
	ClassTimers
	// ClassTxn: POST /api/v1/transaction.
	ClassTxn
	// ClassConsume: pop, ack, lease extension, ephemeral pop and ack,
	// trace events a consumer records.
	ClassConsume
	// ClassShared: KV calls and writes, locks, a timer's DELETE.
	ClassShared
	// ClassSharedRead: reads of the shared state (GET of a KV key, the KV
	// console's reads, a timer's peek and list). API.md makes them
	// read-only for a JWT, while a proxy key needs produce or consume for
	// them as for ClassShared.
	ClassSharedRead
	// ClassAdmin: every delete of a queue, group, message or
	// dead letter, seeks, subscription changes, DLQ replay and purge,
	// message retry, ephemeral configure and reset.
	ClassAdmin
	// ClassConfigure: POST /api/v1/configure. API.md makes it read-write
	// for a JWT, §10 admin for a proxy key.
	ClassConfigure
	// ClassNode: the node-wide reports, every tenant's at once (GET
	// /status with its s3 block, /analytics/system-metrics and
	// worker-metrics). A JWT that reads reaches them, and the control
	// plane's token; a tenant's API key never does.
	ClassNode
	// ClassCluster: the changes of the raft membership (POST
	// /api/v1/raft/members/replace). An admin JWT and the control plane's
	// token reach them; no tenant's credential does, whatever its scopes:
	// a tenant's API key of scope admin is its cluster's admin, not the
	// broker's.
	ClassCluster
	// ClassControlPlane: the control plane's routes under /api/cp/,
	// guarded by x-queen-cp-token (cpGuard) and by no credential of the
	// chain: a JWT or an API key never reaches them.
	ClassControlPlane
)

// Classes lists every class, in the order of the constants.
var Classes = []Class{ClassPublic, ClassRead, ClassPush, ClassTimers, ClassTxn, ClassConsume, ClassShared, ClassSharedRead, ClassAdmin,
	ClassConfigure, ClassNode, ClassCluster, ClassControlPlane}

var classNames = map[Class]string{ClassPublic: "public", ClassRead: "read", ClassPush: "push", ClassTimers: "timers",
	ClassTxn: "transaction", ClassConsume: "consume", ClassShared: "shared", ClassSharedRead: "shared-read", ClassAdmin: "admin",
	ClassConfigure: "configure", ClassNode: "node", ClassCluster: "cluster", ClassControlPlane: "control-plane"}

func (c Class) String() string {
	if n, ok := classNames[c]; ok {
		return n
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// Principal is who a request's credential says it comes from.
type Principal interface {
	// Allows says whether the credential reaches routes of class c.
	Allows(c Class) bool
	// Subject is the credential's subject (a JWT's sub), "" when it has
	// none. A push stamps it on its records as their producerSub.
	Subject() string
	// Tenant is the tenant the credential is bound to, "" when none (a
	// broker JWT has none; a control-plane API key is its cluster's):
	// when set it is the request's tenant, whatever x-queen-tenant says.
	Tenant() string
	// String names the credential and its grants for an error message
	// ("a JWT of level read-only"); never its secret.
	String() string
}

// Refuser is a Principal that may refuse a route of its class with an
// answer of its own (a suspended cluster's key: 403 cluster_suspended);
// the gate asks it before Allows.
type Refuser interface {
	Refuse(c Class) error
}

// Authenticator recognises one kind of credential. Authenticate answers
// the request's principal; an error wrapping ErrNoCredential when the
// request carries no credential of its kind (the next authenticator of
// the chain is asked; its message says what it looked for); any other
// error refuses the request with 401, its message saying what was wrong
// (never quoting the credential). It must not read the body, and is
// called from many goroutines at once.
type Authenticator interface {
	Authenticate(r *http.Request) (Principal, error)
}

// ErrNoCredential is what an Authenticator wraps when a request carries
// no credential it recognises.
var ErrNoCredential = errors.New("no credential")

// The codes of the auth refusals.
const (
	CodeUnauthorized = "unauthorized" // 401: no credential, or one that does not verify
	CodeForbidden    = "forbidden"    // 403: a credential whose grants do not reach the route
)

type principalKey struct{}

// PrincipalOf is the principal the gate found for r, nil when auth is off
// or r came through a skip path.
func PrincipalOf(r *http.Request) Principal {
	p, _ := r.Context().Value(principalKey{}).(Principal)
	return p
}

// producerSub is the subject a push stamps on its records: the
// principal's, "" without one (auth off, or a skip path).
func producerSub(r *http.Request) string {
	if p := PrincipalOf(r); p != nil {
		return p.Subject()
	}
	return ""
}

// gate checks each request's credential against its route's class,
// before the route reads anything of the request.
type gate struct {
	auth []Authenticator
	skip skipPaths
}

// guard wraps h, the handler of a route of class c. With no
// authenticator it is h.
func (g *gate) guard(c Class, h http.Handler) http.Handler {
	if len(g.auth) == 0 || c == ClassControlPlane {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (r.Method == http.MethodGet || r.Method == http.MethodHead) && g.skip.match(r.URL.Path) {
			h.ServeHTTP(w, r)
			return
		}
		p, err := g.authenticate(r)
		var e *Error
		switch {
		case errors.As(err, &e) && e.Status != 0 && e.Status != http.StatusUnauthorized:
			writeError(w, r, e) // the authenticator could not decide: a 503, say
			return
		case err != nil:
			w.Header().Set("WWW-Authenticate", `Bearer realm="queen"`)
			writeError(w, r, &Error{Status: http.StatusUnauthorized, Code: CodeUnauthorized, Message: err.Error()})
			return
		}
		if err := admit(p, c, fmt.Sprintf("%s %s, a route of class %s", r.Method, routePattern(r), c)); err != nil {
			writeError(w, r, err)
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	})
}

// admit says whether principal p reaches what (described for the
// refusal), of class c: a Refuser's own answer first, then Allows, else
// 403 forbidden naming p and what.
func admit(p Principal, c Class, what string) error {
	if rf, ok := p.(Refuser); ok {
		if err := rf.Refuse(c); err != nil {
			return err
		}
	}
	if !p.Allows(c) {
		return &Error{Status: http.StatusForbidden, Code: CodeForbidden, Message: fmt.Sprintf("%s does not reach %s", p, what)}
	}
	return nil
}

// authenticate asks each authenticator in turn; the first that
// recognises the credential decides. When none does, the first one's
// message says what was missing.
func (g *gate) authenticate(r *http.Request) (Principal, error) {
	var first error
	for _, a := range g.auth {
		p, err := a.Authenticate(r)
		switch {
		case err == nil && p != nil:
			return p, nil
		case err == nil:
			return nil, errors.New("the credential names no principal")
		case !errors.Is(err, ErrNoCredential):
			return nil, err
		case first == nil:
			first = err
		}
	}
	return nil, first
}

// skipPaths are the paths served without a credential
// (Options.SkipPaths).
type skipPaths struct {
	exact    map[string]bool
	prefixes []string
}

// newSkipPaths reads Options.SkipPaths: an entry ending in "/" is a
// prefix, except "/" alone, which is the root path only (as a prefix it
// would skip every path); any other entry is one exact path.
func newSkipPaths(list []string) skipPaths {
	s := skipPaths{exact: map[string]bool{}}
	for _, p := range list {
		switch {
		case p == "":
		case p == "/" || !strings.HasSuffix(p, "/"):
			s.exact[p] = true
		default:
			s.prefixes = append(s.prefixes, p)
		}
	}
	return s
}

// match says whether p is skipped. A path with dot segments or doubled
// slashes is never skipped: it is not the path a skip entry names.
func (s skipPaths) match(p string) bool {
	if c := path.Clean(p); p == "" || c != p && c+"/" != p {
		return false
	}
	if s.exact[p] {
		return true
	}
	for _, pre := range s.prefixes {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}

// routePattern is the pattern of the route that matched r.
func routePattern(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
		return rc.RoutePattern()
	}
	return "this route"
}
