package httpd

import (
	"math"
	"net/http"

	"github.com/queen-mq/queen-go/contract"
)

// groupSummary is one group of GET /api/v1/consumer-groups[/lagging]: its
// queues, and lag, the sum of theirs.
type groupSummary struct {
	Name   string              `json:"name"`
	Queues []groupQueueSummary `json:"queues"`
	Lag    int64               `json:"lag"`
}

// groupQueueSummary is one queue of a groupSummary; Partitions counts the
// partitions the broker shows.
type groupQueueSummary struct {
	Queue            string `json:"queue"`
	SubscribedAt     string `json:"subscribedAt"`
	SubscriptionMode string `json:"subscriptionMode"`
	Lag              int64  `json:"lag"`
	Partitions       int    `json:"partitions"`
}

// groupDetail is GET /api/v1/consumer-groups/:group.
type groupDetail struct {
	Name   string             `json:"name"`
	Queues []groupQueueDetail `json:"queues"`
}

// groupQueueDetail is one queue of a groupDetail, with its partitions.
type groupQueueDetail struct {
	Queue            string                 `json:"queue"`
	SubscribedAt     string                 `json:"subscribedAt"`
	SubscriptionMode string                 `json:"subscriptionMode"`
	Lag              int64                  `json:"lag"`
	Partitions       []groupPartitionAnswer `json:"partitions"`
}

// groupPartitionAnswer is one partition of a groupQueueDetail. Lag is
// highWatermark−cursor, at least 0; LeaseID and LeaseExpiresAt are null
// when the broker gives none.
type groupPartitionAnswer struct {
	Partition      string  `json:"partition"`
	Cursor         int64   `json:"cursor"`
	HighWatermark  int64   `json:"highWatermark"`
	Lag            int64   `json:"lag"`
	LeaseID        *string `json:"leaseId"`
	LeaseExpiresAt *string `json:"leaseExpiresAt"`
}

// deleteGroupAnswer is the answer of a consumer group's deletion.
type deleteGroupAnswer struct {
	Deleted       bool   `json:"deleted"`
	ConsumerGroup string `json:"consumerGroup"`
	Queues        int    `json:"queues"`
}

// seekAnswer is the answer of a seek: how many partitions moved.
type seekAnswer struct {
	Success       bool   `json:"success"`
	ConsumerGroup string `json:"consumerGroup"`
	Queue         string `json:"queue"`
	Partitions    int    `json:"partitions"`
}

// groupLag is the sum of g's queues' lags (saturating).
func groupLag(g *GroupInfo) int64 {
	var sum int64
	for _, q := range g.Queues {
		if q.Lag > 0 && sum > math.MaxInt64-q.Lag {
			return math.MaxInt64
		}
		sum += q.Lag
	}
	return sum
}

func newGroupSummary(g *GroupInfo) groupSummary {
	a := groupSummary{Name: g.Name, Queues: make([]groupQueueSummary, len(g.Queues)), Lag: groupLag(g)}
	for i, q := range g.Queues {
		a.Queues[i] = groupQueueSummary{Queue: q.Queue, SubscribedAt: formatStamp(q.SubscribedAt),
			SubscriptionMode: q.SubscriptionMode, Lag: q.Lag, Partitions: len(q.Partitions)}
	}
	return a
}

// groupsAnswer is the groups of gs whose lag is at least minLag, in the
// broker's order.
func groupsAnswer(gs []GroupInfo, minLag int64) any {
	out := struct {
		ConsumerGroups []groupSummary `json:"consumerGroups"`
	}{ConsumerGroups: make([]groupSummary, 0, len(gs))}
	for i := range gs {
		if a := newGroupSummary(&gs[i]); a.Lag >= minLag {
			out.ConsumerGroups = append(out.ConsumerGroups, a)
		}
	}
	return out
}

// consumerGroups is GET /api/v1/consumer-groups: every group of the
// tenant, with its queues.
func (s *server) consumerGroups() http.Handler {
	return reply(http.StatusOK, func(r *http.Request) (any, error) {
		gs, err := s.a.ConsumerGroups(r.Context(), tenantOf(r))
		return groupsAnswer(gs, math.MinInt64), err
	})
}

// laggingGroups is GET /api/v1/consumer-groups/lagging?minLag=N: the
// groups whose total lag is at least N (an integer ≥ 0, default 1).
func (s *server) laggingGroups() http.Handler {
	read := queryFor(func(q query) (int64, error) {
		n, _, err := q.integer("minLag", contract.GroupMinLag, 1)
		return n, err
	})
	return route(http.StatusOK, read, func(r *http.Request, minLag int64) (any, error) {
		gs, err := s.a.ConsumerGroups(r.Context(), tenantOf(r))
		return groupsAnswer(gs, minLag), err
	})
}

// consumerGroup is GET /api/v1/consumer-groups/:group: the group's
// queues and its position on each of their partitions; 404 not_found when
// it reads no queue.
func (s *server) consumerGroup() http.Handler {
	return route(http.StatusOK, pathGroup, func(r *http.Request, name string) (any, error) {
		g, ok, err := s.a.ConsumerGroup(r.Context(), tenantOf(r), name)
		if err != nil || !ok {
			return nil, orMissing(err, notFound("consumer group %q not found", name))
		}
		d := groupDetail{Name: g.Name, Queues: make([]groupQueueDetail, len(g.Queues))}
		if d.Name == "" {
			d.Name = name
		}
		for i, q := range g.Queues {
			qd := groupQueueDetail{Queue: q.Queue, SubscribedAt: formatStamp(q.SubscribedAt),
				SubscriptionMode: q.SubscriptionMode, Lag: q.Lag,
				Partitions: make([]groupPartitionAnswer, len(q.Partitions))}
			for j, p := range q.Partitions {
				qd.Partitions[j] = newGroupPartitionAnswer(p)
			}
			d.Queues[i] = qd
		}
		return d, nil
	})
}

// pathGroup reads the path's consumer :group.
var pathGroup = pathOf("group", contract.ConsumerGroup)

func newGroupPartitionAnswer(p GroupPartition) groupPartitionAnswer {
	return groupPartitionAnswer{Partition: p.Partition, Cursor: p.Cursor, HighWatermark: p.HighWatermark,
		Lag: max(p.HighWatermark-p.Cursor, 0), LeaseID: stringOrNull(p.LeaseID), LeaseExpiresAt: stampOrNull(p.LeaseExpiresAt)}
}

// deleteGroup is DELETE /api/v1/consumer-groups/:group and, when onQueue
// is true, DELETE /api/v1/consumer-groups/:group/queues/:queue: 200 with
// how many queues the group was forgotten on, 404 not_found when none.
func (s *server) deleteGroup(onQueue bool) http.Handler {
	return route(http.StatusOK, pathGroup, func(r *http.Request, group string) (any, error) {
		var queue string
		var err error
		if onQueue {
			if queue, err = pathParam(r, "queue", contract.Queue); err != nil {
				return nil, err
			}
		}
		q, err := queryOf(r)
		if err != nil {
			return nil, err
		}
		del, given, err := q.boolean("deleteMetadata")
		if err != nil {
			return nil, err
		}
		n, err := s.a.DeleteConsumerGroup(r.Context(), tenantOf(r), group, queue, given && !del)
		switch {
		case err != nil:
			return nil, err
		case n == 0 && onQueue:
			return nil, notFound("consumer group %q does not read queue %q", group, queue)
		case n == 0:
			return nil, notFound("consumer group %q not found", group)
		}
		return deleteGroupAnswer{Deleted: true, ConsumerGroup: group, Queues: n}, nil
	})
}

// subscriptionAnswer is the answer of POST
// /api/v1/consumer-groups/:group/subscription.
type subscriptionAnswer struct {
	Success               bool   `json:"success"`
	ConsumerGroup         string `json:"consumerGroup"`
	SubscriptionTimestamp string `json:"subscriptionTimestamp"`
	Queues                int    `json:"queues"`
}

// setSubscription is POST /api/v1/consumer-groups/:group/subscription
// {"subscriptionTimestamp":"<ISO>"} (the 2.x client's
// update_consumer_group_timestamp; API.md names the route only): on every
// queue the group reads, a partition it has not read yet starts at the
// first record stamped at or after that time; cursors it has stay. 200
// {"success":true,"consumerGroup","subscriptionTimestamp" (as the broker
// read it),"queues"}; 404 not_found when the group reads no queue; 400
// when the time is missing or not ISO-8601.
func (s *server) setSubscription() http.Handler {
	return route(http.StatusOK, pathGroup, func(r *http.Request, group string) (any, error) {
		o, err := s.bodyObject(r)
		if err != nil {
			return nil, err
		}
		ts, ok, err := o.str("subscriptionTimestamp", "subscriptionTimestamp")
		if err != nil {
			return nil, err
		}
		if !ok || ts == "" {
			return nil, badRequest("subscriptionTimestamp is required")
		}
		us, err := parseISO(ts)
		if err != nil {
			return nil, badRequest("subscriptionTimestamp %q must be an ISO-8601 time", ts)
		}
		us = max(us, 1) // 0 is "unset" to the broker: the epoch reads as its first µs
		n, err := s.a.SetSubscription(r.Context(), tenantOf(r), group, us)
		switch {
		case err != nil:
			return nil, err
		case n == 0:
			return nil, notFound("consumer group %q reads no queue", group)
		}
		return subscriptionAnswer{Success: true, ConsumerGroup: group, SubscriptionTimestamp: formatStamp(us), Queues: n}, nil
	})
}

// seekGroup is POST /api/v1/consumer-groups/:group/queues/:queue/seek
// and, when partitioned is true, …/partitions/:partition/seek, with body
// {"timestamp":"<ISO>"} or {"toEnd":true}: 200 with how many partitions
// moved.
func (s *server) seekGroup(partitioned bool) http.Handler {
	read := func(r *http.Request) (SeekRequest, error) {
		var req SeekRequest
		var err error
		if req.Group, err = pathParam(r, "group", contract.ConsumerGroup); err != nil {
			return req, err
		}
		if req.Queue, err = pathParam(r, "queue", contract.Queue); err != nil {
			return req, err
		}
		if partitioned {
			if req.Partition, err = pathParam(r, "partition", contract.Partition); err != nil {
				return req, err
			}
		}
		body, err := s.body(r)
		if err != nil {
			return req, err
		}
		req.ToEnd, req.To, err = decodeSeek(body)
		return req, err
	}
	return route(http.StatusOK, read, func(r *http.Request, req SeekRequest) (any, error) {
		n, err := s.a.SeekConsumerGroup(r.Context(), tenantOf(r), req)
		return seekAnswer{Success: true, ConsumerGroup: req.Group, Queue: req.Queue, Partitions: n}, err
	})
}

// decodeSeek reads a seek's body, which must be valid JSON: exactly one
// of timestamp (ISO-8601, as parseISO reads it; a time before the epoch
// reads as the epoch) and toEnd true. toEnd false reads as absent, and
// unknown members are ignored.
func decodeSeek(body []byte) (toEnd bool, to int64, err error) {
	o, err := asObject(body, "the body")
	if err != nil {
		return false, 0, err
	}
	end, _, err := o.boolean("toEnd", "toEnd")
	if err != nil {
		return false, 0, err
	}
	ts, ok, err := o.str("timestamp", "timestamp")
	switch {
	case err != nil:
		return false, 0, err
	case end && ok:
		return false, 0, badRequest("timestamp %q and toEnd true cannot both be given", ts)
	case end:
		return true, 0, nil
	case !ok:
		return false, 0, badRequest("timestamp or toEnd true is required")
	}
	us, err := parseISO(ts)
	if err != nil {
		return false, 0, badRequest("timestamp %q must be an ISO-8601 time", ts)
	}
	return false, max(us, 0), nil
}
