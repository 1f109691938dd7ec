package queuelog

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
)

// Push appends op's items as one entry and answers each item in order, with
// the entry's stamp (every appended record's ts).
func Push(ctx context.Context, s *raftlog.Shard, op PushOp) ([]PushAnswer, int64, error) {
	answer, stamp, err := s.ProposeOp(ctx, op.Op())
	if err != nil {
		return nil, stamp, err
	}
	a, err := DecodePushAnswers(answer)
	return a, stamp, err
}

// Configure stores a queue's options and returns them as stored.
func Configure(ctx context.Context, s *raftlog.Shard, op ConfigureOp) ([]byte, error) {
	answer, _, err := s.ProposeOp(ctx, op.Op())
	return answer, err
}

// Trim deletes a queue's records stamped before op.Before on every node and
// returns how many it deleted.
func Trim(ctx context.Context, s *raftlog.Shard, op TrimOp) (uint64, error) {
	return proposeCount(ctx, s, op.Op())
}

// DedupSweep deletes the dedup entries of a partition's records that are
// out of the window (DedupSweepOp) and returns how many it deleted.
func DedupSweep(ctx context.Context, s *raftlog.Shard, op DedupSweepOp) (uint64, error) {
	return proposeCount(ctx, s, op.Op())
}

// proposeCount proposes op, whose answer is a count (uvarint), and returns
// the count.
func proposeCount(ctx context.Context, s *raftlog.Shard, op raftlog.Op) (uint64, error) {
	answer, _, err := s.ProposeOp(ctx, op)
	if err != nil {
		return 0, err
	}
	n, _ := binary.Uvarint(answer)
	return n, nil
}

// WaitRecords returns once this node has applied a record of the partition
// at offset or beyond (its high watermark passed offset), or when ctx ends
// (ctx.Err()). It waits on the apply loop's notification, never polls.
func WaitRecords(ctx context.Context, s *raftlog.Shard, tenant, queue, partition string, offset int64) error {
	// Each round takes the watch first and reads the state after it, so an
	// entry applied between the two wakes the wait instead of being missed.
	uid := uint64(0)
	for {
		key := newPartitionKey(s.ID())
		if uid != 0 {
			key = watchKey(s.ID(), uid)
		}
		wake := s.Watch(key)
		got, err := s.LocalRead(func(v *raftlog.View) (any, error) {
			p, err := lookupPartition(v, tenant, queue, partition)
			if errors.Is(err, ErrUnknownPartition) {
				return storefmt.PartitionMeta{}, nil
			}
			return p, err
		})
		if err != nil {
			return err
		}
		p := got.(storefmt.PartitionMeta)
		switch {
		case p.UID != 0 && p.NextOffset > offset:
			return nil
		case p.UID != uid:
			uid = p.UID // created since: watch the partition itself
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
		}
	}
}

// newPartitionKey is notified whenever a push creates a partition.
func newPartitionKey(shard uint64) string { return fmt.Sprintf("newpartition/%d", shard) }
