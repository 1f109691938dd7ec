package consume

import (
	"context"
	"encoding/binary"

	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

const kindSubscription byte = 10

// SubscriptionOp moves the subscription time of a group on every queue it
// reads (POST /api/v1/consumer-groups/:group/subscription): on a partition
// it has not read yet, the group starts at the first record stamped at or
// after From. Cursors it has already are untouched.
type SubscriptionOp struct {
	Tenant, Group string
	From          int64 // µs
}

// Op encodes o as an op of a command.
func (o *SubscriptionOp) Op() raftlog.Op {
	b := wire.AppendString(wire.AppendString([]byte{opVersion, kindSubscription}, o.Tenant), o.Group)
	return raftlog.Op{Kind: OpConsume, Data: binary.AppendVarint(b, o.From)}
}

// Apply rewrites the group's subscriptions; it answers on how many
// queues.
func (op *SubscriptionOp) Apply(s *state) ([]byte, error) {
	subs, err := subscriptions(s.v, op.Tenant, "", op.Group)
	if err != nil {
		return nil, err
	}
	for _, g := range subs {
		k := groupKey(op.Tenant, g.Queue, op.Group)
		b, ok, err := s.tx.Get(k)
		if err != nil || !ok {
			return nil, err
		}
		m, err := decodeGroup(b)
		if err != nil {
			return nil, err
		}
		m.From = op.From
		s.tx.Set(k, m.encode())
	}
	return countAnswer(len(subs)), nil
}

// SetSubscription moves a group's subscription time (see SubscriptionOp)
// and answers on how many queues; 0 when the group reads none.
func (c *Consumer) SetSubscription(ctx context.Context, op SubscriptionOp) (int, error) {
	return family.Propose(ctx, c.Shard, nil, op.Op(), count)
}
