package s3sink

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the sink's Prometheus series (s3-sink.md, "Metrics"). The
// tenant label is empty for the default tenant. A node exports a queue's
// gauges only while it runs the queue.
type Metrics struct {
	lag, safeLag, buffer, discovery, ckptAge *prometheus.GaugeVec
	windows, records, bytes, lostRecs        *prometheus.CounterVec
	fetches, requests, precondLost, given    *prometheus.CounterVec
	winRecords, winBytes, kvCalls            *prometheus.HistogramVec
}

// NewMetrics makes the series and registers them on reg (nil: none).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	g := func(name, help string, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	}
	c := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	h := func(name, help string, buckets []float64) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, []string{"tenant", "queue"})
	}
	m := &Metrics{
		lag:         g("queen_s3_lag_seconds", "The owning node's safeTime minus completeThrough.", "tenant", "queue"),
		safeLag:     g("queen_s3_safe_lag_seconds", "The lag plus how far the node's applied log trails its clock.", "tenant", "queue"),
		buffer:      g("queen_s3_buffer_bytes", "Bytes of records buffered for open windows.", "tenant", "queue"),
		discovery:   g("queen_s3_discovery_partitions", "Partitions the last discovery listed.", "tenant", "queue"),
		ckptAge:     g("queen_s3_checkpoint_age_windows", "Windows committed since the last checkpoint.", "tenant", "queue"),
		windows:     c("queen_s3_windows_committed_total", "Windows committed.", "tenant", "queue"),
		records:     c("queen_s3_records_written_total", "Records written in committed windows.", "tenant", "queue"),
		bytes:       c("queen_s3_bytes_written_total", "Object bytes written in committed windows.", "tenant", "queue"),
		lostRecs:    c("queen_s3_records_lost_total", "Records retention deleted before the sink read them.", "tenant", "queue"),
		fetches:     c("queen_s3_fetch_calls_total", "Log reads.", "tenant", "queue"),
		requests:    c("queen_s3_s3_requests_total", "S3 requests by operation and status code.", "tenant", "operation", "status"),
		precondLost: c("queen_s3_commit_precondition_lost_total", "Fenced KV batches: the lease had moved.", "tenant", "sink"),
		given:       c("queen_s3_queues_given_back_total", "Queues given back to balance the nodes.", "tenant"),
		winRecords:  h("queen_s3_window_records", "Records per committed window.", prometheus.ExponentialBuckets(1, 4, 12)),
		winBytes:    h("queen_s3_window_bytes", "Bytes per committed window.", prometheus.ExponentialBuckets(1024, 4, 12)),
		kvCalls: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "queen_s3_kv_call_seconds",
			Help:    "The sink's KV calls (get, batch, prefix) by how long they took; each ends at its deadline.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}, []string{"tenant", "call"}),
	}
	if reg != nil {
		for _, col := range []prometheus.Collector{m.lag, m.safeLag, m.buffer, m.discovery, m.ckptAge, m.windows, m.records,
			m.bytes, m.lostRecs, m.fetches, m.requests, m.precondLost, m.given, m.winRecords, m.winBytes, m.kvCalls} {
			reg.MustRegister(col)
		}
	}
	return m
}

// tenantLabel is empty for the default tenant.
func tenantLabel(t string) string {
	if t == DefaultTenant {
		return ""
	}
	return t
}

func (m *Metrics) window(tenant, queue string, records, bytes int64) {
	t := tenantLabel(tenant)
	m.windows.WithLabelValues(t, queue).Inc()
	m.records.WithLabelValues(t, queue).Add(float64(records))
	m.bytes.WithLabelValues(t, queue).Add(float64(bytes))
	m.winRecords.WithLabelValues(t, queue).Observe(float64(records))
	m.winBytes.WithLabelValues(t, queue).Observe(float64(bytes))
}

func (m *Metrics) lost(tenant, queue string, n int64) {
	m.lostRecs.WithLabelValues(tenantLabel(tenant), queue).Add(float64(n))
}

func (m *Metrics) fetched(tenant, queue string) {
	m.fetches.WithLabelValues(tenantLabel(tenant), queue).Inc()
}

func (m *Metrics) discovered(tenant, queue string, n int) {
	m.discovery.WithLabelValues(tenantLabel(tenant), queue).Set(float64(n))
}

func (m *Metrics) preconditionLost(tenant, sink string) {
	m.precondLost.WithLabelValues(tenantLabel(tenant), sink).Inc()
}

func (m *Metrics) givenBack(tenant string) { m.given.WithLabelValues(tenantLabel(tenant)).Inc() }

func (m *Metrics) kvCall(tenant, call string, took time.Duration) {
	m.kvCalls.WithLabelValues(tenantLabel(tenant), call).Observe(took.Seconds())
}

// S3Request counts one request to the bucket; the S3 store calls it.
func (m *Metrics) S3Request(tenant, operation string, status int) {
	m.requests.WithLabelValues(tenantLabel(tenant), operation, strconv.Itoa(status)).Inc()
}

// gauges sets a running queue's gauges.
func (m *Metrics) gauges(tenant, queue string, lag, safeLag float64, buffered int64, ckptAge int) {
	t := tenantLabel(tenant)
	m.lag.WithLabelValues(t, queue).Set(lag)
	m.safeLag.WithLabelValues(t, queue).Set(safeLag)
	m.buffer.WithLabelValues(t, queue).Set(float64(buffered))
	m.ckptAge.WithLabelValues(t, queue).Set(float64(ckptAge))
}

// forget drops a queue's gauges when this node stops running it.
func (m *Metrics) forget(tenant, queue string) {
	t := tenantLabel(tenant)
	for _, g := range []*prometheus.GaugeVec{m.lag, m.safeLag, m.buffer, m.discovery, m.ckptAge} {
		g.DeleteLabelValues(t, queue)
	}
}

// queueStarted makes a queue's series exist, at zero, from the moment this
// node runs it, so a scrape lists every queen_s3_* series.
func (m *Metrics) queueStarted(tenant, sink, queue string) {
	t := tenantLabel(tenant)
	for _, c := range []*prometheus.CounterVec{m.windows, m.records, m.bytes, m.lostRecs, m.fetches} {
		c.WithLabelValues(t, queue)
	}
	m.winRecords.WithLabelValues(t, queue)
	m.winBytes.WithLabelValues(t, queue)
	m.precondLost.WithLabelValues(t, sink)
	m.given.WithLabelValues(t)
}
