package kvstore

import (
	"context"
	"errors"
	"fmt"
	"time"

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
// Validation errors (*Error) come back before anything is proposed or
// read. A call whose ops are all reads (get, getMany, getPrefix, check)
// runs as a linearizable read (shard.Read, dragonboat's ReadIndex) judged
// on the view's stamp. A call with any write is one raft entry
// (shard.Propose), judged on the entry's stamp, and its reads see its own
// earlier writes.
//
// When a required op is not applied the answer has OK false and nothing
// of the call was written. Errors besides *Error are raftlog's:
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

// The first and the longest deadline of one try of a linearizable read,
// and the pause after a try that failed at once.
const (
	firstReadTry = 250 * time.Millisecond
	maxReadTry   = 2 * time.Second
	retryPause   = 10 * time.Millisecond
)

// read runs a read-only call on a linearizable view. dragonboat answers
// nothing to a ReadIndex whose message was lost (to a peer whose
// connection is not up yet, or across a change of leader), so such a read
// would wait for its whole deadline; and a try with less than one RTT
// left fails with dragonboat's "timeout too small", which raftlog passes
// on as a plain error. A read is safe to repeat, so each try gets a short
// deadline of its own, and any failure but the evaluation's own or a
// closed shard is tried again until ctx ends, then reported as
// raftlog.ErrTimeout or raftlog.ErrNoLeader.
func (s *Store) read(ctx context.Context, c *call) (*Answer, error) {
	try := firstReadTry
	for {
		var evalErr error // fn runs on this goroutine, inside Read
		tctx, cancel := context.WithTimeout(ctx, try)
		v, err := s.shard.Read(tctx, func(v *raftlog.View) (any, error) {
			e := evaluator{st: v, stamp: v.Stamp()}
			a, err := e.run(c)
			evalErr = err
			return a, err
		})
		cancel()
		switch {
		case err == nil:
			return v.(*Answer), nil
		case evalErr != nil, errors.Is(err, raftlog.ErrClosed):
			return nil, err
		case ctx.Err() != nil:
			if !errors.Is(err, raftlog.ErrTimeout) && !errors.Is(err, raftlog.ErrNoLeader) {
				err = fmt.Errorf("%w: %w", raftlog.ErrTimeout, err)
			}
			return nil, err
		case !errors.Is(err, raftlog.ErrTimeout) && !errors.Is(err, raftlog.ErrNoLeader):
			// It failed at once: pause before the next try.
			select {
			case <-ctx.Done():
			case <-time.After(retryPause):
			}
		}
		try = min(2*try, maxReadTry)
	}
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
