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
		api.add(ClassPush, http.MethodPost, "/push", s.push())
		api.add(ClassRead, http.MethodPost, "/fetch", s.fetch())
		api.add(ClassRead, http.MethodPost, "/fetch/offsets", s.fetchOffsets())
		api.add(ClassRead, http.MethodPost, "/partitions/changed", s.partitionsChanged())
		api.add(ClassConfigure, http.MethodPost, "/configure", s.configure())
		api.add(ClassShared, http.MethodPost, "/kv", s.kvCall())
		api.add(ClassSharedRead, http.MethodGet, "/kv/{ns}/*", s.kvGet())
		api.add(ClassShared, http.MethodPut, "/kv/{ns}/*", s.kvPut())
		api.add(ClassShared, http.MethodDelete, "/kv/{ns}/*", s.kvDelete())
		api.add(ClassRead, http.MethodGet, "/resources/queues", s.queues())
		api.add(ClassRead, http.MethodGet, "/resources/queues/{queue}", s.queue())
		api.add(ClassRead, http.MethodPost, "/stats/refresh", statsRefresh())
		api.add(ClassNode, http.MethodGet, "/analytics/system-metrics", s.systemMetrics())
		api.add(ClassNode, http.MethodGet, "/analytics/worker-metrics", s.workerMetrics())
		if s.st != nil {
			s.statusRoutes(api)
		}
		if s.c != nil {
			s.consumeRoutes(api)
		}
		if s.t != nil {
			api.add(ClassTxn, http.MethodPost, "/transaction", s.transaction())
		}
		if s.a != nil {
			s.adminRoutes(api)
		}
		if s.l != nil {
			api.add(ClassShared, http.MethodPost, "/locks", s.locks())
		}
		if s.tm != nil {
			s.timerRoutes(api)
		}
		if s.tr != nil {
			s.traceRoutes(api)
		}
		if s.kc != nil {
			api.add(ClassSharedRead, http.MethodGet, "/resources/kv/namespaces", s.kvNamespaces())
			api.add(ClassSharedRead, http.MethodPost, "/resources/kv/list", s.kvList())
		}
		if s.e != nil {
			s.ephemeralRoutes(api)
		}
		if s.cl != nil {
			s.clusterRoutes(api)
		}
	})
	if s.sm != nil {
		rt.r.Route("/streams/v1", func(r chi.Router) {
			keysOnly := o.ControlPlane != nil && o.CPToken != "" && len(o.Authenticators) > 0
			s.streamRoutes(rt.sub(r, "/streams/v1", tenancy(o.TenancyHeader, keysOnly)))
		})
	}
}

// consumeRoutes registers the routes of Consumer (API.md §2). A pop
// leases messages, so it is not a safe method: HEAD on a pop route is 404
// no_such_route rather than a GET whose messages nobody would see.
func (s *server) consumeRoutes(rt *routes) {
	pops := []struct {
		pattern string
		h       http.Handler
	}{
		{"/pop", s.popDiscover()},
		{"/pop/queue/{queue}", s.pop(false)},
		{"/pop/queue/{queue}/partition/{partition}", s.pop(true)},
	}
	for _, p := range pops {
		rt.add(ClassConsume, http.MethodGet, p.pattern, p.h)
		rt.add(ClassConsume, http.MethodHead, p.pattern, http.HandlerFunc(noRoute))
	}
	rt.add(ClassConsume, http.MethodPost, "/ack", s.ack())
	rt.add(ClassConsume, http.MethodPost, "/ack/batch", s.ackBatch())
	rt.add(ClassConsume, http.MethodPost, "/lease/{leaseId}/extend", s.extendLease())
}

// adminRoutes registers the routes of Admin (API.md §8): the reads are
// ClassRead, every change ClassAdmin. chi tries a static segment before a parameter,
// whatever the order of registration,
// so GET /consumer-groups/lagging is always the lagging list (a group
// named "lagging" cannot be described, only deleted and sought); it is
// registered first all the same, to read in the order it matches.
func (s *server) adminRoutes(rt *routes) {
	rt.add(ClassRead, http.MethodGet, "/consumer-groups/lagging", s.laggingGroups())
	rt.add(ClassRead, http.MethodGet, "/consumer-groups", s.consumerGroups())
	rt.add(ClassRead, http.MethodGet, "/consumer-groups/{group}", s.consumerGroup())
	rt.add(ClassAdmin, http.MethodDelete, "/consumer-groups/{group}", s.deleteGroup(false))
	rt.add(ClassAdmin, http.MethodDelete, "/consumer-groups/{group}/queues/{queue}", s.deleteGroup(true))
	rt.add(ClassAdmin, http.MethodPost, "/consumer-groups/{group}/subscription", s.setSubscription())
	rt.add(ClassAdmin, http.MethodDelete, "/resources/queues/{queue}", s.deleteQueue())
	rt.add(ClassAdmin, http.MethodPost, "/consumer-groups/{group}/queues/{queue}/seek", s.seekGroup(false))
	rt.add(ClassAdmin, http.MethodPost, "/consumer-groups/{group}/queues/{queue}/partitions/{partition}/seek", s.seekGroup(true))
	rt.add(ClassRead, http.MethodGet, "/dlq", s.dlq())
	rt.add(ClassAdmin, http.MethodDelete, "/dlq", s.purgeDLQ())
	rt.add(ClassAdmin, http.MethodPost, "/dlq/{id}/replay", s.replayDLQ())
	rt.add(ClassRead, http.MethodGet, "/messages", s.messages())
	rt.add(ClassRead, http.MethodGet, "/messages/{partitionId}/*", s.message())
	rt.add(ClassAdmin, http.MethodPost, "/messages/{partitionId}/*", s.retryMessage())
	rt.add(ClassAdmin, http.MethodDelete, "/messages/{partitionId}/*", s.deleteMessage())
}

// statusRoutes registers the routes of Statuser (API.md §8, §9), all
// ClassRead. /resources/queues/{queue}/depth lives beside
// resources/queues/{queue}, which Broker serves.
func (s *server) statusRoutes(rt *routes) {
	rt.add(ClassRead, http.MethodGet, "/status", s.apiStatus())
	rt.add(ClassRead, http.MethodGet, "/status/queues", s.statusQueues())
	rt.add(ClassRead, http.MethodGet, "/status/queues/{queue}", s.statusQueue())
	rt.add(ClassRead, http.MethodGet, "/status/analytics", s.analytics())
	rt.add(ClassRead, http.MethodGet, "/resources/overview", s.overview())
	rt.add(ClassRead, http.MethodGet, "/resources/namespaces", s.namespaces())
	rt.add(ClassRead, http.MethodGet, "/resources/tasks", s.tasks())
	rt.add(ClassRead, http.MethodGet, "/resources/partitions", s.partitions())
	rt.add(ClassRead, http.MethodGet, "/resources/queues/{queue}/depth", s.depth())
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
