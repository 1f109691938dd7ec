package broker

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/queen-mq/queen-go/httpd"

	"github.com/queen-mq/queen-go/queen/internal/streams"
	"github.com/queen-mq/queen-go/raftlog"
)

// streamCollector serves the stream queries' gauges from this node's
// applied state, read when scraped: each query's state rows and bytes
// and its consumer group's lag on its source.
type streamCollector struct {
	b                 *Broker
	rows, bytes, lags *prometheus.Desc
}

// StreamCollector is the stream queries' gauges, for the node's registry.
func (b *Broker) StreamCollector() prometheus.Collector {
	labels := []string{"tenant", "query"}
	return &streamCollector{b: b,
		rows:  prometheus.NewDesc("queen_stream_state_rows", "State rows a stream query holds, on this node's applied state.", labels, nil),
		bytes: prometheus.NewDesc("queen_stream_state_bytes", "Bytes of a stream query's state rows (keys and values), on this node's applied state.", labels, nil),
		lags: prometheus.NewDesc("queen_stream_lag_messages",
			"Messages of a stream query's source its consumer group has not settled, on this node's applied state.", labels, nil)}
}

func (c *streamCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.rows
	ch <- c.bytes
	ch <- c.lags
}

func (c *streamCollector) Collect(ch chan<- prometheus.Metric) {
	type gauge struct {
		tenant, name     string
		rows, bytes, lag int64
	}
	got, err := c.b.shard.LocalRead(func(v *raftlog.View) (any, error) {
		qs, err := streams.ListAll(v)
		if err != nil {
			return nil, err
		}
		out := make([]gauge, len(qs))
		for i, q := range qs {
			lag, err := streamLag(v, q.Tenant, &q.Query)
			if err != nil {
				return nil, err
			}
			out[i] = gauge{tenant: q.Tenant, name: q.Name, rows: q.Rows, bytes: q.Bytes, lag: lag}
		}
		return out, nil
	})
	if err != nil {
		return // a closed shard, or storage the node halts on: no series this scrape
	}
	for _, g := range got.([]gauge) {
		t := tenantLabel(g.tenant)
		ch <- prometheus.MustNewConstMetric(c.rows, prometheus.GaugeValue, float64(g.rows), t, g.name)
		ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.GaugeValue, float64(g.bytes), t, g.name)
		ch <- prometheus.MustNewConstMetric(c.lags, prometheus.GaugeValue, float64(g.lag), t, g.name)
	}
}

// tenantLabel is a series' tenant label, as httpd labels its own: ""
// for the default tenant.
func tenantLabel(tenant string) string {
	if tenant == httpd.DefaultTenant {
		return ""
	}
	return tenant
}
