package consume

import "github.com/queen-mq/queen-go/raftlog/queuelog"

import "fmt"

// gpRef names a group's state on one partition.
type gpRef struct{ Queue, Group, Partition string }

// callGP is one group's state on one partition as one ack call sees it:
// read and decoded once, changed by the call's items in order, written
// once when the call ends.
type callGP struct {
	ref      gpRef
	uid      uint64
	g        gpState
	old      []byte // g as stored
	logStart int64
	// clamp is the lowest offset a nack of the call returns (hasClamp).
	clamp    int64
	hasClamp bool
	// release is the lease the call's nacks release when it ends ("":
	// none).
	release string
	// byTx maps the transaction ids of the delivered messages of the
	// window to their offsets, for ids the dedup index does not hold
	// (deduplication off): one read of the window per call.
	byTx map[string][]int64
}

type gpKeyOf struct {
	uid   uint64
	group string
}

// ackCall is one call's acks: an ack is an offset commit per group and
// partition. A completed ack of offset N settles every message at or below
// N its lease holds; a nack (failed, retry) of N clamps the call's commits
// on that partition below N and releases the lease when the call ends, so
// N and everything after it are delivered again.
type ackCall struct {
	*state
	tenant string
	parts  map[uint64]partRef // looked up, never iterated
	states map[gpKeyOf]*callGP
	order  []*callGP // in the order the call first named them
}

// settleAll applies items in order, after a first pass that finds each
// partition's lowest nack; then releases what the nacks return and writes
// each state once. In a transaction (txn), an ack of a message committed
// before the entry is refused, not a noop: its input was consumed already.
func (s *state) settleAll(tenant string, items []AckItem, txn bool) ([]AckAnswer, error) {
	c := &ackCall{state: s, tenant: tenant, parts: map[uint64]partRef{}, states: map[gpKeyOf]*callGP{}}
	before := make([]bool, len(items)) // settled before the call
	for i := range items {
		it := &items[i]
		cg, _, err := c.load(it)
		if err != nil {
			return nil, err
		}
		if cg == nil {
			continue
		}
		off, _, verdict, _, err := c.locate(cg, it)
		if err != nil {
			return nil, err
		}
		before[i] = verdict == vSettled
		if verdict == vLive && (it.Status == StatusFailed || it.Status == StatusRetry) && (!cg.hasClamp || off < cg.clamp) {
			cg.clamp, cg.hasClamp = off, true
		}
	}
	out := make([]AckAnswer, len(items))
	for i := range items {
		a, err := c.apply(&items[i], txn && before[i])
		if err != nil {
			return nil, err
		}
		out[i] = a
	}
	for _, cg := range c.order {
		if cg.release != "" && cg.g.LeaseID == cg.release {
			if err := c.dropFromLease(cg.release, cg.ref.Partition); err != nil {
				return nil, err
			}
			cg.g.release()
			c.released(c.tenant, cg.ref.Queue)
		}
		cg.g.advance(cg.logStart)
		c.saveGP(c.tenant, cg.ref.Queue, cg.ref.Group, cg.ref.Partition, &cg.g, cg.old)
	}
	return out, nil
}

// load returns the call's state of the group and partition an item names
// (nil, and why, when there is none).
func (c *ackCall) load(it *AckItem) (*callGP, string, error) {
	k := gpKeyOf{it.PartitionUID, it.Group}
	if cg, ok := c.states[k]; ok {
		return cg, "", nil
	}
	p, ok := c.parts[it.PartitionUID]
	if !ok {
		b, found, err := c.tx.Get(uidKey(it.PartitionUID))
		if err != nil {
			return nil, "", err
		}
		if found {
			if p, err = decodePartRef(b); err != nil {
				return nil, "", err
			}
		}
		c.parts[it.PartitionUID] = p // the zero partRef: none
	}
	if p.Tenant != c.tenant || p.Partition == "" {
		return nil, fmt.Sprintf("partitionId %d names no partition a consumer popped", it.PartitionUID), nil
	}
	g, old, found, err := c.loadGP(c.tenant, p.Queue, it.Group, p.Partition)
	if err != nil {
		return nil, "", err
	}
	if !found {
		return nil, fmt.Sprintf("consumer group %q never popped partition %s of queue %s", it.Group, p.Partition, p.Queue), nil
	}
	pi, err := queuelog.Partition(c.v, c.tenant, p.Queue, p.Partition)
	if err != nil {
		return nil, "", err
	}
	cg := &callGP{ref: gpRef{Queue: p.Queue, Group: it.Group, Partition: p.Partition}, uid: it.PartitionUID, g: g, old: old, logStart: pi.LogStart}
	c.states[k] = cg
	c.order = append(c.order, cg)
	return cg, "", nil
}

// The verdicts of locate.
const (
	vRefused = iota // why says why
	vSettled        // committed already: below the cursor, or acked
	vLive           // delivered, unsettled, and (fenced, or a nack) its lease's
)

// locate finds the message an item names in cg and judges it: by the
// queue log's dedup index, else among the window's delivered messages
// (a live one before a settled one, should several share the id).
func (c *ackCall) locate(cg *callGP, it *AckItem) (off int64, m *msgState, verdict int, why string, err error) {
	idx, found, err := queuelog.TransactionOffset(c.v, cg.uid, it.TransactionID)
	if err != nil {
		return 0, nil, vRefused, "", err
	}
	if found {
		if m, verdict, why = c.judge(cg, it, idx); verdict != vRefused {
			return idx, m, verdict, why, nil
		}
	}
	if cg.byTx == nil {
		cg.byTx = map[string][]int64{}
		for i := range cg.g.Msgs {
			x := cg.g.Msgs[i]
			if x.Attempts == 0 {
				continue
			}
			rec, ok, err := c.readRecord(c.tenant, cg.ref.Queue, cg.ref.Partition, x.Offset)
			if err != nil {
				return 0, nil, vRefused, "", err
			}
			if ok {
				cg.byTx[rec.TransactionID] = append(cg.byTx[rec.TransactionID], x.Offset)
			}
		}
	}
	best, bestVerdict, bestWhy, bestM := int64(-1), vRefused, "", (*msgState)(nil)
	for _, o := range cg.byTx[it.TransactionID] {
		if found && o == idx {
			continue
		}
		m, v, w := c.judge(cg, it, o)
		if v == vLive {
			return o, m, v, w, nil
		}
		if best < 0 || v == vSettled && bestVerdict != vSettled {
			best, bestVerdict, bestWhy, bestM = o, v, w, m
		}
	}
	switch {
	case best >= 0:
		return best, bestM, bestVerdict, bestWhy, nil
	case found:
		m, verdict, why = c.judge(cg, it, idx)
		return idx, m, verdict, why, nil
	}
	return 0, nil, vRefused, fmt.Sprintf("transaction %q is unresolvable on partition %s of queue %s: no message with that transactionId is known there (never pushed to it, or older than the queue's dedup window)",
		it.TransactionID, cg.ref.Partition, cg.ref.Queue), nil
}

// judge gives the verdict on offset off of cg for an item. A nack must
// name a message a lease holds, fenced or not: one its lease no longer
// holds (expired, or returned by an earlier nack) is delivered again
// already, and a second nack of one delivery would spend a second retry.
func (c *ackCall) judge(cg *callGP, it *AckItem, off int64) (*msgState, int, string) {
	g := &cg.g
	if off < g.Cursor {
		return nil, vSettled, ""
	}
	m := g.find(off)
	nack := it.Status == StatusFailed || it.Status == StatusRetry
	switch {
	case m == nil || m.Attempts == 0:
		return nil, vRefused, fmt.Sprintf("message %q (offset %d) of partition %s was not delivered to consumer group %q yet", it.TransactionID, off, cg.ref.Partition, it.Group)
	case m.Acked:
		return nil, vSettled, ""
	case it.LeaseID != "" && (g.LeaseID != it.LeaseID || !g.held(c.at.Stamp) || !m.Pending):
		return nil, vRefused, fmt.Sprintf("lease %s does not hold message %q of partition %s of queue %s (expired, released or another's)", it.LeaseID, it.TransactionID, cg.ref.Partition, cg.ref.Queue)
	case nack && !m.Pending:
		return nil, vRefused, fmt.Sprintf("message %q (offset %d) of partition %s is held by no lease (it expired, or a nack returned it): it is delivered again without this %s", it.TransactionID, off, cg.ref.Partition, statusName(it.Status))
	}
	return m, vLive, ""
}

// apply settles one item; txnSettled: the message was committed before a
// transaction that acks it.
func (c *ackCall) apply(it *AckItem, txnSettled bool) (AckAnswer, error) {
	cg, why, err := c.load(it)
	if err != nil || cg == nil {
		return AckAnswer{Error: why}, err
	}
	off, m, verdict, why, err := c.locate(cg, it)
	if err != nil {
		return AckAnswer{}, err
	}
	ref := cg.ref
	switch {
	case verdict == vRefused:
		return refuse("%s", why)
	case it.Status == StatusCompleted && cg.hasClamp && off >= cg.clamp:
		// Before the noop: the call's answer to it is the same in any order.
		return refuse("message %q (offset %d) of partition %s is not committed: a nack of offset %d in this call returns it and every later message of its lease", it.TransactionID, off, ref.Partition, cg.clamp)
	case verdict == vSettled && txnSettled:
		return refuse("message %q (offset %d) of partition %s was committed for consumer group %q before this transaction: its ack settles nothing", it.TransactionID, off, ref.Partition, it.Group)
	case verdict == vSettled && it.Status == StatusCompleted:
		return AckAnswer{OK: true, Noop: true}, nil
	case verdict == vSettled:
		return refuse("message %q (offset %d) of partition %s is already committed for consumer group %q: a %s cannot return it", it.TransactionID, off, ref.Partition, it.Group, statusName(it.Status))
	}
	g := &cg.g
	var a AckAnswer
	a.OK = true
	wasPending := m.Pending
	m.Pending = false
	switch it.Status {
	case StatusCompleted:
		m.Acked = true
		if wasPending { // the commit: every earlier message of the lease
			for i := range g.Msgs {
				if x := &g.Msgs[i]; x.Pending && x.Offset < off {
					x.Acked, x.Pending = true, false
				}
			}
		}
	case StatusRetry, StatusFailed:
		if it.Status == StatusFailed {
			if a.DLQ, err = c.fail(it, ref, m); err != nil {
				return AckAnswer{}, err
			}
		}
		if cg.release == "" {
			cg.release = g.LeaseID
		}
		a.Released = true
	case StatusDLQ:
		m.Acked = true
		if err := c.file(it, ref, m); err != nil {
			return AckAnswer{}, err
		}
		a.DLQ = true
	}
	if g.LeaseID != "" && !g.pending() && !a.Released {
		if err := c.dropFromLease(g.LeaseID, ref.Partition); err != nil {
			return AckAnswer{}, err
		}
		g.release()
		a.Released = true
	}
	if a.Released || it.Status != StatusCompleted {
		c.released(c.tenant, ref.Queue)
	}
	return a, nil
}

// statusName is the API's name of an ack status.
func statusName(st byte) string {
	switch st {
	case StatusFailed:
		return "failed"
	case StatusRetry:
		return "retry"
	case StatusDLQ:
		return "dlq"
	}
	return "completed"
}
