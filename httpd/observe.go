package httpd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"
)

// Log keys.
const (
	logKeyMethod   = "method"
	logKeyPath     = "path"
	logKeyRoute    = "route"
	logKeyStatus   = "status"
	logKeyDuration = "duration"
	logKeyError    = "err"
)

// routeUnmatched is the route label of requests no route served.
const routeUnmatched = "unmatched"

// metrics are the HTTP series of one handler.
type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	// messages counts what this node's routes did to messages, by event
	// (the msg… constants) and tenant (tenantLabel): the throughput the
	// status routes answer each tenant, its own.
	messages *prometheus.CounterVec
	// cycles counts the stream cycles this node answered, by outcome
	// (committed, or the reason nothing applied) and tenant.
	cycles *prometheus.CounterVec
}

// The events of queen_messages_total.
const (
	msgPushed    = "pushed"    // a record appended (push, transaction)
	msgDuplicate = "duplicate" // a push answered duplicate: nothing appended
	msgDelivered = "delivered" // a message a pop leased (or delivered, commitOnDelivery)
	msgCompleted = "completed" // an ack of status completed that succeeded
	msgFailed    = "failed"    // an ack of status failed that succeeded
	msgRetried   = "retried"   // an ack of status retry that succeeded
	msgDLQ       = "dlq"       // an ack of status dlq that succeeded
)

// msgEvents lists the events in the order the answers show them.
var msgEvents = []string{msgPushed, msgDuplicate, msgDelivered, msgCompleted, msgFailed, msgRetried, msgDLQ}

// count adds n to tenant's series of event (n ≤ 0 adds nothing).
func (m *metrics) count(tenant, event string, n int) {
	if n > 0 {
		m.messages.WithLabelValues(event, tenantLabel(tenant)).Add(float64(n))
	}
}

// tenantLabel is a series' tenant label: "" for DefaultTenant, the tenant
// otherwise, as the sink labels its series (s3-sink.md, "Metrics"). Two
// tenants' counts never share a series.
func tenantLabel(tenant string) string {
	if tenant == DefaultTenant {
		return ""
	}
	return tenant
}

// ackEvent is the event of a successful ack of status (an unknown one
// reads as completed, as the ack does).
func ackEvent(status string) string {
	switch status {
	case AckFailed:
		return msgFailed
	case AckRetry:
		return msgRetried
	case AckDLQ:
		return msgDLQ
	}
	return msgCompleted
}

// newMetrics registers the HTTP series on reg, or takes the ones a
// previous New registered there.
func newMetrics(reg *prometheus.Registry) *metrics {
	labels := []string{"method", "route", "status"}
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "queen_http_requests_total",
			Help: "HTTP requests answered, by method, route pattern and status.",
		}, labels),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "queen_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by method, route pattern and status.",
			Buckets: prometheus.DefBuckets,
		}, labels),
		messages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "queen_messages_total",
			Help: "Messages this node's HTTP API pushed (or found duplicate), delivered and settled, by event and tenant (empty: the default tenant).",
		}, []string{"event", "tenant"}),
		cycles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "queen_stream_cycles_total",
			Help: "Stream cycles (POST /streams/v1/cycle) this node answered, by outcome (committed, or the reason nothing applied) and tenant.",
		}, []string{"outcome", "tenant"}),
	}
	m.requests = register(reg, m.requests)
	m.duration = register(reg, m.duration)
	m.messages = register(reg, m.messages)
	m.cycles = register(reg, m.cycles)
	for _, e := range msgEvents {
		m.messages.WithLabelValues(e, "") // the default tenant's series show from the start, at 0
	}
	return m
}

func register[C prometheus.Collector](reg *prometheus.Registry, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if old, ok := are.ExistingCollector.(C); ok {
				return old
			}
		}
		panic("httpd: register metrics: " + err.Error())
	}
	return c
}

// reqState is what a request leaves for its log line and its labels.
type reqState struct {
	err       error
	unmatched bool // noRoute answered it
}

type stateKey struct{}

// noteError keeps err for the request's log line.
func noteError(r *http.Request, err error) {
	if s, ok := r.Context().Value(stateKey{}).(*reqState); ok {
		s.err = err
	}
}

// methodLabel keeps the method label's values few: clients choose it.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete,
		http.MethodPatch, http.MethodOptions:
		return m
	}
	return "other"
}

// observe counts and times every request by route pattern and status,
// logs one line per 5xx error answer (with the error that caused it), and
// answers a panic with 500 internal.
func observe(m *metrics, log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			st := &reqState{}
			r = r.WithContext(context.WithValue(r.Context(), stateKey{}, st))
			ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
			defer func() {
				if p := recover(); p != nil {
					if p == http.ErrAbortHandler {
						panic(p)
					}
					st.err = fmt.Errorf("panic: %v", p)
					if ww.Status() == 0 {
						writeJSON(ww, http.StatusInternalServerError, engineBody{Error: "internal error", Code: CodeInternal})
					}
				}
				status := ww.Status()
				if status == 0 {
					status = http.StatusOK
				}
				route := routeUnmatched
				if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" && !st.unmatched {
					route = rc.RoutePattern()
				}
				d := time.Since(start)
				code := strconv.Itoa(status)
				m.requests.WithLabelValues(methodLabel(r.Method), route, code).Inc()
				m.duration.WithLabelValues(methodLabel(r.Method), route, code).Observe(d.Seconds())
				// A settling /health is a 503 but no failure: it is not logged.
				// Nor is a 507: the disk's crossing is logged once where it is
				// seen, and a line per refused write would fill the disk more.
				if status >= 500 && status <= 599 && status != http.StatusInsufficientStorage && st.err != nil {
					log.ErrorContext(r.Context(), "httpd: request failed", logKeyMethod, r.Method, logKeyPath, r.URL.Path,
						logKeyRoute, route, logKeyStatus, status, logKeyDuration, d, logKeyError, st.err.Error())
				}
			}()
			next.ServeHTTP(ww, r)
		})
	}
}
