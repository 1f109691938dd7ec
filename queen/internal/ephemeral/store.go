package ephemeral

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The store's bounds and defaults.
const (
	// DefaultMaxBytes is Options.MaxBytes when it is 0
	// (QUEEN_EPHEMERAL_MAX_BYTES' default): 256 MiB.
	DefaultMaxBytes = 256 << 20
	// MessageOverhead is what a held message counts beside its payload,
	// against every byte bound: its bookkeeping.
	MessageOverhead = 128
	// DefaultIdleAfter is Options.IdleAfter when it is 0.
	DefaultIdleAfter = 10 * time.Minute
	// QueueModeGroup is the group of a pop or an ack that names none.
	QueueModeGroup = "__QUEUE_MODE__"
	// DefaultPartition is the partition of a push or a pop that names none
	// (a pop without one reads every partition).
	DefaultPartition = "Default"
)

// Options configure New. The zero value works.
type Options struct {
	// MaxBytes caps what all the node's ephemeral queues hold, payloads
	// and MessageOverhead per message (QUEEN_EPHEMERAL_MAX_BYTES). 0 means
	// DefaultMaxBytes.
	MaxBytes int64
	// Now is the clock of TTLs, leases and idleness; nil: time.Now.
	Now func() time.Time
	// Incarnation names this store in message ids; 0: a random one.
	Incarnation uint64
	// IdleAfter is how long a group that makes no call on a queue, and
	// an undeclared queue that holds nothing, stay before Sweep forgets
	// them. 0 means DefaultIdleAfter.
	IdleAfter time.Duration
	// Logger gets the store's few lines; nil: slog.Default().
	Logger *slog.Logger
	// Registerer gets the store's metrics; nil: none.
	Registerer prometheus.Registerer
}

// Store is one node's ephemeral queues, in memory. It is safe for
// concurrent use: one mutex guards all of it, and no call holds it while
// it waits.
type Store struct {
	maxBytes int64
	now      func() time.Time
	inc      uint64
	idle     time.Duration
	log      *slog.Logger
	met      *metrics

	mu     sync.Mutex
	queues map[qkey]*queue
	// seq is the last sequence number handed out.
	seq uint64
	// INVARIANT: bytes and messages are the sums of every queue's, and
	// bytes <= maxBytes.
	bytes, messages int64
	// warned is when the node's cap last refused a push with a log line.
	warned time.Time
}

type qkey struct{ tenant, queue string }

// member is a group of a queue.
type member struct {
	// rr is the partition a pop without one starts at.
	rr int
	// seen is the group's last pop or ack.
	seen time.Time
}

// queue is one tenant's ephemeral queue.
type queue struct {
	key      qkey
	declared bool
	opts     QueueOptions
	parts    []*partition // in creation order
	byName   map[string]*partition
	// floor: messages with seq <= floor belonged to an earlier ring of
	// this name (before a reset, or before the queue was made).
	floor uint64
	// groups are the groups that joined the queue (by a pop), each with
	// its state on every partition.
	groups       map[string]*member
	bytes, count int64
	touched      time.Time
	// wake is closed (and replaced) when messages become available.
	wake chan struct{}
}

// New makes a Store. It fails only when o.Registerer refuses the metrics.
func New(o Options) (*Store, error) {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.IdleAfter <= 0 {
		o.IdleAfter = DefaultIdleAfter
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	for o.Incarnation == 0 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		o.Incarnation = binary.BigEndian.Uint64(b[:])
	}
	s := &Store{maxBytes: o.MaxBytes, now: o.Now, inc: o.Incarnation, idle: o.IdleAfter, log: o.Logger,
		queues: map[qkey]*queue{}}
	if o.Registerer != nil {
		m, err := newMetrics(o.Registerer, s)
		if err != nil {
			return nil, fmt.Errorf("ephemeral: metrics: %w", err)
		}
		s.met = m
	}
	s.log.Info("ephemeral store ready", keyIncarnation, fmt.Sprintf("%016x", s.inc), keyMaxBytes, s.maxBytes)
	return s, nil
}

// MaxBytes is the node's cap.
func (s *Store) MaxBytes() int64 { return s.maxBytes }

// Held returns what the node's ephemeral queues hold: bytes (payloads and
// MessageOverhead each) and messages.
func (s *Store) Held() (bytes, messages int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bytes, s.messages
}

// queueLocked returns the queue, making it (undeclared, with the default
// options) when create is true; nil when it is absent and create false.
//
// REQUIRES: s.mu held.
func (s *Store) queueLocked(tenant, name string, now time.Time, create bool) *queue {
	k := qkey{tenant, name}
	q := s.queues[k]
	if q == nil {
		if !create {
			return nil
		}
		q = &queue{key: k, opts: DefaultQueueOptions(), byName: map[string]*partition{}, floor: s.seq,
			groups: map[string]*member{}, wake: make(chan struct{})}
		s.queues[k] = q
	}
	q.touched = now
	s.expireLocked(q, now)
	return q
}

// partitionLocked returns q's partition name, making it when create
// (with every group of q on it).
//
// REQUIRES: s.mu held.
func (q *queue) partitionLocked(name string, create bool) *partition {
	p := q.byName[name]
	if p == nil && create {
		p = &partition{id: uint32(len(q.parts)), name: name, groups: map[string]*group{}}
		for g := range q.groups {
			p.addGroup(g)
		}
		q.parts = append(q.parts, p)
		q.byName[name] = p
	}
	return p
}

// joinLocked returns the group's membership of q, making it (and the
// group's state on every partition) when the group is new to q.
//
// REQUIRES: s.mu held.
func (q *queue) joinLocked(name string, now time.Time) *member {
	m := q.groups[name]
	if m == nil {
		m = &member{}
		q.groups[name] = m
		for _, p := range q.parts {
			p.addGroup(name)
		}
	}
	m.seen = now
	return m
}

// leaveLocked forgets the group: its holds go, and a message no group
// holds any more is freed, unless the group was the queue's last one (a
// message then waits for the next group, as one pushed before any).
//
// REQUIRES: s.mu held; the group holds no lease.
func (s *Store) leaveLocked(q *queue, name string) {
	delete(q.groups, name)
	for _, p := range q.parts {
		g := p.groups[name]
		delete(p.groups, name)
		for _, m := range p.msgs {
			if m.freed || m.seq < g.next && g.seen[m.seq] == nil {
				continue // settled by the group already
			}
			m.holds--
			if m.holds <= 0 && len(q.groups) > 0 {
				s.freeLocked(q, p, m, reasonSettled)
			}
		}
	}
}

// notify wakes q's waiting pops.
//
// REQUIRES: s.mu held.
func (q *queue) notify() {
	close(q.wake)
	q.wake = make(chan struct{})
}

// The reasons a message is let go of, as the metrics count them.
const (
	reasonSettled  = "settled"     // every group acked it (or was given it at delivery)
	reasonTTL      = "ttl"         // older than the queue's TTL
	reasonOverflow = "overflow"    // dropped oldest to make room (drop_oldest)
	reasonRetries  = "retries"     // a group's retryLimit was spent (counted per group)
	reasonReset    = "reset"       // a reset or a delete
	reasonFull     = "full"        // a refusal at the node's cap
	reasonQueue    = "queue_bound" // a refusal at the queue's own bound
)

// freeLocked lets go of m, which p of q holds, for reason.
//
// REQUIRES: s.mu held; m is live.
func (s *Store) freeLocked(q *queue, p *partition, m *message, reason string) {
	m.freed, m.payload = true, nil
	p.live--
	q.bytes -= m.size
	q.count--
	s.bytes -= m.size
	s.messages--
	if reason != reasonSettled {
		s.met.dropped(reason, 1)
	}
	p.compact(false)
}

// evictLocked drops m, the oldest live message of p, whoever holds it:
// each group forgets it, and a group that was never given it moves its
// cursor past it (every older message is gone already).
//
// REQUIRES: s.mu held; m is p.oldest().
func (s *Store) evictLocked(q *queue, p *partition, m *message, reason string) {
	for _, g := range p.groups {
		g.forget(m.seq)
		if g.next <= m.seq {
			g.next = m.seq + 1
		}
	}
	s.freeLocked(q, p, m, reason)
}

// settleLocked ends g's hold on m: freed once no group holds it.
//
// REQUIRES: s.mu held; g is a group of p; m is live.
func (s *Store) settleLocked(q *queue, p *partition, g *group, m *message) {
	if m == nil {
		// INVARIANT: every seq a group has seen is a live message (an
		// eviction makes every group forget it first).
		panic("ephemeral: settle of a message that is not held")
	}
	g.forget(m.seq)
	m.holds--
	if m.holds <= 0 {
		s.freeLocked(q, p, m, reasonSettled)
	}
}

// expireLocked drops q's messages past their TTL, and gives back the
// messages whose lease ended (dropping, per group, those that spent their
// retries). It wakes q's waiting pops when something came back.
//
// REQUIRES: s.mu held.
func (s *Store) expireLocked(q *queue, now time.Time) {
	back := false
	for _, p := range q.parts {
		if ttl := q.opts.TTL; ttl > 0 {
			for m := p.oldest(); m != nil && !now.Before(m.at.Add(ttl)); m = p.oldest() {
				s.evictLocked(q, p, m, reasonTTL)
			}
		}
		for _, g := range p.groups {
			if g.nextExpiry.IsZero() || now.Before(g.nextExpiry) {
				continue
			}
			g.nextExpiry = time.Time{}
			for seq, d := range g.seen {
				switch {
				case !d.leased:
				case now.Before(d.expires):
					if g.nextExpiry.IsZero() || d.expires.Before(g.nextExpiry) {
						g.nextExpiry = d.expires
					}
				case d.attempts > q.opts.RetryLimit:
					s.met.dropped(reasonRetries, 1)
					s.settleLocked(q, p, g, p.find(seq))
				default:
					d.leased = false
					g.release(seq)
					back = true
				}
			}
		}
	}
	if back {
		q.notify()
	}
}
