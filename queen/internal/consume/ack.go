package consume

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// Apply settles an ack call's items (settleAll); a refused item refuses no
// other.
func (op *AckOp) Apply(s *state) ([]byte, error) {
	out, err := s.settleAll(op.Tenant, op.Items, false)
	if err != nil {
		return nil, err
	}
	return appendAckAnswers(nil, out), nil
}

func refuse(format string, args ...any) (AckAnswer, error) {
	return AckAnswer{Error: fmt.Sprintf(format, args...)}, nil
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

func (s *state) options(tenant, queue string) (contract.QueueOptions, error) {
	q, ok, err := queuelog.Queue(s.v, tenant, queue)
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
	if b, ok, err := c.tx.Get(key); err != nil {
		return err
	} else if ok { // filed before (the group read it again): that letter's id goes with it
		prev, err := decodeLetter(b)
		if err != nil {
			return err
		}
		c.tx.Delete(letterIDKey(c.tenant, prev.ID))
	}
	l := DeadLetter{ID: letterID(key, c.at.Stamp), Queue: ref.Queue, Group: it.Group, Partition: ref.Partition, Offset: m.Offset,
		MessageID: rec.MessageID, TransactionID: rec.TransactionID, Payload: rec.Payload, Created: rec.Ts, Filed: c.at.Stamp,
		Attempts: int(m.Attempts), Error: it.Error}
	c.tx.Set(key, l.encode())
	c.tx.Set(letterIDKey(c.tenant, l.ID), key)
	return nil
}

// Apply moves a live lease's end on every partition it still holds.
func (op *ExtendOp) Apply(s *state) ([]byte, error) {
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
			q, _, err := queuelog.Queue(s.v, row.Tenant, row.Queue)
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
