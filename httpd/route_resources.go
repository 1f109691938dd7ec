package httpd

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/contract"
)

// DefaultPartitionsLimit is the limit of GET /api/v1/resources/partitions
// when absent (contract.ListLimit bounds it).
const DefaultPartitionsLimit = 100

// stats reads the tenant's queues (one when queue is not "").
func (s *server) stats(r *http.Request, queue string) (Stats, error) {
	return s.st.QueueStats(r.Context(), tenantOf(r), queue)
}

// allStats reads all the tenant's queues: the read of the routes that
// take no parameter.
func (s *server) allStats(r *http.Request) (Stats, error) { return s.stats(r, "") }

// queueStats reads the queue name, st.Queues[0]; 404 queue_not_found
// when there is none.
func (s *server) queueStats(r *http.Request, name string) (Stats, error) {
	st, err := s.stats(r, name)
	if err == nil && len(st.Queues) == 0 {
		err = queueNotFound(name)
	}
	return st, err
}

// overview is GET /api/v1/resources/overview: the tenant's queues summed.
//
// Answer 200: {"queues","partitions","namespaces","tasks","consumerGroups"
// (distinct names), "messages":{total,pending,processing,completed},
// "leases":{active,partitions,messages}, "lastWriteAt" (ISO, null when
// nothing was written), "safeTime" (ISO: the applied state it was read
// from)}. messages counts each partition by its worst group (msgCounts).
func (s *server) overview() http.Handler {
	return route(http.StatusOK, s.allStats, func(r *http.Request, st Stats) (any, error) {
		out := struct {
			Queues         int         `json:"queues"`
			Partitions     int         `json:"partitions"`
			Namespaces     int         `json:"namespaces"`
			Tasks          int         `json:"tasks"`
			ConsumerGroups int         `json:"consumerGroups"`
			Messages       msgCounts   `json:"messages"`
			Leases         leaseCounts `json:"leases"`
			LastWriteAt    *string     `json:"lastWriteAt"`
			SafeTime       string      `json:"safeTime"`
		}{Queues: len(st.Queues), Namespaces: len(setsBy(st.Queues, namespaceOf)), Tasks: len(setsBy(st.Queues, taskOf)),
			ConsumerGroups: groupNames(st.Queues), Leases: leasesOf(st.Queues), SafeTime: formatStamp(st.Stamp)}
		var last int64
		for i := range st.Queues {
			out.Partitions += len(st.Queues[i].Partitions)
			out.Messages.add(queueCounts(&st.Queues[i], -1))
			last = max(last, lastWrite(&st.Queues[i]))
		}
		out.LastWriteAt = stampOrNull(last)
		return out, nil
	})
}

func namespaceOf(q *QueueStats) string { return q.Namespace }
func taskOf(q *QueueStats) string      { return q.Task }

// namespaces is GET /api/v1/resources/namespaces: the namespaces the
// tenant's queues carry (the configure option), by name.
//
// Answer 200: {"namespaces":[{namespace,queues,partitions,messages:{…},
// queueNames (by name),lastWriteAt}]}. A queue without a namespace is in
// none; no namespace is {"namespaces":[]}.
func (s *server) namespaces() http.Handler {
	type row struct {
		Namespace string `json:"namespace"`
		queueSet
	}
	return setsRoute(s, "namespaces", namespaceOf, func(set queueSet) row { return row{set.Name, set} })
}

// setsRoute answers {key:[row…]}: a row of each set of the tenant's
// queues by (setsBy), [] for none.
func setsRoute[R any](s *server, key string, by func(*QueueStats) string, row func(queueSet) R) http.Handler {
	return route(http.StatusOK, s.allStats, func(r *http.Request, st Stats) (any, error) {
		out := []R{}
		for _, set := range setsBy(st.Queues, by) {
			out = append(out, row(set))
		}
		return map[string][]R{key: out}, nil
	})
}

// tasks is GET /api/v1/resources/tasks: as namespaces, by the task
// option: {"tasks":[{task,queues,partitions,messages,queueNames,
// lastWriteAt}]}.
func (s *server) tasks() http.Handler {
	type row struct {
		Task string `json:"task"`
		queueSet
	}
	return setsRoute(s, "tasks", taskOf, func(set queueSet) row { return row{set.Name, set} })
}

// partitionRow is one partition of GET /api/v1/resources/partitions.
type partitionRow struct {
	ID          string    `json:"id"`
	PartitionID string    `json:"partitionId"`
	Name        string    `json:"name"`
	Queue       string    `json:"queue"`
	Namespace   string    `json:"namespace"`
	Task        string    `json:"task"`
	CreatedAt   *string   `json:"createdAt"`
	LastOffset  int64     `json:"lastOffset"`
	LogStart    int64     `json:"logStart"`
	LastWriteAt *string   `json:"lastWriteAt"`
	Messages    msgCounts `json:"messages"`
}

func newPartitionRow(q *QueueStats, p *PartitionStats) partitionRow {
	return partitionRow{ID: uuid.UUID(p.ID).String(), PartitionID: p.PartitionID, Name: p.Name, Queue: q.Name,
		Namespace: q.Namespace, Task: q.Task, CreatedAt: stampOrNull(p.Created), LastOffset: p.LastOffset,
		LogStart: p.LogStart, LastWriteAt: stampOrNull(p.LastWrite), Messages: partitionCounts(p, -1)}
}

// partitions is GET /api/v1/resources/partitions?queue=&limit=.
//
// Query: queue (optional: one queue's; an unknown one lists none), limit
// 1..1000 (default 100). Answer 200: {"partitions":[{id (the
// incarnation's UUID), partitionId (decimal), name, queue, namespace,
// task, createdAt, lastOffset (-1 when empty), logStart, lastWriteAt
// (null when never written), messages:{…} (by the worst group)}],
// "truncated"}: by queue name, then creation order; truncated is true
// when the limit left partitions out.
func (s *server) partitions() http.Handler {
	return reply(http.StatusOK, func(r *http.Request) (any, error) {
		p := paramsOf(r)
		queue := p.name("queue", contract.Queue)
		limit := p.integer("limit", contract.ListLimit, DefaultPartitionsLimit)
		if p.err != nil {
			return nil, p.err
		}
		st, err := s.stats(r, queue)
		if err != nil {
			return nil, err
		}
		out := struct {
			Partitions []partitionRow `json:"partitions"`
			Truncated  bool           `json:"truncated"`
		}{Partitions: []partitionRow{}}
		for i := range st.Queues {
			for j := range st.Queues[i].Partitions {
				if int64(len(out.Partitions)) == limit {
					out.Truncated = true
					break
				}
				out.Partitions = append(out.Partitions, newPartitionRow(&st.Queues[i], &st.Queues[i].Partitions[j]))
			}
		}
		return out, nil
	})
}

// depthPartition is one partition of a depth answer.
type depthPartition struct {
	Partition string `json:"partition"`
	Pending   int64  `json:"pending"`
}

// depth is GET /api/v1/resources/queues/:queue/depth?group= (the official
// client's get_queue_depth; consumerGroup is an alias, and both given must
// agree): a queue's backlog per partition, from offsets and cursors only.
//
// Answer 200: {"queue","group" (null when none named),"pending",
// "partitionsPending","conflation":false,"effectivePending",
// "partitions":[{partition,pending}]} with every partition in creation
// order. pending is the records still to settle (leased ones too): the
// named group's, else each partition's worst group's (a partition no
// group reads: all its records). partitionsPending counts the partitions
// whose pending is above 0. This broker does not conflate, so conflation
// is false and effectivePending equals pending.
//
// Errors: 404 queue_not_found (no such queue); 404 not_found for a named
// group that does not read the queue, except __QUEUE_MODE__, which reads
// every queue from its first record and counts all pending until its
// first pop; 400 when group and consumerGroup differ.
func (s *server) depth() http.Handler {
	return route(http.StatusOK, pathQueue, func(r *http.Request, name string) (any, error) {
		p := paramsOf(r)
		group := p.name("group", contract.ConsumerGroup)
		alias := p.name("consumerGroup", contract.ConsumerGroup)
		switch {
		case p.err != nil:
			return nil, p.err
		case group == "":
			group = alias
		case alias != "" && alias != group:
			return nil, badRequest("group %q and consumerGroup %q differ", group, alias)
		}
		st, err := s.queueStats(r, name)
		if err != nil {
			return nil, err
		}
		qs := &st.Queues[0]
		g := -1
		if group != "" {
			if g = groupIndex(qs, group); g < 0 && group != QueueModeGroup {
				return nil, notFound("consumer group %q does not read queue %q", group, name)
			}
			// g < 0 here is queue mode before its first pop: all pending.
			if g < 0 {
				g = len(qs.Groups)
			}
		}
		out := struct {
			Queue             string           `json:"queue"`
			Group             *string          `json:"group"`
			Pending           int64            `json:"pending"`
			PartitionsPending int              `json:"partitionsPending"`
			Conflation        bool             `json:"conflation"`
			EffectivePending  int64            `json:"effectivePending"`
			Partitions        []depthPartition `json:"partitions"`
		}{Queue: name, Group: stringOrNull(group), Partitions: make([]depthPartition, len(qs.Partitions))}
		for i := range qs.Partitions {
			c := partitionCounts(&qs.Partitions[i], g)
			pending := c.Pending + c.Processing
			out.Partitions[i] = depthPartition{Partition: qs.Partitions[i].Name, Pending: pending}
			out.Pending += pending
			if pending > 0 {
				out.PartitionsPending++
			}
		}
		out.EffectivePending = out.Pending
		return out, nil
	})
}
