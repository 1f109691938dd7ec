package broker

import (
	"math"

	"github.com/prometheus/client_golang/prometheus"
)

// diskBlock is the storage gate's state on this node, for /health and
// /status: this node's disk use and marks, the nodes the cluster's state
// says are full, and whether writes that grow the store are refused here
// (507 storage_full).
func (b *Broker) diskBlock() map[string]any {
	st := b.shard.Storage()
	block := map[string]any{"highPct": st.HighPct, "lowPct": st.LowPct, "full": st.Full,
		"fullNodes": st.FullNodes, "refusingWrites": st.Refusing, "refused": st.Refused}
	if st.FullNodes == nil {
		block["fullNodes"] = []any{}
	}
	if !math.IsNaN(st.UsedPct) {
		block["usedPct"] = math.Round(st.UsedPct*100) / 100
	}
	if st.Err != "" {
		block["error"] = st.Err
	}
	return block
}

// diskCollector serves the storage gate's gauges, read when scraped.
type diskCollector struct {
	b                                 *Broker
	used, full, refusing, nodes, refs *prometheus.Desc
}

// DiskCollector is the storage gate's metrics, for the node's registry:
// queen_raft_disk_used_percent, queen_raft_disk_full,
// queen_raft_storage_refusing, queen_raft_storage_full_nodes and
// queen_raft_storage_refused_total.
func (b *Broker) DiskCollector() prometheus.Collector {
	return &diskCollector{b: b,
		used: prometheus.NewDesc("queen_raft_disk_used_percent",
			"Percent used of the file system of this node's data directory, at the last poll (absent when the gate is off).", nil, nil),
		full: prometheus.NewDesc("queen_raft_disk_full",
			"1 while this node's disk is above QUEEN_RAFT_DISK_HIGH_PCT (until it is below QUEEN_RAFT_DISK_LOW_PCT).", nil, nil),
		refusing: prometheus.NewDesc("queen_raft_storage_refusing",
			"1 while this node refuses writes that grow the store (507 storage_full): a node of the cluster is full.", nil, nil),
		nodes: prometheus.NewDesc("queen_raft_storage_full_nodes",
			"Nodes the cluster's replicated state says are above their disk high mark.", nil, nil),
		refs: prometheus.NewDesc("queen_raft_storage_refused_total",
			"Writes this node refused with 507 storage_full.", nil, nil)}
}

func (c *diskCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.used, c.full, c.refusing, c.nodes, c.refs} {
		ch <- d
	}
}

func (c *diskCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.b.shard.Storage()
	if !math.IsNaN(st.UsedPct) {
		ch <- prometheus.MustNewConstMetric(c.used, prometheus.GaugeValue, st.UsedPct)
	}
	ch <- prometheus.MustNewConstMetric(c.full, prometheus.GaugeValue, bit(st.Full))
	ch <- prometheus.MustNewConstMetric(c.refusing, prometheus.GaugeValue, bit(st.Refusing))
	ch <- prometheus.MustNewConstMetric(c.nodes, prometheus.GaugeValue, float64(len(st.FullNodes)))
	ch <- prometheus.MustNewConstMetric(c.refs, prometheus.CounterValue, float64(st.Refused))
}

func bit(v bool) float64 {
	if v {
		return 1
	}
	return 0
}
