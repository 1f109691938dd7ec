package ephemeral

import (
	"slices"
	"sort"
	"time"
)

// message is one pushed message, held until every group of its partition
// has settled it, or a bound, a TTL or a reset drops it.
type message struct {
	seq     uint64 // node-wide, increasing in push order
	at      time.Time
	payload []byte
	size    int64 // len(payload) + MessageOverhead
	// holds counts the groups of the queue that have not settled it. A
	// message pushed before any group joined the queue has 0 and stays
	// until a group comes and settles it.
	holds int
	freed bool
}

// partition is one ring: the messages of one (queue, partition) in push
// order, and the state on it of every group of the queue.
type partition struct {
	id   uint32
	name string
	// msgs is in seq order; freed messages stay in it until compact.
	// INVARIANT: a freed message left in msgs has seq < g.next for every
	// group g of the partition (groups see only live messages past their
	// cursor). addGroup compacts to keep this true for a new group, and an
	// eviction moves the cursors past what it drops.
	msgs []*message
	// first is an index at or before the first live message of msgs.
	first int
	live  int
	// groups has an entry for every group of the queue.
	groups map[string]*group
}

// group is one consumer group's view of a partition.
type group struct {
	// next is the cursor: messages with seq >= next were never delivered
	// to this group.
	next uint64
	// seen holds the group's delivered, unsettled messages by seq.
	seen map[uint64]*delivery
	// retry holds the seqs of seen messages waiting to be delivered again
	// (a nack or an expired lease), ascending.
	retry []uint64
	// nextExpiry is at or before the earliest lease end in seen (zero:
	// no lease).
	nextExpiry time.Time
}

// delivery is a group's hold on one message it was given.
type delivery struct {
	attempts int // deliveries so far, ≥ 1
	leased   bool
	expires  time.Time
}

// index returns the index of the first message of p.msgs with seq >= seq.
func (p *partition) index(seq uint64) int {
	return sort.Search(len(p.msgs), func(i int) bool { return p.msgs[i].seq >= seq })
}

// find returns the live message seq, or nil.
func (p *partition) find(seq uint64) *message {
	i := p.index(seq)
	if i < len(p.msgs) && p.msgs[i].seq == seq && !p.msgs[i].freed {
		return p.msgs[i]
	}
	return nil
}

// oldest returns the first live message, or nil.
func (p *partition) oldest() *message {
	for p.first < len(p.msgs) && p.msgs[p.first].freed {
		p.first++
	}
	if p.first < len(p.msgs) {
		return p.msgs[p.first]
	}
	return nil
}

// compact drops freed messages from msgs once they outnumber the live
// ones (or always, when force), so a ring's memory follows what it holds.
func (p *partition) compact(force bool) {
	dead := len(p.msgs) - p.live
	if dead == 0 || !force && (dead < 32 || dead < p.live) {
		return
	}
	kept := make([]*message, 0, p.live)
	for _, m := range p.msgs {
		if !m.freed {
			kept = append(kept, m)
		}
	}
	p.msgs, p.first = kept, 0
}

// addGroup makes the state of a group that joined the queue: it starts
// at the oldest message the ring holds and holds every message there.
func (p *partition) addGroup(name string) {
	p.compact(true)
	for _, m := range p.msgs {
		m.holds++
	}
	p.groups[name] = &group{seen: map[uint64]*delivery{}}
}

// fresh counts the messages g was never given.
func (p *partition) fresh(g *group) int { return len(p.msgs) - p.index(g.next) }

// inflight counts g's leased messages.
func (g *group) inflight() int {
	n := 0
	for _, d := range g.seen {
		if d.leased {
			n++
		}
	}
	return n
}

// release puts seq back for delivery.
func (g *group) release(seq uint64) {
	i, found := slices.BinarySearch(g.retry, seq)
	if !found {
		g.retry = slices.Insert(g.retry, i, seq)
	}
}

// forget drops g's hold on seq (settled or dropped).
func (g *group) forget(seq uint64) {
	delete(g.seen, seq)
	if i, found := slices.BinarySearch(g.retry, seq); found {
		g.retry = slices.Delete(g.retry, i, i+1)
	}
}

// lease marks d leased until end.
func (g *group) lease(d *delivery, end time.Time) {
	d.leased, d.expires = true, end
	if g.nextExpiry.IsZero() || end.Before(g.nextExpiry) {
		g.nextExpiry = end
	}
}
