package broker

import (
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// queueCollector exposes every tenant's queues and consumer groups, read
// from this node's applied state at each scrape, counted as the status
// routes count them (httpd.QueueStats.Unsettled: offsets, cursors and
// leases, never records):
//
//   - queen_queue_partitions{tenant,queue}: the queue's partitions;
//   - queen_queue_messages{tenant,queue}: the records its partitions hold
//     (retention's trims aside);
//   - queen_queue_depth{tenant,queue}: the records still to settle, per
//     partition by its worst group (all it holds when no group reads it),
//     summed: what /api/v1/status/queues shows as pending plus processing;
//   - queen_consumer_group_lag{tenant,group,queue}: the records the group
//     has still to settle on the queue, leased ones included, the lag of
//     /api/v1/consumer-groups.
//
// The tenant label is "" for the default tenant, as on every series.
// A walk reads every queue, partition and group once, in one view: the
// cost of GET /api/v1/status/queues over all tenants. One walk answers
// every gather for a second (a scrape, the analytics sampler, the
// dashboard's polls of /metrics), and a walk that fails exposes none of
// the series (logged at most once a minute).
type queueCollector struct {
	b                                *Broker
	log                              *slog.Logger
	partitions, messages, depth, lag *prometheus.Desc

	// mu guards the last walk: gathers within queueMetricsFresh of it
	// (the dashboard's polls, the sampler, a scrape) answer it again.
	mu       sync.Mutex
	at       time.Time
	last     []prometheus.Metric
	warnedAt time.Time
}

// queueMetricsFresh is how long one walk answers every gather, and
// queueMetricsWarnEvery how often a failing walk is logged.
const (
	queueMetricsFresh     = time.Second
	queueMetricsWarnEvery = time.Minute
)

// QueueCollector is the queues' and consumer groups' metrics, for the
// broker's registry. A gather whose read fails exposes none of them and
// logs it on log, at most once a minute.
func (b *Broker) QueueCollector(log *slog.Logger) prometheus.Collector {
	q := []string{"tenant", "queue"}
	return &queueCollector{b: b, log: log,
		partitions: prometheus.NewDesc("queen_queue_partitions", "The queue's partitions.", q, nil),
		messages: prometheus.NewDesc("queen_queue_messages",
			"The records the queue's partitions hold (those retention has not trimmed).", q, nil),
		depth: prometheus.NewDesc("queen_queue_depth",
			"The queue's records still to settle: per partition by the group furthest behind (all it holds when no group reads it), summed.", q, nil),
		lag: prometheus.NewDesc("queen_consumer_group_lag",
			"The records a consumer group has still to settle on a queue, leased ones included.", []string{"tenant", "group", "queue"}, nil)}
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.partitions, c.messages, c.depth, c.lag} {
		ch <- d
	}
}

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now := time.Now(); c.last == nil || now.Sub(c.at) >= queueMetricsFresh {
		got, err := c.walk()
		if err != nil {
			// None of them, rather than a partial set.
			if c.log != nil && now.Sub(c.warnedAt) >= queueMetricsWarnEvery {
				c.warnedAt = now
				c.log.Warn("queue metrics not read", "err", err)
			}
			c.last = nil
			return
		}
		c.at, c.last = now, got
	}
	for _, m := range c.last {
		ch <- m
	}
}

// walk reads every tenant's queues and groups in one view.
func (c *queueCollector) walk() ([]prometheus.Metric, error) {
	var out []prometheus.Metric
	_, err := c.b.shard.LocalRead(func(v *raftlog.View) (any, error) {
		all, err := queuelog.AllQueues(v)
		if err != nil {
			return nil, err
		}
		for i := 0; i < len(all); {
			tenant := all[i].Tenant
			j := i
			for j < len(all) && all[j].Tenant == tenant {
				j++
			}
			if err := c.tenant(&out, v, all[i:j]); err != nil {
				return nil, err
			}
			i = j
		}
		return nil, nil
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []prometheus.Metric{} // no queue: a walk that found none
	}
	return out, nil
}

// tenant emits the metrics of one tenant's queues (qs, all of tenant).
func (c *queueCollector) tenant(out *[]prometheus.Metric, v *raftlog.View, qs []queuelog.TenantQueue) error {
	tenant := qs[0].Tenant
	label := tenant // as every tenant-labelled series: "" for the default tenant
	if tenant == httpd.DefaultTenant {
		label = ""
	}
	groups, err := consume.Groups(v, tenant, "", "")
	if err != nil {
		return err
	}
	byQueue := map[string][]consume.GroupInfo{}
	for _, g := range groups {
		byQueue[g.Queue] = append(byQueue[g.Queue], g)
	}
	for _, q := range qs {
		s, err := queueStats(v, tenant, q.QueueInfo, byQueue[q.Name])
		if err != nil {
			return err
		}
		messages, depth := s.Unsettled(-1)
		*out = append(*out, prometheus.MustNewConstMetric(c.partitions, prometheus.GaugeValue, float64(len(s.Partitions)), label, q.Name),
			prometheus.MustNewConstMetric(c.messages, prometheus.GaugeValue, float64(messages), label, q.Name),
			prometheus.MustNewConstMetric(c.depth, prometheus.GaugeValue, float64(depth), label, q.Name))
		for i, g := range s.Groups {
			_, lag := s.Unsettled(i)
			*out = append(*out, prometheus.MustNewConstMetric(c.lag, prometheus.GaugeValue, float64(lag), label, g.Name, q.Name))
		}
	}
	return nil
}
