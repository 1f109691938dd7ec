package consume

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/raftlog"
)

// consumed turns a stream worker's ack (TxnOp.Counts) into the ack of
// what it consumed. The streaming SDK orders a partition's batch by the
// record's stamp in whole milliseconds, then the message id's text, and
// acks the last message it consumed in that order (the count it sends
// counts what passed its filters, so only its sign is read here); that
// order can differ from the offsets' (two records of one millisecond
// whose ids were minted the other way round), so acking the named message
// as an offset commit could settle less than the worker consumed, or
// more. Here the messages the item's lease holds on the partition, in the
// SDK's order up to the named one, are the consumed set; the item is
// rewritten to name the highest offset among them, whose commit settles
// exactly that set when no message outside it lies below. why is the
// refusal otherwise: the lease holds no such message, or the set is not
// the lease's messages up to an offset (a gate that stopped between two
// such records), which no offset commit can settle.
func (s *state) consumed(tenant string, it *AckItem) (why string, err error) {
	if it.Status != StatusCompleted || it.LeaseID == "" {
		return "a stream cycle's ack is completed and fenced by a lease", nil
	}
	c := &ackCall{state: s, tenant: tenant, parts: map[uint64]partRef{}, states: map[gpKeyOf]*callGP{}}
	cg, why, err := c.load(it)
	if err != nil || cg == nil {
		return why, err
	}
	g := &cg.g
	if g.LeaseID != it.LeaseID || !g.held(s.at.Stamp) {
		return fmt.Sprintf("lease %s does not hold partition %s of queue %s (expired, released or another's)", it.LeaseID, cg.ref.Partition, cg.ref.Queue), nil
	}
	type held struct {
		off    int64
		ms     int64
		id, tx string
	}
	// The lease's messages, read in one walk of the offsets they span.
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
		return fmt.Sprintf("lease %s holds no unsettled message on partition %s", it.LeaseID, cg.ref.Partition), nil
	}
	b, err := s.v.ReadRecords(tenant, cg.ref.Queue, cg.ref.Partition, lo, raftlog.ReadLimits{MaxRecords: int(hi - lo + 1)})
	if err != nil && !errors.Is(err, raftlog.ErrOffsetOutOfRange) && !errors.Is(err, raftlog.ErrUnknownPartition) {
		return "", err
	}
	recs := map[int64]*raftlog.Record{}
	for i := range b.Records {
		recs[b.Records[i].Offset] = &b.Records[i]
	}
	var hs []held
	for i := range g.Msgs {
		m := &g.Msgs[i]
		if !m.Pending {
			continue
		}
		rec, ok := recs[m.Offset]
		if !ok {
			return fmt.Sprintf("message at offset %d of partition %s is gone from the log", m.Offset, cg.ref.Partition), nil
		}
		// As the SDK computes it: Python's datetime.timestamp() of the
		// rendered microseconds, times 1000, truncated.
		hs = append(hs, held{off: m.Offset, ms: int64(float64(rec.Stamp) / 1e6 * 1000), id: uuid.UUID(rec.MessageID).String(), tx: rec.TransactionID})
	}
	slices.SortStableFunc(hs, func(a, b held) int {
		if a.ms != b.ms {
			return int(a.ms - b.ms)
		}
		return strings.Compare(a.id, b.id)
	})
	last := -1
	for i, h := range hs {
		if h.tx == it.TransactionID {
			last = i
		}
	}
	if last < 0 {
		return fmt.Sprintf("lease %s holds no unsettled message %q on partition %s", it.LeaseID, it.TransactionID, cg.ref.Partition), nil
	}
	set := hs[:last+1]
	top := int64(-1)
	for _, h := range set {
		top = max(top, h.off)
	}
	rest := hs[last+1:]
	for _, h := range rest {
		if h.off < top {
			return fmt.Sprintf("the cycle consumed message %d of partition %s but not message %d before it: no offset commit settles that (ack the batch up to a message the log orders last)", top, cg.ref.Partition, h.off), nil
		}
	}
	it.at, it.byOffset = top, true
	return "", nil
}
