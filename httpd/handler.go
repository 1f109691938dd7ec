package httpd

import (
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/queen-mq/queen-go/httpd/dashboard"
	"github.com/queen-mq/queen-go/httpd/wire"
)

// DefaultMaxBodyBytes is Options.MaxBodyBytes when it is 0
// (QUEEN_MAX_BODY_BYTES' default).
const DefaultMaxBodyBytes = 64 << 20

// Options configure New. The zero value works.
type Options struct {
	// MaxBodyBytes caps a request body: past it, 413 payload_too_large.
	// 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// TenancyHeader takes the tenant from the x-queen-tenant header
	// (QUEEN_TENANCY_HEADER); off, every request is DefaultTenant's.
	TenancyHeader bool
	// Logger gets one line per 5xx answer. nil: slog.Default().
	Logger *slog.Logger
	// Registry gets the HTTP series and is what /metrics/prometheus
	// serves. nil: a registry of New's own.
	Registry *prometheus.Registry
	// Version is the broker's version, shown by /health.
	Version string
	// TimerHorizon is the longest delay of a timer
	// (QUEEN_TIMERS_MAX_HORIZON_S): past it, 403. 0 means
	// DefaultTimerHorizon.
	TimerHorizon time.Duration
	// DefaultSubscriptionMode is the subscription of a pop that names
	// none (DEFAULT_SUBSCRIPTION_MODE): SubscriptionNew ("" too) or
	// SubscriptionAll.
	DefaultSubscriptionMode string
	// Sampler keeps the history the analytics routes answer as time
	// series; it should read Registry. nil: no history, only the
	// metrics read at each request.
	Sampler *Sampler
	// ControlPlane serves /api/cp/* when CPToken is set too
	// (QUEEN_PROXY_CP_TOKEN); otherwise those paths are 404
	// no_such_route.
	ControlPlane ControlPlane
	CPToken      string
	// Authenticators guard every route (auth.go): each request's
	// credential is checked against its route's access class before the
	// route reads anything of the request; the first authenticator that
	// recognises the credential decides. Missing or bad: 401
	// unauthorized; too low: 403 forbidden. Empty: no auth, every route
	// open (the default, as JWT_ENABLED=false).
	Authenticators []Authenticator
	// SkipPaths are request paths served without a credential while
	// Authenticators guard the rest (JWT_SKIP_PATHS): an entry ending in
	// "/" is a prefix, except "/" alone, which is the root path only; any
	// other entry is one exact path. When "/" (the dashboard's page) is
	// one, the dashboard's assets under /dashboard/ are skipped too: the
	// page cannot load without them, and they carry no data.
	SkipPaths []string
}

// server is the state the routes share.
type server struct {
	b Broker
	// The parts of b (Parts), nil when it lacks one (their routes are not
	// registered then): c Consumer, t Transactor, a Admin, kc KVConsole,
	// l Locker, tm Timerer, st Statuser, e Ephemeral, tr Tracer,
	// sm Streamer, cl Cluster.
	c  Consumer
	t  Transactor
	a  Admin
	kc KVConsole
	l  Locker
	tm Timerer
	st Statuser
	e  Ephemeral
	tr Tracer
	sm Streamer
	cl Cluster
	// m are the HTTP and message series; gather reads them back, with
	// the rest of Options.Registry; samples keeps their history (nil:
	// none).
	m       *metrics
	gather  prometheus.Gatherer
	samples *Sampler
	maxBody int64
	// wire decodes the binary bodies, within maxBody once decompressed.
	wire    *wire.Decoder
	horizon time.Duration
	subMode string
	version string
	log     *slog.Logger
}

// New returns the HTTP API of API.md served over b, with the routes of
// the parts b has (a test's fake may have few; the broker binary calls
// NewFull). It panics when b is nil (a programmer's mistake at setup).
func New(b Broker, o Options) http.Handler {
	if b == nil {
		panic("httpd: New: nil Broker")
	}
	h, _ := build(b, partsOf(b), o)
	return h
}

// build is New over b and its parts p, with the route table:
// "METHOD /pattern" → access class.
func build(b Broker, p Parts, o Options) (*chi.Mux, map[string]Class) {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Registry == nil {
		o.Registry = prometheus.NewRegistry()
	}
	s := &server{b: b, maxBody: o.MaxBodyBytes, horizon: o.TimerHorizon, subMode: o.DefaultSubscriptionMode, version: o.Version, log: o.Logger,
		m: newMetrics(o.Registry), gather: o.Registry, samples: o.Sampler, wire: wire.NewDecoder(int(min(o.MaxBodyBytes, 1<<40))),
		c: p.Consumer, t: p.Transactor, a: p.Admin, kc: p.KVConsole, l: p.Locker, tm: p.Timerer, st: p.Statuser, e: p.Ephemeral,
		tr: p.Tracer, sm: p.Streamer, cl: p.Cluster}

	r := chi.NewRouter()
	r.Use(observe(s.m, o.Logger), middleware.GetHead)
	r.NotFound(noRoute)
	r.MethodNotAllowed(noRoute)
	classes := map[string]Class{}
	auth := o.Authenticators
	if len(auth) > 0 && o.ControlPlane != nil && o.CPToken != "" {
		// The operator's credential for the node-wide reports.
		auth = append(slices.Clone(auth), newCPTokenAuth(o.CPToken))
	}
	s.register(&routes{r: r, g: &gate{auth: auth, skip: newSkipPaths(withDashboard(o.SkipPaths))}, classes: classes}, o)
	return r, classes
}

// withDashboard is skip with the dashboard's assets' prefix added when
// it skips the dashboard's page, "/".
func withDashboard(skip []string) []string {
	if slices.Contains(skip, "/") && !slices.Contains(skip, dashboard.Prefix) {
		return append(slices.Clone(skip), dashboard.Prefix)
	}
	return skip
}

// register puts every route in the table, with its access class (the
// classes' doc says which routes each holds).
func (s *server) register(rt *routes, o Options) {
	rt.add(ClassPublic, http.MethodGet, "/health", s.health())
	rt.add(ClassNode, http.MethodGet, "/status", s.status())
	rt.add(ClassPublic, http.MethodGet, "/metrics/prometheus", metricsHandler(o.Registry))
	rt.add(ClassPublic, http.MethodGet, "/metrics", metricsJSON(s.gather))
	// The dashboard's shell and assets carry no data: its scripts read
	// everything from the API with the person's token (package dashboard).
	rt.add(ClassPublic, http.MethodGet, "/", dashboard.Index())
	rt.add(ClassPublic, http.MethodGet, dashboard.Prefix+"*", dashboard.Assets())

	if o.ControlPlane != nil && o.CPToken != "" {
		rt.r.Route("/api/cp", func(r chi.Router) {
			r.Use(cpGuard(o.CPToken))
			s.cpRoutes(rt.sub(r, "/api/cp", nil), o.ControlPlane)
		})
	}
	rt.r.Route("/api/v1", func(r chi.Router) {
		keysOnly := o.ControlPlane != nil && o.CPToken != "" && len(o.Authenticators) > 0
		api := rt.sub(r, "/api/v1", tenancy(o.TenancyHeader, keysOnly))
		for _, a := range s.apiRoutes() {
			if a.on {
				api.add(a.class, a.method, a.pattern, a.h)
			}
		}
	})
	if s.sm != nil {
		rt.r.Route("/streams/v1", func(r chi.Router) {
			keysOnly := o.ControlPlane != nil && o.CPToken != "" && len(o.Authenticators) > 0
			s.streamRoutes(rt.sub(r, "/streams/v1", tenancy(o.TenancyHeader, keysOnly)))
		})
	}
}

// handle adapts a route's function, which answers or returns the error to
// answer, to an http.Handler.
type handle func(w http.ResponseWriter, r *http.Request) error

func (h handle) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h(w, r); err != nil {
		writeError(w, r, err)
	}
}

// body reads and checks the request's JSON body.
func (s *server) body(r *http.Request) ([]byte, error) {
	b, err := readBody(r, s.maxBody)
	if err != nil {
		return nil, err
	}
	if err := parseJSON(b); err != nil {
		return nil, err
	}
	return b, nil
}
