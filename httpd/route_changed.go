package httpd

import (
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/contract"
)

// MaxChangedLimit is partitions/changed's default and largest limit.
const MaxChangedLimit = 1000

// changedAnswer is the answer of POST /api/v1/partitions/changed.
type changedAnswer struct {
	SafeTime         string         `json:"safeTime"`
	SafeTimeDegraded bool           `json:"safeTimeDegraded"`
	Entries          []changedEntry `json:"entries"`
}

type changedEntry struct {
	Queue      string            `json:"queue"`
	Partitions []partitionAnswer `json:"partitions"`
	Next       *string           `json:"next"`
	Error      string            `json:"error,omitempty"`
}

// partitionAnswer is one partition, as partitions/changed and the queue
// detail show it. LastWriteAt is null for a partition never written.
type partitionAnswer struct {
	Name        string  `json:"name"`
	ID          string  `json:"id"`
	LastOffset  int64   `json:"lastOffset"`
	LogStart    int64   `json:"logStart"`
	LastWriteAt *string `json:"lastWriteAt"`
}

func newPartitionAnswer(p ChangedPartition) partitionAnswer {
	return partitionAnswer{Name: p.Name, ID: uuid.UUID(p.ID).String(), LastOffset: p.LastOffset, LogStart: p.LogStart,
		LastWriteAt: stampOrNull(p.LastWrite)}
}

// partitionsChanged is POST /api/v1/partitions/changed: pages of the
// partitions of queues written since a time, and this node's safeTime
// (asked of the broker even when there are no entries).
func (s *server) partitionsChanged() http.Handler {
	return route(http.StatusOK, bodyOf(s, decodeChanged), func(r *http.Request, qs []ChangedQuery) (any, error) {
		got, err := s.b.PartitionsChanged(r.Context(), tenantOf(r), qs)
		if err != nil {
			return nil, err
		}
		if len(got.Entries) != len(qs) {
			return nil, fmt.Errorf("httpd: broker answered %d changed entries for %d", len(got.Entries), len(qs))
		}
		out := changedAnswer{SafeTime: formatStamp(got.SafeTime), Entries: make([]changedEntry, len(qs))}
		for i, e := range got.Entries {
			ce := changedEntry{Queue: e.Queue, Partitions: make([]partitionAnswer, len(e.Partitions)), Error: e.Error}
			for j, p := range e.Partitions {
				ce.Partitions[j] = newPartitionAnswer(p)
			}
			ce.Next = stringOrNull(e.Next)
			out.Entries[i] = ce
		}
		return out, nil
	})
}

// decodeChanged checks and defaults a partitions/changed body, which must
// be valid JSON.
func decodeChanged(body []byte) ([]ChangedQuery, error) {
	return decodeEntriesOf(body, func(o object, path string, q *ChangedQuery) (err error) {
		if q.Queue, err = queueOf(o, path); err != nil {
			return err
		}
		since, ok, err := o.str("since", path+".since")
		if err != nil {
			return err
		}
		if ok {
			us, err := parseISO(since)
			if err != nil {
				return badRequest("%s.since %v", path, err)
			}
			q.Since = &us
		}
		if q.After, err = o.name("after", path+".after", contract.ID); err != nil {
			return err
		}
		limit, _, err := o.integer("limit", path+".limit", contract.ChangedLimit, MaxChangedLimit)
		q.Limit = int(limit)
		return err
	})
}
