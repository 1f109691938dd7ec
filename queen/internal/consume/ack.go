package consume

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/raftlog"
)

// ack settles each item on its own: a refused item refuses no other.
func (s *state) ack(op *AckOp) ([]byte, error) {
	out := make([]AckAnswer, len(op.Items))
	for i := range op.Items {
		a, err := s.ackOne(op, &op.Items[i])
		if err != nil {
			return nil, err
		}
		out[i] = a
	}
	return appendAckAnswers(nil, out), nil
}

func refuse(format string, args ...any) (AckAnswer, error) {
	return AckAnswer{Error: fmt.Sprintf(format, args...)}, nil
}

func (s *state) ackOne(op *AckOp, it *AckItem) (AckAnswer, error) {
	stamp := s.at.Stamp
	b, ok, err := s.tx.Get(uidKey(it.PartitionUID))
	if err != nil {
		return AckAnswer{}, err
	}
	var ref partRef
	if ok {
		if ref, err = decodePartRef(b); err != nil {
			return AckAnswer{}, err
		}
	}
	if !ok || ref.Tenant != op.Tenant {
		return refuse("partitionId %d names no partition a consumer popped", it.PartitionUID)
	}
	g, old, ok, err := s.loadGP(op.Tenant, ref.Queue, it.Group, ref.Partition)
	if err != nil {
		return AckAnswer{}, err
	}
	if !ok {
		return refuse("consumer group %q never popped partition %s of queue %s", it.Group, ref.Partition, ref.Queue)
	}
	if it.LeaseID != "" && (g.LeaseID != it.LeaseID || !g.held(stamp)) {
		return refuse("lease %s does not hold partition %s of queue %s (expired, released or another's)", it.LeaseID, ref.Partition, ref.Queue)
	}
	m, rec, err := s.findDelivered(&g, ref, it.TransactionID, it.LeaseID != "")
	if err != nil {
		return AckAnswer{}, err
	}
	if m == nil {
		return refuse("message %q of partition %s is not awaiting an ack (acked already, or not delivered)", it.TransactionID, ref.Partition)
	}
	var a AckAnswer
	a.OK = true
	m.Pending = false
	switch it.Status {
	case StatusCompleted:
		m.Acked = true
	case StatusRetry:
	case StatusFailed:
		opts, err := s.options(op.Tenant, ref.Queue)
		if err != nil {
			return AckAnswer{}, err
		}
		m.Failures++
		if int64(m.Failures) <= opts.RetryLimit {
			m.NotBefore = stamp + opts.RetryDelay
			break
		}
		m.Acked = true // out of retries: the DLQ, or dropped
		if opts.DLQ {
			s.file(op.Tenant, ref, it, m, rec)
			a.DLQ = true
		}
	case StatusDLQ:
		m.Acked = true
		s.file(op.Tenant, ref, it, m, rec)
		a.DLQ = true
	}
	if g.LeaseID != "" && !g.pending() {
		if err := s.dropFromLease(g.LeaseID, ref.Partition); err != nil {
			return AckAnswer{}, err
		}
		g.release()
		a.Released = true
	}
	pi, err := s.v.Partition(op.Tenant, ref.Queue, ref.Partition)
	if err != nil {
		return AckAnswer{}, err
	}
	g.advance(pi.LogStart)
	s.saveGP(op.Tenant, ref.Queue, it.Group, ref.Partition, &g, old)
	if a.Released || it.Status != StatusCompleted {
		s.released(op.Tenant, ref.Queue)
	}
	return a, nil
}

// findDelivered finds the lowest unsettled delivered message of the group's
// window with transaction id txid (one the lease holds, when fenced).
func (s *state) findDelivered(g *gpState, ref partRef, txid string, fenced bool) (*msgState, raftlog.Record, error) {
	for i := range g.Msgs {
		m := &g.Msgs[i]
		if m.Acked || m.Attempts == 0 || (fenced && !m.Pending) {
			continue
		}
		rec, ok, err := s.readRecord(ref.Tenant, ref.Queue, ref.Partition, m.Offset)
		if err != nil {
			return nil, raftlog.Record{}, err
		}
		if ok && rec.TransactionID == txid {
			return m, rec, nil
		}
	}
	return nil, raftlog.Record{}, nil
}

func (s *state) options(tenant, queue string) (queueOptions, error) {
	q, ok, err := s.v.Queue(tenant, queue)
	if err != nil || !ok {
		return queueOptions{}, err
	}
	return parseOptions(q.Options), nil
}

// file puts a message in the dead-letter queue of its queue and group.
func (s *state) file(tenant string, ref partRef, it *AckItem, m *msgState, rec raftlog.Record) {
	key := letterKey(tenant, ref.Queue, it.Group, ref.Partition, m.Offset)
	l := DeadLetter{ID: letterID(key, s.at.Stamp), Queue: ref.Queue, Group: it.Group, Partition: ref.Partition, Offset: m.Offset,
		MessageID: rec.MessageID, TransactionID: rec.TransactionID, Payload: rec.Payload, Created: rec.Stamp, Filed: s.at.Stamp,
		Attempts: int(m.Attempts), Error: it.Error}
	s.tx.Set(key, l.encode())
	s.tx.Set(letterIDKey(tenant, l.ID), key)
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
			length = parseOptions(q.Options).Lease
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
