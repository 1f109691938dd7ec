package consume

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"slices"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/contract"
)

// ack settles an ack call's items (settleAll); a refused item refuses no
// other.
func (s *state) ack(op *AckOp) ([]byte, error) {
	out, err := s.settleAll(op.Tenant, op.Items, false)
	if err != nil {
		return nil, err
	}
	return appendAckAnswers(nil, out), nil
}

func refuse(format string, args ...any) (AckAnswer, error) {
	return AckAnswer{Error: fmt.Sprintf(format, args...)}, nil
}

// gpRef names a group's state on one partition.
type gpRef struct{ Queue, Group, Partition string }

// ackCall is one call's acks: an ack is an offset commit per group and
// partition. A completed ack of offset N settles every message at or below
// N its lease holds; a nack (failed, retry) of N clamps the call's commits
// on that partition below N and releases the lease when the call ends, so
// N and everything after it are delivered again.
type ackCall struct {
	*state
	tenant string
	// clamp is, per partition, the lowest offset a nack of the call names
	// (one the call may return: delivered, unsettled, its lease's).
	clamp map[gpRef]int64
	// releases are the leases the call's nacks release when it ends, in
	// item order (one per partition).
	releases []gpRelease
}

type gpRelease struct {
	ref   gpRef
	lease string
}

// settleAll applies items in order, after a first pass that finds each
// partition's lowest nack. In a transaction (txn), an ack of a message
// committed before the entry is refused, not a noop: its input was
// consumed already.
func (s *state) settleAll(tenant string, items []AckItem, txn bool) ([]AckAnswer, error) {
	c := &ackCall{state: s, tenant: tenant, clamp: map[gpRef]int64{}}
	before := make([]bool, len(items)) // settled before the call
	for i := range items {
		it := &items[i]
		t, err := c.locate(it)
		if err != nil {
			return nil, err
		}
		before[i] = t.verdict == vSettled
		if t.verdict == vLive && (it.Status == StatusFailed || it.Status == StatusRetry) {
			if f, ok := c.clamp[t.ref]; !ok || t.off < f {
				c.clamp[t.ref] = t.off
			}
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
	for _, r := range c.releases {
		if err := c.release(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// The verdicts of locate.
const (
	vRefused = iota // t.why says why
	vSettled        // committed already: below the cursor, or acked
	vLive           // delivered, unsettled, and (fenced) its lease's
)

// target is where an ack item lands.
type target struct {
	ref     gpRef
	g       gpState
	old     []byte // g as stored
	off     int64
	m       *msgState // in g.Msgs; nil unless vLive
	verdict int
	why     string
}

// locate finds the message an item names and judges it, reading only.
func (c *ackCall) locate(it *AckItem) (target, error) {
	var t target
	b, ok, err := c.tx.Get(uidKey(it.PartitionUID))
	if err != nil {
		return t, err
	}
	var p partRef
	if ok {
		if p, err = decodePartRef(b); err != nil {
			return t, err
		}
	}
	if !ok || p.Tenant != c.tenant {
		t.why = fmt.Sprintf("partitionId %d names no partition a consumer popped", it.PartitionUID)
		return t, nil
	}
	t.ref = gpRef{Queue: p.Queue, Group: it.Group, Partition: p.Partition}
	g, old, ok, err := c.loadGP(c.tenant, p.Queue, it.Group, p.Partition)
	if err != nil {
		return t, err
	}
	if !ok {
		t.why = fmt.Sprintf("consumer group %q never popped partition %s of queue %s", it.Group, p.Partition, p.Queue)
		return t, nil
	}
	t.g, t.old = g, old
	off, found, err := c.v.TransactionOffset(it.PartitionUID, it.TransactionID)
	if err != nil {
		return t, err
	}
	if found {
		c.judge(&t, it, off)
		if t.verdict != vRefused {
			return t, nil
		}
	}
	// Not indexed (deduplication off), or the index names another
	// record: look for a delivered message with the id in the window.
	for i := range t.g.Msgs {
		m := &t.g.Msgs[i]
		if m.Attempts == 0 || found && m.Offset == off {
			continue
		}
		rec, ok, err := c.readRecord(c.tenant, p.Queue, p.Partition, m.Offset)
		if err != nil {
			return t, err
		}
		if ok && rec.TransactionID == it.TransactionID {
			c.judge(&t, it, m.Offset)
			return t, nil
		}
	}
	if !found {
		t.why = fmt.Sprintf("transaction %q is unresolvable on partition %s of queue %s: no message with that transactionId is known there (never pushed to it, or older than the queue's dedup window)",
			it.TransactionID, p.Partition, p.Queue)
	}
	return t, nil
}

// judge sets t's verdict on offset off.
func (c *ackCall) judge(t *target, it *AckItem, off int64) {
	t.off, t.m, t.verdict, t.why = off, nil, vRefused, ""
	g := &t.g
	if off < g.Cursor {
		t.verdict = vSettled
		return
	}
	m := g.find(off)
	switch {
	case m == nil || m.Attempts == 0:
		t.why = fmt.Sprintf("message %q (offset %d) of partition %s was not delivered to consumer group %q yet", it.TransactionID, off, t.ref.Partition, it.Group)
	case m.Acked:
		t.verdict = vSettled
	case it.LeaseID != "" && (g.LeaseID != it.LeaseID || !g.held(c.at.Stamp) || !m.Pending):
		t.why = fmt.Sprintf("lease %s does not hold message %q of partition %s of queue %s (expired, released or another's)", it.LeaseID, it.TransactionID, t.ref.Partition, t.ref.Queue)
	default:
		t.m, t.verdict = m, vLive
	}
}

// apply settles one item; txnSettled: the message was committed before a
// transaction that acks it.
func (c *ackCall) apply(it *AckItem, txnSettled bool) (AckAnswer, error) {
	t, err := c.locate(it)
	if err != nil {
		return AckAnswer{}, err
	}
	switch {
	case t.verdict == vRefused:
		return refuse("%s", t.why)
	case t.verdict == vSettled && txnSettled:
		return refuse("message %q (offset %d) of partition %s was committed for consumer group %q before this transaction: its ack settles nothing", it.TransactionID, t.off, t.ref.Partition, it.Group)
	case t.verdict == vSettled && it.Status == StatusCompleted:
		return AckAnswer{OK: true, Noop: true}, nil
	case t.verdict == vSettled:
		return refuse("message %q (offset %d) of partition %s is already committed for consumer group %q: a %s cannot return it", it.TransactionID, t.off, t.ref.Partition, it.Group, statusName(it.Status))
	}
	if f, ok := c.clamp[t.ref]; ok && it.Status == StatusCompleted && t.off >= f {
		return refuse("message %q (offset %d) of partition %s is not committed: a nack of offset %d in this call returns it and every later message of its lease", it.TransactionID, t.off, t.ref.Partition, f)
	}
	g, m, ref := &t.g, t.m, t.ref
	var a AckAnswer
	a.OK = true
	wasPending := m.Pending
	m.Pending = false
	switch it.Status {
	case StatusCompleted:
		m.Acked = true
		if wasPending { // the commit: every earlier message of the lease
			for i := range g.Msgs {
				if x := &g.Msgs[i]; x.Pending && x.Offset < t.off {
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
		if wasPending && !slices.ContainsFunc(c.releases, func(r gpRelease) bool { return r.ref == ref }) {
			c.releases = append(c.releases, gpRelease{ref: ref, lease: g.LeaseID})
		}
		a.Released = wasPending
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
	pi, err := c.v.Partition(c.tenant, ref.Queue, ref.Partition)
	if err != nil {
		return AckAnswer{}, err
	}
	g.advance(pi.LogStart)
	c.saveGP(c.tenant, ref.Queue, ref.Group, ref.Partition, g, t.old)
	if a.Released || it.Status != StatusCompleted {
		c.released(c.tenant, ref.Queue)
	}
	return a, nil
}

// fail spends one retry of a failed message; past retryLimit it is
// settled: filed in the DLQ (dlq true) or dropped.
func (c *ackCall) fail(it *AckItem, ref gpRef, m *msgState) (dlq bool, err error) {
	opts, err := c.options(c.tenant, ref.Queue)
	if err != nil {
		return false, err
	}
	m.Failures++
	if int64(m.Failures) <= opts.RetryLimit {
		m.NotBefore = c.at.Stamp + opts.RetryDelayMicros()
		return false, nil
	}
	m.Acked = true // out of retries: the DLQ, or dropped
	if !opts.DeadLetters() {
		return false, nil
	}
	return true, c.file(it, ref, m)
}

// release ends, when a call's nacks are applied, the lease a nack named on
// its partition (unless it ended already): what it held is delivered again.
func (c *ackCall) release(r gpRelease) error {
	g, old, ok, err := c.loadGP(c.tenant, r.ref.Queue, r.ref.Group, r.ref.Partition)
	if err != nil || !ok || g.LeaseID != r.lease || r.lease == "" {
		return err
	}
	if err := c.dropFromLease(r.lease, r.ref.Partition); err != nil {
		return err
	}
	g.release()
	c.saveGP(c.tenant, r.ref.Queue, r.ref.Group, r.ref.Partition, &g, old)
	c.released(c.tenant, r.ref.Queue)
	return nil
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

func (s *state) options(tenant, queue string) (contract.QueueOptions, error) {
	q, ok, err := s.v.Queue(tenant, queue)
	if err != nil || !ok {
		return contract.QueueOptions{}, err
	}
	return contract.ParseQueueOptions(q.Options), nil
}

// file puts a message in the dead-letter queue of its queue and group.
func (c *ackCall) file(it *AckItem, ref gpRef, m *msgState) error {
	rec, _, err := c.readRecord(c.tenant, ref.Queue, ref.Partition, m.Offset)
	if err != nil {
		return err
	}
	key := letterKey(c.tenant, ref.Queue, it.Group, ref.Partition, m.Offset)
	l := DeadLetter{ID: letterID(key, c.at.Stamp), Queue: ref.Queue, Group: it.Group, Partition: ref.Partition, Offset: m.Offset,
		MessageID: rec.MessageID, TransactionID: rec.TransactionID, Payload: rec.Payload, Created: rec.Stamp, Filed: c.at.Stamp,
		Attempts: int(m.Attempts), Error: it.Error}
	c.tx.Set(key, l.encode())
	c.tx.Set(letterIDKey(c.tenant, l.ID), key)
	return nil
}

// extend moves a live lease's end on every partition it still holds.
func (s *state) extend(op *ExtendOp) ([]byte, error) {
	var a ExtendAnswer
	b, ok, err := s.tx.Get(leaseKey(op.LeaseID))
	if err != nil || !ok {
		return appendExtend(nil, a), err
	}
	row, err := decodeLease(b)
	if err != nil {
		return nil, err
	}
	if row.Tenant != op.Tenant {
		return appendExtend(nil, a), nil
	}
	length := op.Micros
	if length == 0 {
		if length = row.Micros; length == 0 {
			q, _, err := s.v.Queue(row.Tenant, row.Queue)
			if err != nil {
				return nil, err
			}
			length = contract.ParseQueueOptions(q.Options).LeaseMicros()
		}
	}
	end := s.at.Stamp + length
	for _, p := range row.Partitions {
		g, old, ok, err := s.loadGP(row.Tenant, row.Queue, row.Group, p)
		if err != nil {
			return nil, err
		}
		if !ok || g.LeaseID != op.LeaseID || !g.held(s.at.Stamp) {
			continue
		}
		g.End, g.Hold = end, end+op.SkewMicros
		s.saveGP(row.Tenant, row.Queue, row.Group, p, &g, old)
		a.Renewed++
	}
	if a.Renewed > 0 {
		a.End = end
	} else {
		s.tx.Delete(leaseKey(op.LeaseID))
	}
	return appendExtend(nil, a), nil
}

// letterID derives a dead letter's id (a UUID's text) from its key and the
// stamp it was filed at: the same on every node, new if the same message
// is filed again after a replay.
func letterID(key []byte, stamp int64) string {
	h := sha256.Sum256(binary.BigEndian.AppendUint64(append([]byte("queen-dlq\x00"), key...), uint64(stamp)))
	id := uuid.UUID(h[:16])
	id[6] = id[6]&0x0f | 0x80 // version 8: custom
	id[8] = id[8]&0x3f | 0x80
	return id.String()
}
