package httpd

import (
	"fmt"
	"net/http"
)

// The ephemeral routes. API.md names only POST /api/v1/ephemeral/push
// (write-only, §0); the rest of the family, its bodies and its answers are
// what the official client (queen-mq 2.6.0, queen/ephemeral) sends and
// reads. Every route answers from the memory of the node called: no
// route waits for raft, so they all work on a follower, and while the
// cluster has no leader, exactly as on the leader. Names are checked as
// everywhere (queue, partition and group as contract's Queue, Partition
// and ConsumerGroup; ids as ID): 413 name_too_long or 400 naming the
// field. The tenant is the request's (x-queen-tenant under
// QUEEN_TENANCY_HEADER), as on every /api route.
//
// POST /api/v1/ephemeral/push (write-only)
//
//	req  {"queue", "partition"?, "messages":[{"payload"}…]}
//	201  {"queue", "partition", "pushed"}
//
// partition absent, null or "" is "Default". messages is non-empty; each
// is an object whose payload (any JSON, null too) is required and kept
// byte for byte; other members are ignored. All or nothing. Errors: 429
// overloaded (Retry-After: 1) when it does not fit now: the node's
// QUEEN_EPHEMERAL_MAX_BYTES, or the queue's maxBytes or maxLength under
// policy reject; 413 payload_too_large when it can never fit (its bytes,
// each message's payload plus 128, over the node's cap or the queue's
// maxBytes, or its count over maxLength).
//
// GET /api/v1/ephemeral/pop?queue=&partition=&group=&batch=&wait=&timeout=&autoAck=
//
//	200  {"queue", "group", "messages":[{"id","partition","payload","attempts"}…]}
//
// Always 200: messages is [] when there was nothing. queue is required;
// partition absent reads every partition (round robin per group);
// group absent is __QUEUE_MODE__ (consumerGroup is its alias; both given
// must agree); batch 1..10000 (default 1); wait true long-polls up to
// timeout ms (0..60000, clamped; default 30000); autoAck=true (or
// commitOnDelivery=true; both given must agree) settles at delivery.
// Query values read as pop's do (exact true|false and digits; empty is
// absent; the first of repeated ones counts; unknown ones are ignored).
// HEAD is 404: a pop leases. id names the delivery and goes back in the
// ack; attempts counts the group's deliveries of the message.
//
// POST /api/v1/ephemeral/ack
//
//	req  {"queue", "group"?, "acks":[{"id", "status"?, "error"?}…]}
//	200  {"queue", "group", "results":[{"id","outcome"}…]}
//
// 1..10000 acks; status completed (absent or null), failed or retry
// (exact case; anything else is 400 naming acks[i].status); error a
// string, kept nowhere. outcome: acked; redelivered (failed or retry:
// delivered again with attempts+1, or dropped and counted once the
// queue's retryLimit is spent: no DLQ); stale (an id from before this
// node's restart, or the queue's reset or delete); unknown (anything
// else: settled, dropped, delivered again since, another group's, or not
// an id of ours). An outcome is an answer, never an error status.
//
// POST /api/v1/ephemeral/configure
//
//	req  {"queue", "options"?:{"maxBytes","maxLength","policy","ttlSeconds","leaseSeconds","retryLimit","windowBuffer":{"ms","count"}}}
//	200  {"configured":true, "queue", "options":{all seven}}
//
// Declares the queue and merges the options given (absent and null keep
// the queue's value, a new queue's is the default): maxBytes (default 0:
// the node's cap only), maxLength (0: none), policy reject (default) or
// drop_oldest, ttlSeconds (0: never), leaseSeconds (1..604800, default
// 30), retryLimit (default 3), windowBuffer {ms (0: off), count (0: the
// pop's batch)}; ranges in contract/LIMITS.md. An unknown option is 400
// naming it, as the client refuses one. The options live in the node's
// memory with the messages: a restart forgets them.
//
// POST /api/v1/ephemeral/reset
//
//	req  {"queue"}
//	200  {"queue", "dropped"}
//
// Drops every message, ends every lease, rewinds every group; options and
// groups stay. An absent queue answers dropped 0 and is not made.
//
// DELETE /api/v1/ephemeral/queue/:queue
//
//	200  {"queue", "deleted"}
//
// Forgets the queue: messages, groups and options; deleted false when
// there was none. Any body is ignored.
//
// GET /api/v1/ephemeral/queues
//
//	200  {"queues":[{"queue","declared","messages","bytes","inflight","partitionCount","groupCount"}…]}
//
// The tenant's queues on this node, by name: declared ones and those a
// push or a pop made.
//
// GET /api/v1/ephemeral/queues/:queue/depth
//
//	200  {"queue","declared","messages","bytes","inflight","partitionCount","groupCount","options":{…},
//	      "partitions":[{"partition","messages","bytes","groups":[{"group","pending","inflight"}…]}…],
//	      "groups":[{"group","pending","inflight"}…]}
//	404  {"error":"…","code":"ephemeral_queue_not_found"}
//
// The only ephemeral route that says a queue is not there.
//
// They are registered in the route table (routes_api.go).

func (s *server) ephemeralPush() http.Handler {
	return route(http.StatusCreated, bodyOf(s, decodeEphemeralPush), func(r *http.Request, req EphemeralPush) (any, error) {
		n, err := s.e.EphemeralPush(r.Context(), tenantOf(r), req)
		return struct {
			Queue     string `json:"queue"`
			Partition string `json:"partition"`
			Pushed    int    `json:"pushed"`
		}{req.Queue, req.Partition, n}, err
	})
}

func (s *server) ephemeralPop() http.Handler {
	read := func(r *http.Request) (EphemeralPop, error) { return decodeEphemeralPop(r.URL.RawQuery) }
	return route(http.StatusOK, read, func(r *http.Request, req EphemeralPop) (rawJSON, error) {
		got, err := s.e.EphemeralPop(r.Context(), tenantOf(r), req)
		if err != nil {
			return nil, err
		}
		if len(got) > req.Batch {
			return nil, fmt.Errorf("httpd: ephemeral pop answered %d messages for a batch of %d", len(got), req.Batch)
		}
		b := append([]byte(`{"queue":`), appendString(nil, req.Queue)...)
		b = append(append(b, `,"group":`...), appendString(nil, req.Group)...)
		b = appendEach(append(b, `,"messages":[`...), got, appendEphemeralMessage)
		return append(b, "]}\n"...), nil
	})
}

// appendEphemeralMessage renders one popped ephemeral message; its
// payload is written as pushed.
func appendEphemeralMessage(b []byte, m *EphemeralMessage) []byte {
	b = append(b, '{')
	b = appendField(b, "id", m.ID)
	b = appendField(b, "partition", m.Partition)
	b = appendKey(b, "payload")
	b = appendRaw(b, m.Payload)
	b = append(b, `,"attempts":`...)
	b = appendInt(b, int64(m.Attempts))
	return append(b, '}')
}

// ephemeralResult is one element of an ephemeral ack's results.
type ephemeralResult struct {
	ID      string `json:"id"`
	Outcome string `json:"outcome"`
}

func (s *server) ephemeralAck() http.Handler {
	return route(http.StatusOK, bodyOf(s, decodeEphemeralAck), func(r *http.Request, req EphemeralAck) (any, error) {
		got, err := s.e.EphemeralAck(r.Context(), tenantOf(r), req)
		if err != nil {
			return nil, err
		}
		if len(got) != len(req.Acks) {
			return nil, fmt.Errorf("httpd: ephemeral ack answered %d outcomes for %d acks", len(got), len(req.Acks))
		}
		out := make([]ephemeralResult, len(got))
		for i, o := range got {
			out[i] = ephemeralResult{ID: req.Acks[i].ID, Outcome: o}
		}
		return struct {
			Queue   string            `json:"queue"`
			Group   string            `json:"group"`
			Results []ephemeralResult `json:"results"`
		}{req.Queue, req.Group, out}, nil
	})
}

func (s *server) ephemeralConfigure() http.Handler {
	return route(http.StatusOK, bodyOf(s, decodeEphemeralConfigure), func(r *http.Request, req EphemeralConfigure) (any, error) {
		opts, err := s.e.EphemeralConfigure(r.Context(), tenantOf(r), req)
		return struct {
			Configured bool             `json:"configured"`
			Queue      string           `json:"queue"`
			Options    EphemeralOptions `json:"options"`
		}{true, req.Queue, opts}, err
	})
}

func (s *server) ephemeralReset() http.Handler {
	read := bodyOf(s, func(body []byte) (queue string, err error) {
		_, err = queueBody(body, &queue)
		return queue, err
	})
	return route(http.StatusOK, read, func(r *http.Request, queue string) (any, error) {
		n, err := s.e.EphemeralReset(r.Context(), tenantOf(r), queue)
		return struct {
			Queue   string `json:"queue"`
			Dropped int    `json:"dropped"`
		}{queue, n}, err
	})
}

func (s *server) ephemeralDelete() http.Handler {
	return route(http.StatusOK, pathQueue, func(r *http.Request, queue string) (any, error) {
		ok, err := s.e.EphemeralDelete(r.Context(), tenantOf(r), queue)
		return struct {
			Queue   string `json:"queue"`
			Deleted bool   `json:"deleted"`
		}{queue, ok}, err
	})
}

func (s *server) ephemeralQueues() http.Handler {
	return reply(http.StatusOK, func(r *http.Request) (any, error) {
		got, err := s.e.EphemeralQueues(r.Context(), tenantOf(r))
		return struct {
			Queues []EphemeralQueue `json:"queues"`
		}{orEmpty(got)}, err
	})
}

func (s *server) ephemeralDepth() http.Handler {
	return route(http.StatusOK, pathQueue, func(r *http.Request, queue string) (any, error) {
		d, ok, err := s.e.EphemeralDepth(r.Context(), tenantOf(r), queue)
		if err != nil || !ok {
			return nil, orMissing(err, &Error{Status: http.StatusNotFound, Code: CodeEphemeralQueueNotFound,
				Message: fmt.Sprintf("ephemeral queue %q does not exist on this node", clipped(queue))})
		}
		d.Queue = queue
		parts := make([]EphemeralPartitionDepth, len(d.Partitions))
		for i, p := range d.Partitions {
			p.Groups = orEmpty(p.Groups)
			parts[i] = p
		}
		return struct {
			EphemeralQueue
			Options    EphemeralOptions          `json:"options"`
			Partitions []EphemeralPartitionDepth `json:"partitions"`
			Groups     []EphemeralGroupDepth     `json:"groups"`
		}{d.EphemeralQueue, d.Options, parts, orEmpty(d.Groups)}, nil
	})
}
