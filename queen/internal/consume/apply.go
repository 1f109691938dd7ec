package consume

import (
	"bytes"
	"errors"

	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// Appliers returns the consuming family's applier by op kind, to pass to
// raftlog.Host.StartShard beside the other families'. Every node of a
// shard must run it.
func Appliers() map[raftlog.OpKind]raftlog.Applier { return applier.Appliers(OpConsume) }

// applier applies OpConsume ops through the entry's Txn, judged on the
// entry's stamp. It reads the queue log through Txn.View and never a
// clock, a random number or map order. An op that does not decode, or
// whose names the contract refuses, is refused (raftlog.ErrRejected at
// the proposer); stored state that does not decode halts the node.
var applier = family.Applier[*state]{Decode: decodeChecked, Growing: grows,
	State: func(e family.Entry) *state { return &state{tx: e.Tx, v: e.Tx.View(e.At), at: e.At} }}

// decodeChecked decodes an op and checks its names (checkNames).
func decodeChecked(data []byte) (family.Op[*state], error) {
	op, err := decodeOp(data)
	if err != nil {
		return nil, err
	}
	return op, checkNames(op)
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
func (s *state) readRecord(tenant, queue, partition string, off int64) (queuelog.Record, bool, error) {
	b, err := queuelog.ReadRecords(s.v, tenant, queue, partition, off, queuelog.ReadLimits{MaxRecords: 1})
	if errors.Is(err, queuelog.ErrOffsetOutOfRange) || errors.Is(err, queuelog.ErrUnknownPartition) {
		return queuelog.Record{}, false, nil
	}
	if err != nil || len(b.Records) == 0 || b.Records[0].Offset != off {
		return queuelog.Record{}, false, err
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
// queue-wide ones (queuelog.QueueWatchKey) and those of one partition
// (ReleaseWatchKey), after a lease was released or a cursor moved.
func (s *state) released(tenant, queue string) {
	s.tx.Notify(queuelog.QueueWatchKey(s.at.Shard, tenant, queue))
	s.tx.Notify(ReleaseWatchKey(s.at.Shard, tenant, queue))
}

// ReleaseWatchKey is notified when messages of a queue are freed for a
// pop (a lease released, a cursor moved), not when records are pushed: a
// pop of one partition waits on it and on queuelog.PartitionWatchKey, so
// pushes to other partitions do not wake it.
func ReleaseWatchKey(shard uint64, tenant, queue string) string {
	return "consume/released/" + queuelog.QueueWatchKey(shard, tenant, queue)
}
