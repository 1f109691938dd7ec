package consume

import (
	"errors"
	"fmt"

	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// Apply moves the group's cursors; it answers how many partitions moved.
func (op *SeekOp) Apply(s *state) ([]byte, error) {
	if _, ok, err := s.tx.Get(groupKey(op.Tenant, op.Queue, op.Group)); err != nil {
		return nil, err
	} else if !ok {
		s.tx.Set(groupKey(op.Tenant, op.Queue, op.Group), groupMeta{Created: s.at.Stamp, Mode: ModeAll}.encode())
	}
	moved := 0
	one := func(pi queuelog.PartitionInfo) (bool, error) {
		moved++
		return true, s.seekOne(op, pi)
	}
	var err error
	if op.Partition == "" {
		err = queuelog.EachPartition(s.v, op.Tenant, op.Queue, 0, one)
	} else {
		var pi queuelog.PartitionInfo
		if pi, err = queuelog.Partition(s.v, op.Tenant, op.Queue, op.Partition); err == nil {
			_, err = one(pi)
		} else if errors.Is(err, queuelog.ErrUnknownPartition) {
			err = nil
		}
	}
	if err != nil {
		return nil, err
	}
	s.released(op.Tenant, op.Queue)
	return countAnswer(moved), nil
}

// seekOne moves the group's cursor on one partition and releases its lease.
func (s *state) seekOne(op *SeekOp, pi queuelog.PartitionInfo) error {
	g, old, _, err := s.loadGP(op.Tenant, op.Queue, op.Group, pi.Name)
	if err != nil {
		return err
	}
	if g.LeaseID != "" {
		if err := s.dropFromLease(g.LeaseID, pi.Name); err != nil {
			return err
		}
	}
	to := pi.LastOffset + 1
	if !op.ToEnd {
		at, err := queuelog.OffsetForTime(s.v, op.Tenant, op.Queue, pi.Name, op.To)
		if err != nil {
			return err
		}
		if at.Found {
			to = at.Offset
		}
	}
	g = gpState{Cursor: to}
	s.saveGP(op.Tenant, op.Queue, op.Group, pi.Name, &g, old)
	return s.indexUID(op.Tenant, op.Queue, pi.Name, pi.UID)
}

// Apply forgets a group on one queue or on all; it answers how many
// queues it was subscribed to.
func (op *DeleteOp) Apply(s *state) ([]byte, error) {
	queues := []string{op.Queue}
	if op.Queue == "" {
		subs, err := subscriptions(s.v, op.Tenant, "", op.Group)
		if err != nil {
			return nil, err
		}
		queues = queues[:0]
		for _, g := range subs {
			queues = append(queues, g.Queue)
		}
	}
	n := 0
	for _, q := range queues {
		_, ok, err := s.tx.Get(groupKey(op.Tenant, q, op.Group))
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		n++
		if !op.KeepSubscription {
			s.tx.Delete(groupKey(op.Tenant, q, op.Group))
		}
		p := gpPrefix(op.Tenant, q, op.Group)
		s.tx.DeleteRange(p, wire.PrefixEnd(p))
		m := name(name(name([]byte{prefixMetadata}, op.Tenant), q), op.Group)
		s.tx.DeleteRange(m, wire.PrefixEnd(m))
		s.released(op.Tenant, q)
	}
	return countAnswer(n), nil
}

// Apply takes a dead letter out of the DLQ, or rolls the entry back when
// it is gone already.
func (op *ReplayOp) Apply(s *state) ([]byte, error) {
	k, ok, err := s.tx.Get(letterIDKey(op.Tenant, op.ID))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, raftlog.Abort(appendTxnRollback(-1, fmt.Sprintf("dead letter %s is not in the DLQ", op.ID)))
	}
	s.tx.Delete(k)
	s.tx.Delete(letterIDKey(op.Tenant, op.ID))
	return nil, nil
}

// Apply deletes dead letters; it answers how many.
func (op *PurgeOp) Apply(s *state) ([]byte, error) {
	p := letterPrefix(op.Tenant, op.Queue)
	if op.Group != "" {
		p = name(p, op.Group)
	}
	var ids []string
	err := family.Rows(s.tx.Scan, p, wire.PrefixEnd(p), family.Value(decodeLetter), func(l DeadLetter) bool {
		ids = append(ids, l.ID)
		return true
	})
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		s.tx.Delete(letterIDKey(op.Tenant, id))
	}
	s.tx.DeleteRange(p, wire.PrefixEnd(p))
	return countAnswer(len(ids)), nil
}
