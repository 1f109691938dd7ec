package locks

import (
	"context"

	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
)

// Locks runs lock calls on one shard, from any node.
type Locks struct {
	Shard *raftlog.Shard
}

// Do runs one call. It first applies the call to a linearizable read of
// the state (raftlog.Shard.DryRun): a call that would write nothing (gets,
// an acquire of a held lock or of the owner's own permit, a lost renew or
// release) is answered from that read, which is where it linearizes, and
// proposes nothing; any other is one entry, which decides again. So a
// waiter polling a held lock costs the log nothing. Check's refusals come
// back before anything is proposed or read, wrapping raftlog.ErrRejected;
// other errors are raftlog's (ErrTimeout: the outcome is unknown, and a
// retry with the same owner gets the permit the first attempt took).
func (l *Locks) Do(ctx context.Context, c Call) ([]Answer, error) {
	return family.Call(len(c.Ops), Check(c.Ops), func() ([]Answer, error) {
		op := c.Op()
		v, err := l.Shard.DryRun(ctx, func(tx *raftlog.Txn, at raftlog.ApplyInfo) (any, error) {
			answer, err := applier.Apply(tx, at, op.Data)
			if err != nil || tx.Writes() > 0 {
				return nil, err
			}
			return answer, nil
		})
		if err != nil {
			return nil, err
		}
		answer, _ := v.([]byte)
		if answer == nil {
			if answer, _, err = l.Shard.ProposeOp(ctx, op); err != nil {
				return nil, err
			}
		}
		return DecodeAnswers(answer, len(c.Ops))
	})
}
