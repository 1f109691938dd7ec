package httpd

import (
	"fmt"
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

// overview is GET /api/v1/resources/overview: the tenant's queues summed.
//
// Answer 200: {"queues","partitions","namespaces","tasks","consumerGroups"
// (distinct names), "messages":{total,pending,processing,completed},
// "leases":{active,partitions,messages}, "lastWriteAt" (ISO, null when
// nothing was written), "safeTime" (ISO: the applied state it was read
// from)}. messages counts each partition by its worst group (msgCounts).
func (s *server) overview() http.Handler {
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		st, err := s.stats(r, "")
		if err != nil {
			return err
		}
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
		writeJSON(w, http.StatusOK, out)
		return nil
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
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		st, err := s.stats(r, "")
		if err != nil {
			return err
		}
		type row struct {
			Namespace string `json:"namespace"`
			queueSet
		}
		out := struct {
			Namespaces []row `json:"namespaces"`
		}{Namespaces: []row{}}
		for _, set := range setsBy(st.Queues, namespaceOf) {
			out.Namespaces = append(out.Namespaces, row{set.Name, set})
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	})
}

// tasks is GET /api/v1/resources/tasks: as namespaces, by the task
// option: {"tasks":[{task,queues,partitions,messages,queueNames,
// lastWriteAt}]}.
func (s *server) tasks() http.Handler {
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		st, err := s.stats(r, "")
		if err != nil {
			return err
		}
		type row struct {
			Task string `json:"task"`
			queueSet
		}
		out := struct {
			Tasks []row `json:"tasks"`
		}{Tasks: []row{}}
		for _, set := range setsBy(st.Queues, taskOf) {
			out.Tasks = append(out.Tasks, row{set.Name, set})
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	})
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
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		q, err := queryOf(r)
		if err != nil {
			return err
		}
		queue, err := q.name("queue", contract.Queue)
		if err != nil {
			return err
		}
		limit, _, err := q.integer("limit", contract.ListLimit, DefaultPartitionsLimit)
		if err != nil {
			return err
		}
		st, err := s.stats(r, queue)
		if err != nil {
			return err
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
		writeJSON(w, http.StatusOK, out)
		return nil
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
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		name, err := pathParam(r, "queue", contract.Queue)
		if err != nil {
			return err
		}
		q, err := queryOf(r)
		if err != nil {
			return err
		}
		group, err := q.name("group", contract.ConsumerGroup)
		if err != nil {
			return err
		}
		alias, err := q.name("consumerGroup", contract.ConsumerGroup)
		switch {
		case err != nil:
			return err
		case group == "":
			group = alias
		case alias != "" && alias != group:
			return badRequest("group %q and consumerGroup %q differ", group, alias)
		}
		st, err := s.stats(r, name)
		if err != nil {
			return err
		}
		if len(st.Queues) == 0 {
			return &Error{Status: http.StatusNotFound, Code: CodeQueueNotFound, Message: fmt.Sprintf("queue %q not found", clipped(name))}
		}
		qs := &st.Queues[0]
		g := -1
		if group != "" {
			if g = groupIndex(qs, group); g < 0 && group != QueueModeGroup {
				return notFound("consumer group %q does not read queue %q", group, name)
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
		}{Queue: name, Partitions: make([]depthPartition, len(qs.Partitions))}
		if group != "" {
			out.Group = &group
		}
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
		writeJSON(w, http.StatusOK, out)
		return nil
	})
}
