package kvstore

import (
	"context"
	"fmt"

	"github.com/queen-mq/queen-go/raftlog"
)

// Store runs KV calls on one shard. It is safe for concurrent use, and
// any node's Store serves any call: raftlog forwards proposals and reads
// to the leader.
type Store struct {
	shard *raftlog.Shard
}

// New returns the Store over shard, which must run Appliers().
func New(shard *raftlog.Shard) *Store { return &Store{shard: shard} }

// Do runs one call of KV ops for a tenant.
//
// Validation errors (*contract.KVError) come back before anything is
// proposed or read. A call whose ops are all reads (get, getMany, getPrefix, check)
// runs as a linearizable read (shard.Read, dragonboat's ReadIndex) judged
// on the view's stamp. A call with any write is one raft entry
// (shard.Propose), judged on the entry's stamp, and its reads see its own
// earlier writes.
//
// When a required op is not applied the answer has OK false and nothing
// of the call was written. Other errors are raftlog's:
// raftlog.ErrTimeout leaves the outcome unknown (the call may still
// apply), raftlog.ErrNoLeader and raftlog.ErrClosed mean it was not
// answered.
func (s *Store) Do(ctx context.Context, tenant string, ops []Op) (*Answer, error) {
	c, err := prepare(tenant, ops)
	if err != nil {
		return nil, err
	}
	if len(c.ops) == 0 {
		return &Answer{OK: true, Results: []Result{}}, nil
	}
	if c.readOnly() {
		return s.read(ctx, c)
	}
	res, err := s.shard.Propose(ctx, raftlog.Command{Ops: []raftlog.Op{{Kind: OpKV, Data: appendCall(nil, c)}}})
	if err != nil {
		return nil, err
	}
	return decodeResult(&res, 0)
}

// read runs a read-only call on a linearizable view (raftlog's Read, which
// asks again when dragonboat loses a ReadIndex).
func (s *Store) read(ctx context.Context, c *call) (*Answer, error) {
	v, err := s.shard.Read(ctx, func(v *raftlog.View) (any, error) {
		e := evaluator{st: v, stamp: v.Stamp()}
		return e.run(c)
	})
	if err != nil {
		return nil, err
	}
	return v.(*Answer), nil
}

// Encode checks and encodes a call as one op, for a caller that proposes
// it in a command of its own beside other ops (a transaction). The
// entry's Result.Ops[i] for it reads back with DecodeAnswer; a required op
// that is not applied aborts the whole command.
func Encode(tenant string, ops []Op) (raftlog.Op, error) {
	c, err := prepare(tenant, ops)
	if err != nil {
		return raftlog.Op{}, err
	}
	return raftlog.Op{Kind: OpKV, Data: appendCall(nil, c)}, nil
}

// decodeResult reads the answer of the op at i of an entry's result.
func decodeResult(res *raftlog.Result, i int) (*Answer, error) {
	if i >= len(res.Ops) {
		return nil, fmt.Errorf("%w: the entry answered %d ops", ErrCorrupt, len(res.Ops))
	}
	if reason, ok := raftlog.Rejected(res.Ops[i]); ok {
		return nil, fmt.Errorf("%w: %s", raftlog.ErrRejected, reason)
	}
	a, err := DecodeAnswer(res.Ops[i])
	if err != nil {
		return nil, err
	}
	a.Stamp = res.Stamp
	return a, nil
}
