package consume

import (
	"bytes"
	"errors"

	"github.com/queen-mq/queen-go/raftlog"
)

// Appliers returns the consuming family's applier by op kind, to pass to
// raftlog.Host.StartShard beside the other families'. Every node of a
// shard must run it.
func Appliers() map[raftlog.OpKind]raftlog.Applier {
	return map[raftlog.OpKind]raftlog.Applier{OpConsume: applier{}}
}

// applier applies OpConsume ops through the entry's Txn, judged on the
// entry's stamp. It reads the queue log through Txn.View and never a
// clock, a random number or map order.
type applier struct{}

// Apply applies one pop, ack call or extension. An op that does not decode
// is refused (raftlog.ErrRejected at the proposer); stored state that does
// not decode halts the node.
func (applier) Apply(tx *raftlog.Txn, at raftlog.ApplyInfo, data []byte) ([]byte, error) {
	op, err := decodeOp(data)
	if err != nil {
		return nil, err
	}
	if err := checkNames(op); err != nil {
		return nil, err
	}
	s := &state{tx: tx, v: tx.View(at), at: at}
	switch op := op.(type) {
	case *PopOp:
		return s.pop(op)
	case *AckOp:
		return s.ack(op)
	case *ExtendOp:
		return s.extend(op)
	case *TxnOp:
		return s.txn(op)
	case *SeekOp:
		return s.seek(op)
	case *DeleteOp:
		return s.deleteGroup(op)
	case *ReplayOp:
		return s.replay(op)
	case *PurgeOp:
		return s.purge(op)
	case *PositionOp:
		return s.positions(op)
	case *SubscriptionOp:
		return s.subscription(op)
	case *DropQueueOp:
		return s.dropQueue(op)
	case *DeleteMessageOp:
		return s.deleteMessage(op)
	}
	return nil, errors.New("consume: unknown op")
}

// state is one op's access to the store.
type state struct {
	tx *raftlog.Txn
	v  *raftlog.View
	at raftlog.ApplyInfo
}

// loadGP reads a group's state on a partition; ok false when it has none.
func (s *state) loadGP(tenant, queue, group, partition string) (gpState, []byte, bool, error) {
	b, ok, err := s.tx.Get(gpKey(tenant, queue, group, partition))
	if err != nil || !ok {
		return gpState{}, nil, false, err
	}
	g, err := decodeGP(b)
	return g, b, err == nil, err
}

// saveGP writes g when it differs from what was read (old).
func (s *state) saveGP(tenant, queue, group, partition string, g *gpState, old []byte) {
	b := g.encode()
	if !bytes.Equal(b, old) {
		s.tx.Set(gpKey(tenant, queue, group, partition), b)
	}
}

// dropFromLease removes a partition from the row of the lease that held it.
func (s *state) dropFromLease(id, partition string) error {
	b, ok, err := s.tx.Get(leaseKey(id))
	if err != nil || !ok {
		return err
	}
	row, err := decodeLease(b)
	if err != nil {
		return err
	}
	kept := row.Partitions[:0]
	for _, p := range row.Partitions {
		if p != partition {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		s.tx.Delete(leaseKey(id))
		return nil
	}
	row.Partitions = kept
	s.tx.Set(leaseKey(id), row.encode())
	return nil
}

// readRecord reads one record of a partition.
func (s *state) readRecord(tenant, queue, partition string, off int64) (raftlog.Record, bool, error) {
	b, err := s.v.ReadRecords(tenant, queue, partition, off, raftlog.ReadLimits{MaxRecords: 1})
	if errors.Is(err, raftlog.ErrOffsetOutOfRange) || errors.Is(err, raftlog.ErrUnknownPartition) {
		return raftlog.Record{}, false, nil
	}
	if err != nil || len(b.Records) == 0 || b.Records[0].Offset != off {
		return raftlog.Record{}, false, err
	}
	return b.Records[0], true, nil
}

// indexUID records which partition a partition id names, for acks.
func (s *state) indexUID(tenant, queue, name string, uid uint64) error {
	_, ok, err := s.tx.Get(uidKey(uid))
	if err != nil || ok {
		return err
	}
	s.tx.Set(uidKey(uid), partRef{Tenant: tenant, Queue: queue, Partition: name}.encode())
	return nil
}

// released wakes the pops of queue that a freed message can serve: the
// queue-wide ones (raftlog.QueueWatchKey) and those of one partition
// (ReleaseWatchKey), after a lease was released or a cursor moved.
func (s *state) released(tenant, queue string) {
	s.tx.Notify(raftlog.QueueWatchKey(s.at.Shard, tenant, queue))
	s.tx.Notify(ReleaseWatchKey(s.at.Shard, tenant, queue))
}

// ReleaseWatchKey is notified when messages of a queue are freed for a
// pop (a lease released, a cursor moved), not when records are pushed: a
// pop of one partition waits on it and on raftlog.PartitionWatchKey, so
// pushes to other partitions do not wake it.
func ReleaseWatchKey(shard uint64, tenant, queue string) string {
	return "consume/released/" + raftlog.QueueWatchKey(shard, tenant, queue)
}
