package broker

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/queen/internal/locks"
)

var _ httpd.Locker = (*Broker)(nil)

var lockKinds = map[string]byte{"acquire": locks.KindAcquire, "renew": locks.KindRenew, "release": locks.KindRelease, "get": locks.KindGet}

// Locks runs one locks call (API.md §6). An acquire without an owner gets
// one minted here: a retry of it is then another holder.
func (b *Broker) Locks(ctx context.Context, tenant string, ops []httpd.LockOp) ([]json.Marshaler, error) {
	c := locks.Call{Tenant: tenant, Ops: make([]locks.Op, len(ops))}
	for i, o := range ops {
		c.Ops[i] = locks.Op{Kind: lockKinds[o.Op], Name: o.Name, Owner: o.Owner, Limit: o.Limit,
			TTLSeconds: o.TTLSeconds, Token: uint64(o.Token), Slot: o.Slot}
		if o.Op == "acquire" && o.Owner == "" {
			c.Ops[i].Owner = uuid.Must(uuid.NewV7()).String()
		}
	}
	got, err := b.locks.Do(ctx, c)
	if err != nil {
		return nil, mapErr(err)
	}
	out := make([]json.Marshaler, len(got))
	for i := range got {
		out[i] = lockAnswer{&got[i]}
	}
	return out, nil
}

// lockAnswer marshals a locks.Answer as the route answers it.
type lockAnswer struct{ a *locks.Answer }

func (l lockAnswer) MarshalJSON() ([]byte, error) { return json.Marshal(l.a) }
