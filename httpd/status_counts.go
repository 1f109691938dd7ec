package httpd

import (
	"slices"
	"strings"
)

// The arithmetic of the status routes: every count is made here from
// Stats (offsets, cursors, leases), never from records.

// msgCounts is the "messages" block of the status answers. total is the
// records the log holds (lastOffset+1−logStart); processing those a
// live lease holds; pending the rest still to settle; completed the
// others: settled, dead-lettered, dropped, or before a new-mode group's
// subscription. total = pending + processing + completed.
//
// For one group they are that group's. For a queue (no group named) each
// partition counts by its worst group, the one with the most records
// still to settle (the first by name on a tie), and a partition no group
// reads counts all its records pending.
type msgCounts struct {
	Total      int64 `json:"total"`
	Pending    int64 `json:"pending"`
	Processing int64 `json:"processing"`
	Completed  int64 `json:"completed"`
}

func (c *msgCounts) add(o msgCounts) {
	c.Total += o.Total
	c.Pending += o.Pending
	c.Processing += o.Processing
	c.Completed += o.Completed
}

// held is how many records partition p holds.
func held(p *PartitionStats) int64 { return max(p.LastOffset+1-p.LogStart, 0) }

// worstGroup is the index of the group with the most records still to
// settle on p, -1 when no group reads it.
func worstGroup(p *PartitionStats) int {
	w := -1
	for i, g := range p.Groups {
		if w < 0 || g.Unsettled > p.Groups[w].Unsettled {
			w = i
		}
	}
	return w
}

// partitionCounts counts p for group g (an index of the queue's Groups),
// or for the queue when g < 0.
func partitionCounts(p *PartitionStats, g int) msgCounts {
	total := held(p)
	if g < 0 {
		g = worstGroup(p)
	}
	if g < 0 || g >= len(p.Groups) {
		return msgCounts{Total: total, Pending: total}
	}
	unsettled := min(max(p.Groups[g].Unsettled, 0), total)
	leased := min(max(p.Groups[g].Leased, 0), unsettled)
	return msgCounts{Total: total, Pending: unsettled - leased, Processing: leased, Completed: total - unsettled}
}

// queueCounts sums q's partitions for group g, or for the queue (g < 0).
func queueCounts(q *QueueStats, g int) msgCounts {
	var c msgCounts
	for i := range q.Partitions {
		c.add(partitionCounts(&q.Partitions[i], g))
	}
	return c
}

// Unsettled counts q's records as the status routes do: held, those its
// partitions hold, and unsettled, those still to settle (pending and
// processing), for group g (an index of q.Groups) or, when g < 0, for the
// queue: each partition by its group furthest behind, all it holds when
// no group reads it. The broker's queue metrics count with it.
func (q *QueueStats) Unsettled(g int) (held, unsettled int64) {
	c := queueCounts(q, g)
	return c.Total, c.Total - c.Completed
}

// groupIndex is the index of group in q's Groups, -1 when it does not
// read q.
func groupIndex(q *QueueStats, group string) int {
	return slices.IndexFunc(q.Groups, func(g GroupSub) bool { return g.Name == group })
}

// leaseCounts is the "leases" block: the live leases (distinct ids), the
// partitions they hold and the messages they hold, over every group.
type leaseCounts struct {
	Active     int   `json:"active"`
	Partitions int   `json:"partitions"`
	Messages   int64 `json:"messages"`
}

func leasesOf(qs []QueueStats) leaseCounts {
	var c leaseCounts
	ids := map[string]bool{}
	for i := range qs {
		for j := range qs[i].Partitions {
			for _, g := range qs[i].Partitions[j].Groups {
				if g.LeaseID == "" {
					continue
				}
				ids[g.LeaseID] = true
				c.Partitions++
				c.Messages += max(g.Leased, 0)
			}
		}
	}
	c.Active = len(ids)
	return c
}

// lastWrite is the last write stamp of q's partitions, 0 when none.
func lastWrite(q *QueueStats) int64 {
	var last int64
	for _, p := range q.Partitions {
		last = max(last, p.LastWrite)
	}
	return last
}

// groupNames counts the distinct groups that read qs.
func groupNames(qs []QueueStats) int {
	names := map[string]bool{}
	for _, q := range qs {
		for _, g := range q.Groups {
			names[g.Name] = true
		}
	}
	return len(names)
}

// queueSet is the queues of one namespace or task, summed: the
// elements of GET /api/v1/resources/namespaces and /tasks.
type queueSet struct {
	Name       string    `json:"-"`
	Queues     int       `json:"queues"`
	Partitions int       `json:"partitions"`
	Messages   msgCounts `json:"messages"`
	// QueueNames lists its queues, by name.
	QueueNames  []string `json:"queueNames"`
	LastWriteAt *string  `json:"lastWriteAt"`
}

// setsBy groups qs by key (their namespace or task), by name; queues
// whose key is "" belong to none.
func setsBy(qs []QueueStats, key func(*QueueStats) string) []queueSet {
	idx := map[string]int{}
	var out []queueSet
	last := map[string]int64{}
	for i := range qs {
		q := &qs[i]
		k := key(q)
		if k == "" {
			continue
		}
		j, ok := idx[k]
		if !ok {
			j = len(out)
			idx[k] = j
			out = append(out, queueSet{Name: k})
		}
		s := &out[j]
		s.Queues++
		s.Partitions += len(q.Partitions)
		s.Messages.add(queueCounts(q, -1))
		s.QueueNames = append(s.QueueNames, q.Name)
		last[k] = max(last[k], lastWrite(q))
	}
	for i := range out {
		out[i].LastWriteAt = stampOrNull(last[out[i].Name])
	}
	slices.SortFunc(out, func(a, b queueSet) int { return strings.Compare(a.Name, b.Name) })
	return out
}
