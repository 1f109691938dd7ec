package consume

import (
	"errors"
	"math"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// maxVisit bounds the partitions one pop of a whole queue looks at; the
// proposer's random Start spreads pops over a larger queue.
const maxVisit = 4096

// Apply leases up to op.Batch messages on up to op.MaxPartitions partitions.
func (op *PopOp) Apply(s *state) ([]byte, error) {
	var res PopResult
	q, ok, err := queuelog.Queue(s.v, op.Tenant, op.Queue)
	if err != nil || !ok {
		res.Conflation = op.Conflate // no group yet: it will be as asked
		return appendPopResult(nil, &res), err
	}
	opts := contract.ParseQueueOptions(q.Options)
	lease := op.LeaseMicros
	if lease == 0 {
		lease = opts.LeaseMicros()
	}
	gm, err := s.group(op)
	if err != nil {
		return nil, err
	}
	res.Conflation, res.Conflict = gm.Conflate, gm.Conflate != op.Conflate
	p := popper{state: s, op: op, opts: opts, gm: gm, budget: op.Batch, end: s.at.Stamp + lease, res: &res}
	if op.Partition != "" {
		if err := p.visit(op.Partition); err != nil {
			return nil, err
		}
	} else if err := p.visitAll(); err != nil {
		return nil, err
	}
	if len(p.claimed) > 0 {
		row := leaseRow{Tenant: op.Tenant, Queue: op.Queue, Group: op.Group, Partitions: p.claimed, Micros: lease}
		s.tx.Set(leaseKey(op.LeaseID), row.encode())
		res.LeaseID, res.End = op.LeaseID, p.end
	}
	return appendPopResult(nil, &res), nil
}

// group reads the group's subscription, storing it on its first pop.
func (s *state) group(op *PopOp) (groupMeta, error) {
	k := groupKey(op.Tenant, op.Queue, op.Group)
	b, ok, err := s.tx.Get(k)
	if err != nil {
		return groupMeta{}, err
	}
	if ok {
		return decodeGroup(b)
	}
	m := groupMeta{Created: s.at.Stamp, Mode: op.Mode, From: op.From, Conflate: op.Conflate}
	s.tx.Set(k, m.encode())
	return m, nil
}

// popper is one pop's walk over partitions.
type popper struct {
	*state
	op      *PopOp
	opts    contract.QueueOptions
	gm      groupMeta
	budget  int
	end     int64
	claimed []string
	res     *PopResult
	// deleted says whether an offset of the partition being visited was
	// deleted (Deleted).
	deleted func(off int64) (bool, error)
}

func (p *popper) done() bool { return p.budget == 0 || len(p.claimed) == p.op.MaxPartitions }

// visitAll visits the queue's partitions in creation order from Start to
// the last, then from the first up to Start, until the pop is done or
// maxVisit partitions were seen.
func (p *popper) visitAll() error {
	start := max(p.op.Start, 1)
	seen := 0
	upTo := func(last uint64) func(queuelog.PartitionInfo) (bool, error) {
		return func(pi queuelog.PartitionInfo) (bool, error) {
			if pi.Seq > last || p.done() || seen == maxVisit {
				return false, nil
			}
			seen++
			return true, p.visit(pi.Name)
		}
	}
	if err := queuelog.EachPartition(p.v, p.op.Tenant, p.op.Queue, start-1, upTo(math.MaxUint64)); err != nil {
		return err
	}
	return queuelog.EachPartition(p.v, p.op.Tenant, p.op.Queue, 0, upTo(start-1))
}

// visit leases what partition name has for the group, if it is free.
func (p *popper) visit(name string) error {
	op, stamp := p.op, p.at.Stamp
	pi, err := queuelog.Partition(p.v, op.Tenant, op.Queue, name)
	if errors.Is(err, queuelog.ErrUnknownPartition) {
		return nil
	}
	if err != nil {
		return err
	}
	g, old, ok, err := p.loadGP(op.Tenant, op.Queue, op.Group, name)
	if err != nil {
		return err
	}
	if !ok {
		if g.Cursor, err = p.startAt(name, pi); err != nil {
			return err
		}
		if err := p.indexUID(op.Tenant, op.Queue, name, pi.UID); err != nil {
			return err
		}
	}
	fresh, start := !ok, g.Cursor
	defer func() {
		// A group's state on a partition is born when a pop changes it
		// (delivers, or drops what is too old): until then the partition
		// starts where the group's subscription says as of each pop, so a
		// subscription time moved since still counts.
		if !fresh || g.Cursor != start || len(g.Msgs) > 0 || g.LeaseID != "" {
			p.saveGP(op.Tenant, op.Queue, op.Group, name, &g, old)
		}
	}()
	if g.LeaseID != "" && !g.held(stamp) {
		if err := p.dropFromLease(g.LeaseID, name); err != nil {
			return err
		}
		g.release()
	}
	if g.held(stamp) {
		p.wakeAt(g.Hold)
		return nil
	}
	g.advance(pi.LogStart)
	if p.opts.WindowBufferMicros() > 0 && pi.LastWrite+p.opts.WindowBufferMicros() > stamp {
		p.wakeAt(pi.LastWrite + p.opts.WindowBufferMicros())
		return nil
	}
	if p.deleted, err = Deleted(p.v, op.Tenant, op.Queue, name); err != nil {
		return err
	}
	deliver := p.deliver
	if p.gm.Conflate {
		deliver = func(g *gpState, name string) ([]Delivered, error) { return p.deliverNewest(g, name, pi) }
	}
	msgs, err := deliver(&g, name)
	if err != nil || len(msgs) == 0 {
		return err
	}
	if !op.AutoAck {
		g.LeaseID, g.End, g.Hold = op.LeaseID, p.end, p.end+op.SkewMicros
		p.claimed = append(p.claimed, name)
	}
	g.advance(pi.LogStart)
	p.res.Parts = append(p.res.Parts, Popped{Partition: name, UID: pi.UID, Messages: msgs})
	return nil
}

// deliver takes messages from the group's cursor on, in offset order: it
// skips those acked out of order and stops at one that must wait.
func (p *popper) deliver(g *gpState, name string) ([]Delivered, error) {
	op, stamp := p.op, p.at.Stamp
	var out []Delivered
	for from := g.Cursor; p.budget > 0; {
		b, err := queuelog.ReadRecords(p.v, op.Tenant, op.Queue, name, from, queuelog.ReadLimits{MaxRecords: min(p.budget+16, 256)})
		if err != nil {
			if errors.Is(err, queuelog.ErrOffsetOutOfRange) {
				return out, nil
			}
			return nil, err
		}
		for _, r := range b.Records {
			m := g.find(r.Offset)
			if m == nil || !m.Acked {
				gone, err := p.deleted(r.Offset)
				if err != nil {
					return nil, err
				}
				if gone { // deleted for every group: passed, as settled
					g.msg(r.Offset).Acked = true
					continue
				}
			}
			switch {
			case m != nil && m.Acked:
				continue
			case m != nil && m.NotBefore > stamp:
				p.wakeAt(m.NotBefore)
				return out, nil
			case p.opts.DelayMicros() > 0 && r.Ts+p.opts.DelayMicros() > stamp:
				p.wakeAt(r.Ts + p.opts.DelayMicros())
				return out, nil
			case p.opts.MaxWaitMicros() > 0 && r.Ts+p.opts.MaxWaitMicros() < stamp:
				m = g.msg(r.Offset)
				m.Acked = true // too old to deliver: dropped unread
				continue
			}
			m = g.msg(r.Offset)
			m.Attempts++
			if op.AutoAck {
				m.Acked = true
			} else {
				m.Pending = true
			}
			out = append(out, Delivered{Record: r, Attempt: int(m.Attempts)})
			if p.budget--; p.budget == 0 {
				return out, nil
			}
		}
		if len(b.Records) == 0 || b.Records[len(b.Records)-1].Offset+1 >= b.HighWatermark {
			return out, nil
		}
		from = b.Records[len(b.Records)-1].Offset + 1
	}
	return out, nil
}

// deliverNewest is a conflating group's delivery: the partition's newest
// visible record alone (one the queue's delayedProcessing lets through),
// every offset behind it retired unread (the cursor moves to it: one step,
// whatever the backlog). A newest record that waits its retryDelay is
// waited for; one older than maxWaitTimeSeconds is dropped with the rest.
func (p *popper) deliverNewest(g *gpState, name string, pi queuelog.PartitionInfo) ([]Delivered, error) {
	op, stamp := p.op, p.at.Stamp
	last := pi.LastOffset
	if p.opts.DelayMicros() > 0 {
		at, err := queuelog.OffsetForTime(p.v, op.Tenant, op.Queue, name, stamp-p.opts.DelayMicros()+1)
		if err != nil {
			return nil, err
		}
		if at.Found {
			p.wakeAt(at.Stamp + p.opts.DelayMicros())
			last = at.Offset - 1
		}
	}
	if last < g.Cursor {
		return nil, nil
	}
	rec, ok, err := p.readRecord(op.Tenant, op.Queue, name, last)
	if err != nil || !ok {
		return nil, err
	}
	g.retireBelow(last)
	m := g.msg(last)
	gone, err := p.deleted(last)
	if err != nil {
		return nil, err
	}
	switch {
	case gone:
		m.Acked = true
		return nil, nil
	case m.Acked:
		return nil, nil
	case m.NotBefore > stamp:
		p.wakeAt(m.NotBefore)
		return nil, nil
	case p.opts.MaxWaitMicros() > 0 && rec.Ts+p.opts.MaxWaitMicros() < stamp:
		m.Acked = true
		return nil, nil
	}
	m.Attempts++
	if op.AutoAck {
		m.Acked = true
	} else {
		m.Pending = true
	}
	p.budget--
	return []Delivered{{Record: rec, Attempt: int(m.Attempts)}}, nil
}

// startAt is where the group starts on a partition it never read.
func (p *popper) startAt(name string, pi queuelog.PartitionInfo) (int64, error) {
	return startOf(p.v, p.op.Tenant, p.op.Queue, p.gm, pi)
}

// startOf is where a group subscribed as gm starts on partition pi: its
// first record (mode all), or the first stamped at or after
// subscriptionFrom or the subscription itself (mode new).
func startOf(v *raftlog.View, tenant, queue string, gm groupMeta, pi queuelog.PartitionInfo) (int64, error) {
	if gm.From == 0 && gm.Mode == ModeAll {
		return pi.LogStart, nil
	}
	ts := gm.From
	if ts == 0 {
		ts = gm.Created
	}
	at, err := queuelog.OffsetForTime(v, tenant, queue, pi.Name, ts)
	if err != nil {
		return 0, err
	}
	if at.Found {
		return at.Offset, nil
	}
	return at.HighWatermark, nil
}

func (p *popper) wakeAt(t int64) {
	if p.res.NextAt == 0 || t < p.res.NextAt {
		p.res.NextAt = t
	}
}
