package httpd

import (
	"encoding/json"
	"net/http"

	"github.com/google/uuid"
)

// queueSummary is one queue of GET /api/v1/resources/queues.
type queueSummary struct {
	ID             string  `json:"id"`
	Name           string  `json:"name"`
	Namespace      string  `json:"namespace"`
	Task           string  `json:"task"`
	CreatedAt      *string `json:"createdAt"`
	PartitionCount uint64  `json:"partitionCount"`
}

func newQueueSummary(q QueueSummary) queueSummary {
	return queueSummary{ID: uuid.UUID(q.ID).String(), Name: q.Name, Namespace: q.Namespace, Task: q.Task,
		CreatedAt: stampOrNull(q.Created), PartitionCount: q.PartitionCount}
}

// queueDetail is GET /api/v1/resources/queues/:queue.
type queueDetail struct {
	queueSummary
	Options    json.RawMessage   `json:"options"`
	Partitions []partitionAnswer `json:"partitions"`
	Totals     queueTotals       `json:"totals"`
}

// queueTotals sums a queue's partitions: how many, the records they hold
// (from logStart to lastOffset), and the last write of any.
type queueTotals struct {
	Partitions  int     `json:"partitions"`
	Messages    int64   `json:"messages"`
	LastWriteAt *string `json:"lastWriteAt"`
}

func totalsOf(ps []ChangedPartition) queueTotals {
	t := queueTotals{Partitions: len(ps)}
	var last int64
	for _, p := range ps {
		t.Messages += max(p.LastOffset+1-p.LogStart, 0)
		last = max(last, p.LastWrite)
	}
	t.LastWriteAt = stampOrNull(last)
	return t
}

// queues is GET /api/v1/resources/queues: {"queues":[…]}.
func (s *server) queues() http.Handler {
	return reply(http.StatusOK, func(r *http.Request) (any, error) {
		got, err := s.b.Queues(r.Context(), tenantOf(r))
		out := struct {
			Queues []queueSummary `json:"queues"`
		}{Queues: make([]queueSummary, len(got))}
		for i, q := range got {
			out.Queues[i] = newQueueSummary(q)
		}
		return out, err
	})
}

// queue is GET /api/v1/resources/queues/:queue: the queue's options (with
// defaults), partitions and totals; 404 queue_not_found when there is
// no such queue.
func (s *server) queue() http.Handler {
	return route(http.StatusOK, pathQueue, func(r *http.Request, name string) (any, error) {
		got, ok, err := s.b.Queue(r.Context(), tenantOf(r), name)
		if err != nil || !ok {
			return nil, orMissing(err, queueNotFound(name))
		}
		opts, err := withDefaults(got.Options)
		d := queueDetail{queueSummary: newQueueSummary(got.QueueSummary), Options: opts,
			Partitions: make([]partitionAnswer, len(got.Partitions)), Totals: totalsOf(got.Partitions)}
		for i, p := range got.Partitions {
			d.Partitions[i] = newPartitionAnswer(p)
		}
		return d, err
	})
}

// deleteQueueAnswer is the answer of DELETE /api/v1/resources/queues/:queue.
type deleteQueueAnswer struct {
	Deleted        bool   `json:"deleted"`
	Queue          string `json:"queue"`
	Partitions     int64  `json:"partitions"`
	Messages       int64  `json:"messages"`
	ConsumerGroups int    `json:"consumerGroups"`
	DeadLetters    int    `json:"deadLetters"`
}

// deleteQueue is DELETE /api/v1/resources/queues/:queue (API.md §8,
// admin; the 2.x client's queue(name).delete()): the queue, its
// partitions with their records, every consumer group's cursors, leases
// and subscription on it, its dead letters and its dedup index go, in one
// entry (its cost grows with partitions, groups and dead letters, never
// with records). What the S3 sink wrote stays in the lake. A push after it
// creates the queue anew (default options, new partition ids, offsets
// from 0), and a sink that mirrors the queue reads the new partitions from
// offset 0 in later windows (s3sink's newLife; a sink that restarted from
// its checkpoint in between cannot tell the new life from the old). 200
// {"deleted":true,"queue","partitions","messages","consumerGroups",
// "deadLetters"}; 404 queue_not_found when there is no such queue.
func (s *server) deleteQueue() http.Handler {
	return route(http.StatusOK, pathQueue, func(r *http.Request, name string) (any, error) {
		got, ok, err := s.a.DeleteQueue(r.Context(), tenantOf(r), name)
		if err != nil || !ok {
			return nil, orMissing(err, queueNotFound(name))
		}
		return deleteQueueAnswer{Deleted: true, Queue: name, Partitions: got.Partitions, Messages: got.Messages,
			ConsumerGroups: got.ConsumerGroups, DeadLetters: got.DeadLetters}, nil
	})
}
