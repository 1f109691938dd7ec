package ephemeral

import "github.com/prometheus/client_golang/prometheus"

// The keys of the store's log lines.
const (
	keyTenant      = "tenant"
	keyQueue       = "queue"
	keyQueues      = "queues"
	keyGroups      = "groups"
	keyDropped     = "dropped"
	keyHeld        = "heldBytes"
	keyNeed        = "needBytes"
	keyMaxBytes    = "maxBytes"
	keyIncarnation = "incarnation"
)

// metrics are the store's series. A nil *metrics counts nothing.
type metrics struct {
	drops   *prometheus.CounterVec
	refuses *prometheus.CounterVec
}

// newMetrics registers, on reg:
//
//	queen_ephemeral_bytes                   gauge: bytes held (payloads + MessageOverhead each)
//	queen_ephemeral_messages                gauge: messages held
//	queen_ephemeral_max_bytes               gauge: the node's cap (QUEEN_EPHEMERAL_MAX_BYTES)
//	queen_ephemeral_dropped_total{reason}   messages dropped: ttl, overflow, retries (per group), reset
//	queen_ephemeral_refused_total{bound}    pushes refused: full (the node's cap), queue_bound
func newMetrics(reg prometheus.Registerer, s *Store) (*metrics, error) {
	held := func() (int64, int64) { return s.Held() }
	cs := []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "queen_ephemeral_bytes",
			Help: "Bytes this node's ephemeral queues hold: payloads and 128 per message."},
			func() float64 { b, _ := held(); return float64(b) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "queen_ephemeral_messages",
			Help: "Messages this node's ephemeral queues hold."},
			func() float64 { _, n := held(); return float64(n) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "queen_ephemeral_max_bytes",
			Help: "The cap on what this node's ephemeral queues hold (QUEEN_EPHEMERAL_MAX_BYTES)."},
			func() float64 { return float64(s.maxBytes) }),
	}
	m := &metrics{
		drops: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "queen_ephemeral_dropped_total",
			Help: "Ephemeral messages dropped, by reason: ttl, overflow (drop_oldest), retries (a group spent its retryLimit), reset (reset or delete)."},
			[]string{"reason"}),
		refuses: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "queen_ephemeral_refused_total",
			Help: "Ephemeral pushes refused for want of room, by bound: full (the node's cap), queue_bound (the queue's maxBytes or maxLength)."},
			[]string{"bound"}),
	}
	cs = append(cs, m.drops, m.refuses)
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *metrics) dropped(reason string, n int) {
	if m != nil && n > 0 {
		m.drops.WithLabelValues(reason).Add(float64(n))
	}
}

func (m *metrics) refused(bound string) {
	if m != nil {
		m.refuses.WithLabelValues(bound).Inc()
	}
}
