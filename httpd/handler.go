package httpd

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"

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
}

// server is the state the routes share.
type server struct {
	b Broker
	// c is b as a Consumer, nil when it is not one (no pop, ack or lease
	// routes then).
	c Consumer
	// t is b as a Transactor, nil when it is not one (no transaction
	// route then).
	t Transactor
	// a is b as an Admin, nil when it is not one (no consumer-group, DLQ
	// or messages routes then).
	a Admin
	// kc is b as a KVConsole, nil when it is not one.
	kc KVConsole
	// l is b as a Locker, tm as a Timerer: nil when it is not one.
	l  Locker
	tm Timerer
	// st is b as a Statuser, nil when it is not one (no status and
	// resources routes then).
	st Statuser
	// m are the HTTP and message series; gather reads them back, with
	// the rest of Options.Registry; samples keeps their history (nil:
	// none).
	m       *metrics
	gather  prometheus.Gatherer
	samples *Sampler
	// e is b as an Ephemeral, nil when it is not one (no ephemeral routes
	// then).
	e Ephemeral
	// tr is b as a Tracer: nil when it is not one.
	tr      Tracer
	maxBody int64
	// wire decodes the binary bodies, within maxBody once decompressed.
	wire    *wire.Decoder
	horizon time.Duration
	subMode string
	version string
	log     *slog.Logger
}

// New returns the HTTP API of API.md served over b. It panics when b is
// nil (a programmer's mistake at setup).
func New(b Broker, o Options) http.Handler {
	if b == nil {
		panic("httpd: New: nil Broker")
	}
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
		m: newMetrics(o.Registry), gather: o.Registry, samples: o.Sampler, wire: wire.NewDecoder(int(min(o.MaxBodyBytes, 1<<40)))}
	if c, ok := b.(Consumer); ok {
		s.c = c
	}
	if t, ok := b.(Transactor); ok {
		s.t = t
	}
	if a, ok := b.(Admin); ok {
		s.a = a
	}
	if kc, ok := b.(KVConsole); ok {
		s.kc = kc
	}
	if l, ok := b.(Locker); ok {
		s.l = l
	}
	if tm, ok := b.(Timerer); ok {
		s.tm = tm
	}
	if st, ok := b.(Statuser); ok {
		s.st = st
	}
	if e, ok := b.(Ephemeral); ok {
		s.e = e
	}
	if tr, ok := b.(Tracer); ok {
		s.tr = tr
	}

	r := chi.NewRouter()
	r.Use(observe(s.m, o.Logger), middleware.GetHead)
	r.NotFound(noRoute)
	r.MethodNotAllowed(noRoute)

	r.Method(http.MethodGet, "/health", s.health())
	r.Method(http.MethodGet, "/status", s.status())
	r.Method(http.MethodGet, "/metrics/prometheus", metricsHandler(o.Registry))
	r.Method(http.MethodGet, "/metrics", metricsJSON(s.gather))

	if o.ControlPlane != nil && o.CPToken != "" {
		r.Route("/api/cp", func(r chi.Router) { s.cpRoutes(r, o.ControlPlane, o.CPToken) })
	}
	r.Route("/api/v1", func(r chi.Router) {
		r.Use(tenancy(o.TenancyHeader))
		r.Method(http.MethodPost, "/push", s.push())
		r.Method(http.MethodPost, "/fetch", s.fetch())
		r.Method(http.MethodPost, "/fetch/offsets", s.fetchOffsets())
		r.Method(http.MethodPost, "/partitions/changed", s.partitionsChanged())
		r.Method(http.MethodPost, "/configure", s.configure())
		r.Method(http.MethodPost, "/kv", s.kvCall())
		r.Method(http.MethodGet, "/kv/{ns}/*", s.kvGet())
		r.Method(http.MethodPut, "/kv/{ns}/*", s.kvPut())
		r.Method(http.MethodDelete, "/kv/{ns}/*", s.kvDelete())
		r.Method(http.MethodGet, "/resources/queues", s.queues())
		r.Method(http.MethodGet, "/resources/queues/{queue}", s.queue())
		r.Method(http.MethodPost, "/stats/refresh", statsRefresh())
		r.Method(http.MethodGet, "/analytics/system-metrics", s.systemMetrics())
		r.Method(http.MethodGet, "/analytics/worker-metrics", s.workerMetrics())
		if s.st != nil {
			s.statusRoutes(r)
		}
		if s.c != nil {
			s.consumeRoutes(r)
		}
		if s.t != nil {
			r.Method(http.MethodPost, "/transaction", s.transaction())
		}
		if s.a != nil {
			s.adminRoutes(r)
		}
		if s.l != nil {
			r.Method(http.MethodPost, "/locks", s.locks())
		}
		if s.tm != nil {
			s.timerRoutes(r)
		}
		if s.tr != nil {
			s.traceRoutes(r)
		}
		if s.kc != nil {
			r.Method(http.MethodGet, "/resources/kv/namespaces", s.kvNamespaces())
			r.Method(http.MethodPost, "/resources/kv/list", s.kvList())
		}
		if s.e != nil {
			s.ephemeralRoutes(r)
		}
	})
	return r
}

// consumeRoutes registers the routes of Consumer (API.md §2). A pop
// leases messages, so it is not a safe method: HEAD on a pop route is 404
// no_such_route rather than a GET whose messages nobody would see.
func (s *server) consumeRoutes(r chi.Router) {
	pops := []struct {
		pattern string
		h       http.Handler
	}{
		{"/pop", s.popDiscover()},
		{"/pop/queue/{queue}", s.pop(false)},
		{"/pop/queue/{queue}/partition/{partition}", s.pop(true)},
	}
	for _, p := range pops {
		r.Method(http.MethodGet, p.pattern, p.h)
		r.Method(http.MethodHead, p.pattern, http.HandlerFunc(noRoute))
	}
	r.Method(http.MethodPost, "/ack", s.ack())
	r.Method(http.MethodPost, "/ack/batch", s.ackBatch())
	r.Method(http.MethodPost, "/lease/{leaseId}/extend", s.extendLease())
}

// adminRoutes registers the routes of Admin (API.md §8). chi tries a
// static segment before a parameter, whatever the order of registration,
// so GET /consumer-groups/lagging is always the lagging list (a group
// named "lagging" cannot be described, only deleted and sought); it is
// registered first all the same, to read in the order it matches.
func (s *server) adminRoutes(r chi.Router) {
	r.Method(http.MethodGet, "/consumer-groups/lagging", s.laggingGroups())
	r.Method(http.MethodGet, "/consumer-groups", s.consumerGroups())
	r.Method(http.MethodGet, "/consumer-groups/{group}", s.consumerGroup())
	r.Method(http.MethodDelete, "/consumer-groups/{group}", s.deleteGroup(false))
	r.Method(http.MethodDelete, "/consumer-groups/{group}/queues/{queue}", s.deleteGroup(true))
	r.Method(http.MethodPost, "/consumer-groups/{group}/subscription", s.setSubscription())
	r.Method(http.MethodDelete, "/resources/queues/{queue}", s.deleteQueue())
	r.Method(http.MethodPost, "/consumer-groups/{group}/queues/{queue}/seek", s.seekGroup(false))
	r.Method(http.MethodPost, "/consumer-groups/{group}/queues/{queue}/partitions/{partition}/seek", s.seekGroup(true))
	r.Method(http.MethodGet, "/dlq", s.dlq())
	r.Method(http.MethodDelete, "/dlq", s.purgeDLQ())
	r.Method(http.MethodPost, "/dlq/{id}/replay", s.replayDLQ())
	r.Method(http.MethodGet, "/messages", s.messages())
	r.Method(http.MethodGet, "/messages/{partitionId}/*", s.message())
	r.Method(http.MethodPost, "/messages/{partitionId}/*", s.retryMessage())
	r.Method(http.MethodDelete, "/messages/{partitionId}/*", s.deleteMessage())
}

// statusRoutes registers the routes of Statuser (API.md §8, §9).
// /resources/queues/{queue}/depth lives beside resources/queues/{queue},
// which Broker serves.
func (s *server) statusRoutes(r chi.Router) {
	r.Method(http.MethodGet, "/status", s.apiStatus())
	r.Method(http.MethodGet, "/status/queues", s.statusQueues())
	r.Method(http.MethodGet, "/status/queues/{queue}", s.statusQueue())
	r.Method(http.MethodGet, "/status/analytics", s.analytics())
	r.Method(http.MethodGet, "/resources/overview", s.overview())
	r.Method(http.MethodGet, "/resources/namespaces", s.namespaces())
	r.Method(http.MethodGet, "/resources/tasks", s.tasks())
	r.Method(http.MethodGet, "/resources/partitions", s.partitions())
	r.Method(http.MethodGet, "/resources/queues/{queue}/depth", s.depth())
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
