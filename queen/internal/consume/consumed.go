package consume

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// consumed settles what a stream worker consumed (TxnOp.Counts): the
// messages its lease holds on the partition up to the one it names, in
// the streaming SDK's order, the record's stamp in whole milliseconds
// then the message id's text. That order can differ from the offsets'
// (two records of one millisecond whose ids were minted the other way
// round), so an offset commit of the named message could settle less
// than the worker consumed, or more; here exactly that set is settled,
// each message on its own (out of order when it must be), the rest left
// to the lease. count is the SDK's count, which counts what passed its
// filters: it is read only to tell a whole batch (at least as many as the
// lease holds) from a gate's part of one. why is the refusal: the lease
// does not hold the partition or the named message, or (a part of a
// batch) several held messages carry its transaction id, so which one it
// names is not known.
func (s *state) consumed(tenant string, it *AckItem, count int) (a AckAnswer, why string, err error) {
	if it.Status != StatusCompleted || it.LeaseID == "" {
		return a, "a stream cycle's ack is completed and fenced by a lease", nil
	}
	c := &ackCall{state: s, tenant: tenant, parts: map[uint64]partRef{}, states: map[gpKeyOf]*callGP{}}
	cg, why, err := c.load(it)
	if err != nil || cg == nil {
		return a, why, err
	}
	g := &cg.g
	if g.LeaseID != it.LeaseID || !g.held(s.at.Stamp) {
		return a, fmt.Sprintf("lease %s does not hold partition %s of queue %s (expired, released or another's)", it.LeaseID, cg.ref.Partition, cg.ref.Queue), nil
	}
	hs, why, err := s.heldInSDKOrder(tenant, cg)
	if err != nil || why != "" {
		return a, why, err
	}
	last, matches := -1, 0
	for i, h := range hs {
		if h.tx == it.TransactionID {
			last, matches = i, matches+1
		}
	}
	switch {
	case matches == 0:
		return a, fmt.Sprintf("lease %s holds no unsettled message %q on partition %s", it.LeaseID, it.TransactionID, cg.ref.Partition), nil
	case matches > 1 && count < len(hs):
		return a, fmt.Sprintf("%d messages lease %s holds on partition %s carry transactionId %q: which one a part of the batch ends at is not known", matches, it.LeaseID, cg.ref.Partition, it.TransactionID), nil
	}
	for _, h := range hs[:last+1] {
		m := g.find(h.off)
		m.Acked, m.Pending = true, false
	}
	if !g.pending() {
		if err := c.dropFromLease(g.LeaseID, cg.ref.Partition); err != nil {
			return a, "", err
		}
		g.release()
		a.Released = true
	}
	c.released(tenant, cg.ref.Queue)
	g.advance(cg.logStart)
	c.saveGP(tenant, cg.ref.Queue, cg.ref.Group, cg.ref.Partition, g, cg.old)
	a.OK = true
	return a, "", nil
}

// sdkHeld is a message a lease holds, as the SDK orders it.
type sdkHeld struct {
	off    int64
	ms     int64
	id, tx string
}

// heldInSDKOrder reads the messages cg's lease holds, in one walk of the
// offsets they span, in the SDK's order.
func (s *state) heldInSDKOrder(tenant string, cg *callGP) ([]sdkHeld, string, error) {
	g := &cg.g
	lo, hi := int64(-1), int64(-1)
	for i := range g.Msgs {
		if m := &g.Msgs[i]; m.Pending {
			if lo < 0 {
				lo = m.Offset
			}
			hi = m.Offset
		}
	}
	if lo < 0 {
		return nil, fmt.Sprintf("the lease holds no unsettled message on partition %s", cg.ref.Partition), nil
	}
	b, err := queuelog.ReadRecords(s.v, tenant, cg.ref.Queue, cg.ref.Partition, lo, queuelog.ReadLimits{MaxRecords: int(hi - lo + 1)})
	if err != nil && !errors.Is(err, queuelog.ErrOffsetOutOfRange) && !errors.Is(err, queuelog.ErrUnknownPartition) {
		return nil, "", err
	}
	recs := map[int64]*queuelog.Record{}
	for i := range b.Records {
		recs[b.Records[i].Offset] = &b.Records[i]
	}
	var hs []sdkHeld
	for i := range g.Msgs {
		m := &g.Msgs[i]
		if !m.Pending {
			continue
		}
		rec, ok := recs[m.Offset]
		if !ok {
			return nil, fmt.Sprintf("message at offset %d of partition %s is gone from the log", m.Offset, cg.ref.Partition), nil
		}
		// As the SDK computes it: Python's datetime.timestamp() of the
		// rendered microseconds, times 1000, truncated.
		hs = append(hs, sdkHeld{off: m.Offset, ms: int64(float64(rec.Ts) / 1e6 * 1000), id: uuid.UUID(rec.MessageID).String(), tx: rec.TransactionID})
	}
	slices.SortStableFunc(hs, func(a, b sdkHeld) int {
		if a.ms != b.ms {
			return int(a.ms - b.ms)
		}
		return strings.Compare(a.id, b.id)
	})
	return hs, "", nil
}
