package ephemeral

import "time"

// PushRequest is one push: its payloads, in order, to one partition.
type PushRequest struct {
	Tenant, Queue string
	// Partition "" is DefaultPartition.
	Partition string
	// Payloads are JSON texts, held as given (the store keeps these
	// slices: the caller must not change them after).
	Payloads [][]byte
}

// PushAnswer answers a push.
type PushAnswer struct {
	Partition string
	Pushed    int
}

// Push appends the payloads to the partition, all or none, making the
// queue and the partition when they are new.
//
// A push that could never fit (its bytes over the node's cap or the
// queue's maxBytes, its count over maxLength) is a *TooLargeError. One
// that does not fit now is a *FullError: over the queue's own bound under
// PolicyReject, or over the node's cap when drop_oldest cannot make room
// from the queue's own messages. A push of no payloads pushes nothing.
func (s *Store) Push(req PushRequest) (PushAnswer, error) {
	if req.Partition == "" {
		req.Partition = DefaultPartition
	}
	a := PushAnswer{Partition: req.Partition}
	if len(req.Payloads) == 0 {
		return a, nil
	}
	var size int64
	for _, p := range req.Payloads {
		size += int64(len(p)) + MessageOverhead
	}
	n := int64(len(req.Payloads))
	now := s.now()

	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queueLocked(req.Tenant, req.Queue, now, true)
	o := q.opts
	switch {
	case size > s.maxBytes:
		return a, &TooLargeError{Queue: req.Queue, Bound: BoundNode, Max: s.maxBytes, Need: size}
	case o.MaxBytes > 0 && size > o.MaxBytes:
		return a, &TooLargeError{Queue: req.Queue, Bound: BoundQueueBytes, Max: o.MaxBytes, Need: size}
	case o.MaxLength > 0 && n > o.MaxLength:
		return a, &TooLargeError{Queue: req.Queue, Bound: BoundQueueLength, Max: o.MaxLength, Need: n}
	}
	overQueue := func(bytes, count int64) *FullError {
		switch {
		case o.MaxBytes > 0 && q.bytes-bytes+size > o.MaxBytes:
			return &FullError{Queue: req.Queue, Bound: BoundQueueBytes, Held: q.bytes - bytes, Max: o.MaxBytes, Need: size}
		case o.MaxLength > 0 && q.count-count+n > o.MaxLength:
			return &FullError{Queue: req.Queue, Bound: BoundQueueLength, Held: q.count - count, Max: o.MaxLength, Need: n}
		}
		return nil
	}
	overNode := func(bytes int64) *FullError {
		if s.bytes-bytes+size > s.maxBytes {
			return &FullError{Queue: req.Queue, Bound: BoundNode, Held: s.bytes - bytes, Max: s.maxBytes, Need: size}
		}
		return nil
	}
	var evict []victim
	if o.Policy == PolicyDropOldest {
		evict = s.planEvictions(q, func(bytes, count int64) bool { return overQueue(bytes, count) != nil || overNode(bytes) != nil })
	}
	var freed, dropped int64
	for _, v := range evict {
		freed += v.m.size
		dropped++
	}
	if e := overQueue(freed, dropped); e != nil {
		s.met.refused(reasonQueue)
		return a, e
	}
	if e := overNode(freed); e != nil {
		s.met.refused(reasonFull)
		s.warnFull(now, e)
		return a, e
	}
	for _, v := range evict {
		s.evictLocked(q, v.p, v.m, reasonOverflow)
	}
	p := q.partitionLocked(req.Partition, true)
	for _, payload := range req.Payloads {
		s.seq++
		m := &message{seq: s.seq, at: now, payload: payload, size: int64(len(payload)) + MessageOverhead, holds: len(p.groups)}
		p.msgs = append(p.msgs, m)
		p.live++
		q.bytes += m.size
		q.count++
		s.bytes += m.size
		s.messages++
	}
	q.notify()
	a.Pushed = len(req.Payloads)
	return a, nil
}

// victim is a message a push will drop to make room.
type victim struct {
	p *partition
	m *message
}

// planEvictions lists q's oldest messages, oldest first across its
// partitions (by seq), until over(bytes, count) of them is false or q has
// no more. It changes nothing.
//
// REQUIRES: s.mu held.
func (s *Store) planEvictions(q *queue, over func(bytes, count int64) bool) []victim {
	pos := make([]int, len(q.parts))
	var out []victim
	var bytes, count int64
	for over(bytes, count) {
		best := -1
		var bm *message
		for i, p := range q.parts {
			for pos[i] < len(p.msgs) && p.msgs[pos[i]].freed {
				pos[i]++
			}
			if pos[i] < len(p.msgs) && (bm == nil || p.msgs[pos[i]].seq < bm.seq) {
				best, bm = i, p.msgs[pos[i]]
			}
		}
		if bm == nil {
			return out
		}
		pos[best]++
		out = append(out, victim{q.parts[best], bm})
		bytes += bm.size
		count++
	}
	return out
}

// warnFull logs the node's cap refusing a push, at most once a minute.
//
// REQUIRES: s.mu held.
func (s *Store) warnFull(now time.Time, e *FullError) {
	if !s.warned.IsZero() && now.Sub(s.warned) < time.Minute {
		return
	}
	s.warned = now
	s.log.Warn("ephemeral memory full: pushes are refused (429) until consumers ack", keyHeld, e.Held,
		keyMaxBytes, e.Max, keyNeed, e.Need)
}
