package ephemeral

// Status is what an ack says of a delivered message.
type Status int

// The statuses of an ack.
const (
	// Completed settles the message for the group: never delivered to it
	// again.
	Completed Status = iota
	// Failed and Retry give it back now, to be delivered again with
	// attempts+1, unless the group has spent its retryLimit on it: then
	// it is dropped (and counted) instead of being delivered again.
	Failed
	Retry
)

// Outcome is what an ack did.
type Outcome string

// The outcomes of an ack. Stale and Unknown are answers, not errors.
const (
	// Acked: the delivery was the group's latest and the message is
	// settled for the group.
	Acked Outcome = "acked"
	// Redelivered: the message was given back (it already was, when its
	// lease had ended).
	Redelivered Outcome = "redelivered"
	// Stale: the id belongs to an earlier ring: another incarnation of
	// this node's store (a restart), or the queue's life before a reset
	// or a delete.
	Stale Outcome = "stale"
	// Unknown: the id is not a delivery the group holds now: settled,
	// dropped, delivered again since (an older attempt), given to another
	// group, or never this broker's.
	Unknown Outcome = "unknown"
)

// AckRequest settles deliveries of one queue for one group.
type AckRequest struct {
	Tenant, Queue string
	// Group "" is QueueModeGroup; it must be the group the pop named.
	Group string
	Acks  []Ack
}

// Ack is one delivery to settle.
type Ack struct {
	ID     string
	Status Status
}

// Ack settles each delivery in order and answers each one's outcome. It
// never makes a queue. The ack of the latest delivery settles it even
// after its lease ended, as long as it was not delivered again.
func (s *Store) Ack(req AckRequest) []Outcome {
	if req.Group == "" {
		req.Group = QueueModeGroup
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queueLocked(req.Tenant, req.Queue, now, false)
	if q != nil && q.groups[req.Group] != nil {
		q.groups[req.Group].seen = now
	}
	gh := groupHash(req.Group)
	out := make([]Outcome, len(req.Acks))
	back := false
	for i, a := range req.Acks {
		id, ok := parseID(a.ID)
		switch {
		case !ok:
			out[i] = Unknown
		case id.inc != s.inc:
			out[i] = Stale
		case q == nil || id.seq <= q.floor:
			out[i] = Stale
		case id.group != gh:
			out[i] = Unknown
		default:
			var r bool
			out[i], r = s.ackLocked(q, id, req.Group, a.Status)
			back = back || r
		}
	}
	if back {
		q.notify()
	}
	return out
}

// ackLocked settles one delivery of q; back is true when a message was
// given back.
//
// REQUIRES: s.mu held.
func (s *Store) ackLocked(q *queue, id msgID, group string, st Status) (o Outcome, back bool) {
	if int(id.pid) >= len(q.parts) {
		return Unknown, false
	}
	p := q.parts[id.pid]
	g := p.groups[group]
	if g == nil {
		return Unknown, false
	}
	d := g.seen[id.seq]
	if d == nil || d.attempts != id.attempt {
		return Unknown, false
	}
	if st == Completed {
		s.settleLocked(q, p, g, p.find(id.seq))
		return Acked, false
	}
	if !d.leased {
		return Redelivered, false
	}
	d.leased = false
	g.release(id.seq)
	return Redelivered, true
}
