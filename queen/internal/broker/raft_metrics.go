package broker

import (
	"github.com/prometheus/client_golang/prometheus"
)

// raftCollector exposes this node's raft view, read at each scrape, as
// /health shows it: queen_raft_leader (the leader's node id, 0 with none
// known), queen_raft_is_leader (1 on the leader), queen_raft_applied_index
// (the last entry this node applied) and queen_raft_apply_lag_seconds (how
// far its applied state is behind the wall clock: now less its safe time,
// which an idle leader moves every QUEEN_RAFT_TICK_MS; /health says
// settling past QUEEN_RAFT_READY_LAG_MS).
type raftCollector struct {
	b                              *Broker
	leader, isLeader, applied, lag *prometheus.Desc
}

// RaftCollector is the raft view's metrics, for the broker's registry.
func (b *Broker) RaftCollector() prometheus.Collector {
	return &raftCollector{b: b,
		leader:   prometheus.NewDesc("queen_raft_leader", "The node id this node knows as the raft leader; 0 while it knows none.", nil, nil),
		isLeader: prometheus.NewDesc("queen_raft_is_leader", "1 while this node is the raft leader.", nil, nil),
		applied:  prometheus.NewDesc("queen_raft_applied_index", "The raft index of the last entry this node applied.", nil, nil),
		lag: prometheus.NewDesc("queen_raft_apply_lag_seconds",
			"How far this node's applied state is behind the wall clock (now less its safe time), as /health's lag.", nil, nil)}
}

func (c *raftCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.leader, c.isLeader, c.applied, c.lag} {
		ch <- d
	}
}

func (c *raftCollector) Collect(ch chan<- prometheus.Metric) {
	leader := c.b.shard.Leader()
	lag := c.b.applyLag()
	ch <- prometheus.MustNewConstMetric(c.leader, prometheus.GaugeValue, float64(leader))
	ch <- prometheus.MustNewConstMetric(c.isLeader, prometheus.GaugeValue, bit(leader != 0 && leader == c.b.host.NodeID()))
	ch <- prometheus.MustNewConstMetric(c.applied, prometheus.GaugeValue, float64(c.b.shard.Applied()))
	ch <- prometheus.MustNewConstMetric(c.lag, prometheus.GaugeValue, lag.Seconds())
}
