package httpd

import (
	"cmp"
	"net/http"
	"slices"

	"github.com/queen-mq/queen-go/contract"
)

// The defaults of the status routes.
const (
	DefaultStatusQueuesLimit = 100 // GET /api/v1/status/queues (contract.ListLimit bounds it)
	topQueues                = 10  // the queues /status/analytics ranks
)

// throughputBlock is the "throughput" of /status and /status/analytics:
// the tenant's messages through this node over time (route_analytics.go).
type throughputBlock struct {
	Interval   float64           `json:"interval"`
	Current    throughputPoint   `json:"current"`
	TimeSeries []throughputPoint `json:"timeSeries"`
	Totals     throughputTotals  `json:"totals"`
}

func (s *server) throughput(win window, tenant string) throughputBlock {
	h := s.samples.history()
	at := throughputOf(tenant)
	ts := series(h, win, at)
	return throughputBlock{Interval: s.samples.interval(), Current: current(s, h, at), TimeSeries: ts,
		Totals: totalsOfSeries(ts)}
}

// statusAnswer is the answer of GET /api/v1/status.
type statusAnswer struct {
	TimeRange      timeRange       `json:"timeRange"`
	SafeTime       string          `json:"safeTime"`
	Queues         int             `json:"queues"`
	Partitions     int             `json:"partitions"`
	ConsumerGroups int             `json:"consumerGroups"`
	Messages       msgCounts       `json:"messages"`
	Leases         leaseCounts     `json:"leases"`
	Throughput     throughputBlock `json:"throughput"`
}

// status is GET /api/v1/status?from=&to=: the tenant's counts beside its
// throughput through this node.
//
// Answer 200: {"timeRange":{from,to},"safeTime","queues","partitions",
// "consumerGroups","messages":{total,pending,processing,completed},
// "leases":{active,partitions,messages},"throughput":{interval,current,
// timeSeries,totals}}. The counts are the tenant's, from applied state
// (msgCounts); throughput is the tenant's through this node, a point per
// Sampler interval (throughputPoint), totals the sums of the series.
// Errors: 400 for a from or to that is not ISO-8601, or a from after to.
func (s *server) apiStatus() http.Handler {
	return route(http.StatusOK, windowOf, func(r *http.Request, win window) (any, error) {
		st, err := s.allStats(r)
		if err != nil {
			return nil, err
		}
		out := statusAnswer{TimeRange: win.tr, SafeTime: formatStamp(st.Stamp), Queues: len(st.Queues), ConsumerGroups: groupNames(st.Queues),
			Leases: leasesOf(st.Queues), Throughput: s.throughput(win, tenantOf(r))}
		for i := range st.Queues {
			out.Partitions += len(st.Queues[i].Partitions)
			out.Messages.add(queueCounts(&st.Queues[i], -1))
		}
		return out, nil
	})
}

// queueStatus is one queue of GET /api/v1/status/queues.
type queueStatus struct {
	queueSummary
	Partitions     int       `json:"partitions"`
	ConsumerGroups int       `json:"consumerGroups"`
	Messages       msgCounts `json:"messages"`
	LastWriteAt    *string   `json:"lastWriteAt"`
}

func newQueueStatus(q *QueueStats) queueStatus {
	return queueStatus{queueSummary: newQueueSummary(q.QueueSummary), Partitions: len(q.Partitions),
		ConsumerGroups: len(q.Groups), Messages: queueCounts(q, -1), LastWriteAt: stampOrNull(lastWrite(q))}
}

// statusQueues is GET /api/v1/status/queues?namespace=&task=&limit=&offset=.
//
// Query: namespace and task filter (exact); limit 1..1000 (default 100),
// offset 0..2^53-1 (default 0). Answer 200: {"queues":[{id,name,namespace,
// task,createdAt,partitionCount,partitions,consumerGroups (how many read
// it),messages:{…},lastWriteAt}],"pagination":{limit,offset,total}} by
// name; total counts the queues the filters keep.
func (s *server) statusQueues() http.Handler {
	return reply(http.StatusOK, func(r *http.Request) (any, error) {
		p := paramsOf(r)
		namespace := p.name("namespace", contract.QueueNamespace)
		task := p.name("task", contract.QueueTask)
		limit := p.integer("limit", contract.ListLimit, DefaultStatusQueuesLimit)
		offset := p.integer("offset", contract.MessagesOffset, 0)
		if p.err != nil {
			return nil, p.err
		}
		st, err := s.allStats(r)
		if err != nil {
			return nil, err
		}
		type pagination struct {
			Limit  int64 `json:"limit"`
			Offset int64 `json:"offset"`
			Total  int   `json:"total"`
		}
		out := struct {
			Queues     []queueStatus `json:"queues"`
			Pagination pagination    `json:"pagination"`
		}{Queues: []queueStatus{}, Pagination: pagination{Limit: limit, Offset: offset}}
		for i := range st.Queues {
			qs := &st.Queues[i]
			if (namespace != "" && qs.Namespace != namespace) || (task != "" && qs.Task != task) {
				continue
			}
			n := int64(out.Pagination.Total)
			out.Pagination.Total++
			if n >= offset && n < offset+limit {
				out.Queues = append(out.Queues, newQueueStatus(qs))
			}
		}
		return out, nil
	})
}

// groupStatus is one consumer group of GET /api/v1/status/queues/:queue.
type groupStatus struct {
	Name             string            `json:"name"`
	SubscribedAt     string            `json:"subscribedAt"`
	SubscriptionMode string            `json:"subscriptionMode"`
	Messages         msgCounts         `json:"messages"`
	Partitions       []groupPartStatus `json:"partitions"`
}

// groupPartStatus is a group's place on one partition.
type groupPartStatus struct {
	Partition      string  `json:"partition"`
	Cursor         int64   `json:"cursor"`
	Pending        int64   `json:"pending"`
	Processing     int64   `json:"processing"`
	LeaseID        *string `json:"leaseId"`
	LeaseExpiresAt *string `json:"leaseExpiresAt"`
}

// partitionStatus is one partition of GET /api/v1/status/queues/:queue.
type partitionStatus struct {
	ID          string    `json:"id"`
	PartitionID string    `json:"partitionId"`
	Name        string    `json:"name"`
	CreatedAt   *string   `json:"createdAt"`
	LastOffset  int64     `json:"lastOffset"`
	LogStart    int64     `json:"logStart"`
	LastWriteAt *string   `json:"lastWriteAt"`
	Messages    msgCounts `json:"messages"`
}

// statusQueue is GET /api/v1/status/queues/:queue: one queue, its
// partitions and the groups that read it.
//
// Answer 200: {"queue":{id,name,namespace,task,createdAt,partitionCount},
// "safeTime","totals":{partitions,messages:{…},lastWriteAt},
// "partitions":[{id,partitionId,name,createdAt,lastOffset,logStart,
// lastWriteAt,messages:{…}}] (creation order; messages by the worst
// group), "consumerGroups":[{name,subscribedAt,subscriptionMode,
// messages:{…} (the group's own),partitions:[{partition,cursor,pending,
// processing,leaseId,leaseExpiresAt}]}] (by name)}. leaseId and
// leaseExpiresAt are null when no live lease holds the partition.
// Errors: 404 queue_not_found.
func (s *server) statusQueue() http.Handler {
	return route(http.StatusOK, pathQueue, func(r *http.Request, name string) (any, error) {
		st, err := s.queueStats(r, name)
		if err != nil {
			return nil, err
		}
		q := &st.Queues[0]
		type totals struct {
			Partitions  int       `json:"partitions"`
			Messages    msgCounts `json:"messages"`
			LastWriteAt *string   `json:"lastWriteAt"`
		}
		out := struct {
			Queue          queueSummary      `json:"queue"`
			SafeTime       string            `json:"safeTime"`
			Totals         totals            `json:"totals"`
			Partitions     []partitionStatus `json:"partitions"`
			ConsumerGroups []groupStatus     `json:"consumerGroups"`
		}{Queue: newQueueSummary(q.QueueSummary), SafeTime: formatStamp(st.Stamp),
			Totals:     totals{Partitions: len(q.Partitions), Messages: queueCounts(q, -1), LastWriteAt: stampOrNull(lastWrite(q))},
			Partitions: make([]partitionStatus, len(q.Partitions)), ConsumerGroups: make([]groupStatus, len(q.Groups))}
		for i := range q.Partitions {
			p := &q.Partitions[i]
			row := newPartitionRow(q, p)
			out.Partitions[i] = partitionStatus{ID: row.ID, PartitionID: row.PartitionID, Name: row.Name, CreatedAt: row.CreatedAt,
				LastOffset: row.LastOffset, LogStart: row.LogStart, LastWriteAt: row.LastWriteAt, Messages: row.Messages}
		}
		for g, sub := range q.Groups {
			gs := groupStatus{Name: sub.Name, SubscribedAt: formatStamp(sub.SubscribedAt), SubscriptionMode: sub.SubscriptionMode,
				Messages: queueCounts(q, g), Partitions: make([]groupPartStatus, len(q.Partitions))}
			for i := range q.Partitions {
				p := &q.Partitions[i]
				c := partitionCounts(p, g)
				ps := groupPartStatus{Partition: p.Name, Pending: c.Pending, Processing: c.Processing}
				if g < len(p.Groups) {
					pos := p.Groups[g]
					ps.Cursor = pos.Cursor
					if pos.LeaseID != "" {
						ps.LeaseID, ps.LeaseExpiresAt = stringOrNull(pos.LeaseID), stampOrNull(pos.LeaseExpiresAt)
					}
				}
				gs.Partitions[i] = ps
			}
			out.ConsumerGroups[g] = gs
		}
		return out, nil
	})
}

// analytics is GET /api/v1/status/analytics?from=&to=: the tenant's
// throughput through this node over time and its largest backlogs.
//
// Answer 200: {"timeRange":{from,to},"throughput":{interval,current,
// timeSeries,totals} (as /api/v1/status),"topQueues":[{name,namespace,
// task,messages:{…}}]}: the ten queues with the most messages pending or
// processing (by the worst group), most first, then by name; queues with
// none are left out. Errors: 400 for a bad from or to.
func (s *server) analytics() http.Handler {
	return route(http.StatusOK, windowOf, func(r *http.Request, win window) (any, error) {
		st, err := s.allStats(r)
		if err != nil {
			return nil, err
		}
		type top struct {
			Name      string    `json:"name"`
			Namespace string    `json:"namespace"`
			Task      string    `json:"task"`
			Messages  msgCounts `json:"messages"`
		}
		tops := []top{}
		for i := range st.Queues {
			qs := &st.Queues[i]
			if c := queueCounts(qs, -1); c.Pending+c.Processing > 0 {
				tops = append(tops, top{Name: qs.Name, Namespace: qs.Namespace, Task: qs.Task, Messages: c})
			}
		}
		slices.SortStableFunc(tops, func(a, b top) int {
			return cmp.Compare(b.Messages.Pending+b.Messages.Processing, a.Messages.Pending+a.Messages.Processing)
		})
		return struct {
			TimeRange  timeRange       `json:"timeRange"`
			Throughput throughputBlock `json:"throughput"`
			TopQueues  []top           `json:"topQueues"`
		}{win.tr, s.throughput(win, tenantOf(r)), tops[:min(len(tops), topQueues)]}, nil
	})
}
