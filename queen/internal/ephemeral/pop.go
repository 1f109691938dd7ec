package ephemeral

import (
	"context"
	"time"
)

// PopRequest is one pop.
type PopRequest struct {
	Tenant, Queue string
	// Partition "" reads every partition of the queue, round robin per
	// group, so one batch may hold several partitions' messages.
	Partition string
	// Group "" is QueueModeGroup. Each group has its own cursor: the same
	// group shares the messages, another group gets them all again.
	Group string
	// Batch is the most messages to take (≥ 1).
	Batch int
	// Wait, when > 0, long-polls that long for a message (and lets the
	// queue's WindowBuffer fatten the batch).
	Wait time.Duration
	// AutoAck settles the messages as they are delivered: no lease,
	// nothing to ack, at most once.
	AutoAck bool
}

// Message is one delivered message.
type Message struct {
	// ID names this delivery, for the ack (see Ack).
	ID        string
	Partition string
	Payload   []byte
	// Attempts counts this group's deliveries of the message (≥ 1).
	Attempts int
}

// Pop takes up to req.Batch messages for req.Group, oldest first in each
// partition: first the ones given back (nack, expired lease), then new
// ones. It makes the queue and the partition when they are new, and joins
// the group to the queue: from then on the queue holds every message for
// the group until it settles it (or the group is idle for
// Options.IdleAfter, see Sweep). Without a message it answers none at once, or
// after req.Wait; it parks on the queue's wake channel and on the group's
// next lease end, never on a poll loop. A pop whose ctx ends while it
// waits answers none: it took none.
func (s *Store) Pop(ctx context.Context, req PopRequest) []Message {
	if req.Group == "" {
		req.Group = QueueModeGroup
	}
	if req.Batch < 1 {
		req.Batch = 1
	}
	deadline := s.now().Add(req.Wait)
	var windowEnd time.Time
	for {
		s.mu.Lock()
		now := s.now()
		q := s.queueLocked(req.Tenant, req.Queue, now, true)
		mem := q.joinLocked(req.Group, now)
		parts := q.readLocked(req.Partition, mem.rr)
		waiting := req.Wait > 0 && now.Before(deadline)
		hold := false
		if wb := q.opts.WindowBuffer; waiting && wb.Wait > 0 {
			target := req.Batch
			if wb.Count > 0 && wb.Count < target {
				target = wb.Count
			}
			if n := available(parts, req.Group, target); n > 0 && n < target {
				if windowEnd.IsZero() {
					windowEnd = now.Add(wb.Wait)
				}
				hold = now.Before(windowEnd)
			}
		}
		if !hold {
			if out := s.takeLocked(q, parts, req, now); len(out) > 0 || !waiting {
				s.mu.Unlock()
				return out
			}
		}
		until := deadline
		if hold && windowEnd.Before(until) {
			until = windowEnd
		}
		for _, p := range parts {
			if e := p.groups[req.Group].nextExpiry; !e.IsZero() && e.Before(until) {
				until = e
			}
		}
		wake := q.wake
		s.mu.Unlock()

		t := time.NewTimer(max(until.Sub(now), 0))
		select {
		case <-wake:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil
		}
		t.Stop()
	}
}

// readLocked returns the partitions a pop of partition name ("" all)
// reads, all of them starting at the group's round-robin turn rr.
//
// REQUIRES: s.mu held; the group has joined q.
func (q *queue) readLocked(name string, rr int) []*partition {
	if name != "" {
		return []*partition{q.partitionLocked(name, true)}
	}
	n := len(q.parts)
	out := make([]*partition, 0, n)
	for i := range n {
		out = append(out, q.parts[(rr+i)%n])
	}
	return out
}

// available counts up to limit messages the group could take from parts.
func available(parts []*partition, group string, limit int) int {
	n := 0
	for _, p := range parts {
		g := p.groups[group]
		n += len(g.retry) + p.fresh(g)
		if n >= limit {
			return limit
		}
	}
	return n
}

// takeLocked delivers up to req.Batch messages of parts to req.Group.
//
// REQUIRES: s.mu held; parts came from q.readLocked for req.Group.
func (s *Store) takeLocked(q *queue, parts []*partition, req PopRequest, now time.Time) []Message {
	var out []Message
	gh := groupHash(req.Group)
	last := -1
	for i, p := range parts {
		g := p.groups[req.Group]
		took := len(out)
		for len(out) < req.Batch {
			var m *message
			var d *delivery
			if len(g.retry) > 0 {
				seq := g.retry[0]
				m, d = p.find(seq), g.seen[seq]
				if d.attempts > q.opts.RetryLimit {
					s.met.dropped(reasonRetries, 1)
					s.settleLocked(q, p, g, m)
					continue
				}
				g.retry = g.retry[1:]
			} else {
				j := p.index(g.next)
				if j == len(p.msgs) {
					break
				}
				m, d = p.msgs[j], &delivery{}
				g.next = m.seq + 1
				g.seen[m.seq] = d
			}
			d.attempts++
			out = append(out, Message{ID: msgID{s.inc, p.id, m.seq, d.attempts, gh}.String(), Partition: p.name,
				Payload: m.payload, Attempts: d.attempts})
			if req.AutoAck {
				s.settleLocked(q, p, g, m)
			} else {
				g.lease(d, now.Add(q.opts.Lease))
			}
		}
		if len(out) > took {
			last = i
		}
		if len(out) == req.Batch {
			break
		}
	}
	if req.Partition == "" && last >= 0 {
		// The next pop of this group starts after the last partition this
		// one took from.
		mem := q.groups[req.Group]
		mem.rr = (mem.rr + last + 1) % len(q.parts)
	}
	return out
}
