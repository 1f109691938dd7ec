package ephemeral

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/queen-mq/queen-go/queen/internal/tick"
)

// Configure declares the queue (making it when new) and changes its
// options by patch; it answers the options now in force. Bounds apply
// from the next push, a lease from the next pop. An option out of its
// range is an error wrapping ErrBadOption, and nothing changes.
func (s *Store) Configure(tenant, queue string, patch Patch) (QueueOptions, error) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queues[qkey{tenant, queue}]
	o := DefaultQueueOptions()
	if q != nil {
		o = q.opts
	}
	o, err := patch.apply(o)
	if err != nil {
		return o, err
	}
	q = s.queueLocked(tenant, queue, now, true)
	q.opts, q.declared = o, true
	s.expireLocked(q, now) // a shorter TTL applies now
	return o, nil
}

// Reset drops every message of the queue, ends every lease and moves
// every group's cursor back to the start of the (empty) ring; the options
// stay. Acks of earlier deliveries answer Stale. It answers how many
// messages it dropped; an absent queue drops 0 and is not made.
func (s *Store) Reset(tenant, queue string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queues[qkey{tenant, queue}]
	if q == nil {
		return 0
	}
	n := s.dropAllLocked(q)
	for _, p := range q.parts {
		for _, g := range p.groups {
			*g = group{seen: map[uint64]*delivery{}}
		}
	}
	for _, m := range q.groups {
		m.rr = 0
	}
	q.floor = s.seq
	s.log.Info("ephemeral queue reset", keyTenant, tenant, keyQueue, queue, keyDropped, n)
	return n
}

// Delete forgets the queue: messages, groups and options. Waiting pops
// wake and find it new. deleted is false when there was none.
func (s *Store) Delete(tenant, queue string) (deleted bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queues[qkey{tenant, queue}]
	if q == nil {
		return false
	}
	n := s.dropAllLocked(q)
	s.forgetLocked(q)
	s.log.Info("ephemeral queue deleted", keyTenant, tenant, keyQueue, queue, keyDropped, n)
	return true
}

// dropAllLocked drops every message of q.
//
// REQUIRES: s.mu held.
func (s *Store) dropAllLocked(q *queue) int {
	n := int(q.count)
	for _, p := range q.parts {
		for _, m := range p.msgs {
			if !m.freed {
				m.freed, m.payload = true, nil
			}
		}
		p.msgs, p.first, p.live = nil, 0, 0
	}
	s.bytes -= q.bytes
	s.messages -= q.count
	q.bytes, q.count = 0, 0
	s.met.dropped(reasonReset, n)
	return n
}

// forgetLocked removes q from the store and wakes its waiters.
//
// REQUIRES: s.mu held; q holds no message.
func (s *Store) forgetLocked(q *queue) {
	delete(s.queues, q.key)
	q.notify()
}

// GroupDepth is one group's backlog.
type GroupDepth struct {
	Group string
	// Pending counts what the group has yet to be given: new messages and
	// those given back. Inflight counts its leased ones.
	Pending, Inflight int
}

// PartitionDepth is one partition's gauges.
type PartitionDepth struct {
	Partition       string
	Messages, Bytes int64
	Groups          []GroupDepth // by name
}

// QueueInfo is one queue's gauges.
type QueueInfo struct {
	Queue string
	// Declared: configured, not only made by a push or a pop.
	Declared        bool
	Messages, Bytes int64
	PartitionCount  int
	GroupCount      int // distinct groups over its partitions
	Inflight        int
}

// Depth is one queue in detail.
type Depth struct {
	QueueInfo
	Options    QueueOptions
	Partitions []PartitionDepth // in creation order
	Groups     []GroupDepth     // summed over the partitions, by name
}

// Queues lists the tenant's queues, by name.
func (s *Store) Queues(tenant string) []QueueInfo {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []QueueInfo
	for k, q := range s.queues {
		if k.tenant == tenant {
			s.expireLocked(q, now)
			out = append(out, q.depthLocked().QueueInfo)
		}
	}
	slices.SortFunc(out, func(a, b QueueInfo) int { return strings.Compare(a.Queue, b.Queue) })
	return out
}

// Depth describes the queue; ok is false when there is none.
func (s *Store) Depth(tenant, queue string) (Depth, bool) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queues[qkey{tenant, queue}]
	if q == nil {
		return Depth{}, false
	}
	s.expireLocked(q, now)
	return q.depthLocked(), true
}

// depthLocked reads q's gauges.
//
// REQUIRES: s.mu held.
func (q *queue) depthLocked() Depth {
	d := Depth{QueueInfo: QueueInfo{Queue: q.key.queue, Declared: q.declared, Messages: q.count, Bytes: q.bytes,
		PartitionCount: len(q.parts)}, Options: q.opts}
	sum := map[string]*GroupDepth{}
	for _, p := range q.parts {
		pd := PartitionDepth{Partition: p.name, Messages: int64(p.live)}
		for _, m := range p.msgs {
			if !m.freed {
				pd.Bytes += m.size
			}
		}
		for name, g := range p.groups {
			gd := GroupDepth{Group: name, Pending: len(g.retry) + p.fresh(g), Inflight: g.inflight()}
			pd.Groups = append(pd.Groups, gd)
			t := sum[name]
			if t == nil {
				t = &GroupDepth{Group: name}
				sum[name] = t
			}
			t.Pending += gd.Pending
			t.Inflight += gd.Inflight
			d.Inflight += gd.Inflight
		}
		slices.SortFunc(pd.Groups, func(a, b GroupDepth) int { return strings.Compare(a.Group, b.Group) })
		d.Partitions = append(d.Partitions, pd)
	}
	for _, g := range sum {
		d.Groups = append(d.Groups, *g)
	}
	slices.SortFunc(d.Groups, func(a, b GroupDepth) int { return strings.Compare(a.Group, b.Group) })
	d.GroupCount = len(d.Groups)
	return d
}

// Sweep applies TTLs and lease ends to every queue. It forgets a group
// that has made no pop or ack on a queue for Options.IdleAfter and holds
// no lease there (what only it still held goes; it joins again, at the
// oldest message held, with its next pop), and then an undeclared queue
// that has held nothing, had no group and seen no call for as long.
func (s *Store) Sweep() {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	groups, queues := 0, 0
	for _, q := range s.queues {
		s.expireLocked(q, now)
		for _, name := range slices.Sorted(maps.Keys(q.groups)) {
			if now.Sub(q.groups[name].seen) >= s.idle && !q.leasing(name) {
				s.leaveLocked(q, name)
				groups++
			}
		}
		if !q.declared && q.count == 0 && len(q.groups) == 0 && now.Sub(q.touched) >= s.idle {
			s.forgetLocked(q)
			queues++
		}
	}
	if groups+queues > 0 {
		s.log.Debug("ephemeral groups and queues forgotten, idle", keyGroups, groups, keyQueues, queues)
	}
}

// leasing reports whether the group holds a lease on a partition of q.
func (q *queue) leasing(group string) bool {
	for _, p := range q.parts {
		if g := p.groups[group]; g != nil && g.inflight() > 0 {
			return true
		}
	}
	return false
}

// Run sweeps every interval until ctx ends.
func (s *Store) Run(ctx context.Context, interval time.Duration) { tick.Every(ctx, interval, s.Sweep) }
