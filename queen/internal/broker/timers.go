package broker

import (
	"context"
	"errors"
	"fmt"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/queen/internal/seal"
	"github.com/queen-mq/queen-go/queen/internal/timers"
	"github.com/queen-mq/queen-go/raftlog"
)

var _ httpd.Timerer = (*Broker)(nil)

var timerKinds = map[string]byte{"schedule": timers.KindSchedule, "reschedule": timers.KindReschedule, "cancel": timers.KindCancel}

// timerCall turns the API's timer ops into the family's: a payload is
// sealed when its queue is encrypted now, as a push's is.
func (b *Broker) timerCall(tenant string, ops []httpd.TimerOp) (timers.Call, error) {
	c := timers.Call{Tenant: tenant, Ops: make([]timers.Op, len(ops))}
	facts := b.queueFacts(tenant)
	for i, o := range ops {
		t := timers.Op{Kind: timerKinds[o.Op], Queue: o.Queue, Partition: o.Partition, Key: o.TimerKey, Txn: o.Txn,
			MessageID: o.MessageID, DelayMicros: max(o.DelayMs, 0) * 1000, Payload: o.Payload}
		if o.Op != "cancel" {
			f, err := facts(o.Queue)
			if err != nil {
				return c, err
			}
			if f.encrypted {
				if t.Payload, err = b.seal.Seal(o.Payload); errors.Is(err, seal.ErrNoKey) || b.seal == nil {
					return c, errNoKey(o.Queue)
				} else if err != nil {
					return c, err
				}
				t.Sealed = true
			}
		}
		c.Ops[i] = t
	}
	return c, nil
}

// Timers applies one timer call (API.md §7) as one entry.
func (b *Broker) Timers(ctx context.Context, tenant string, ops []httpd.TimerOp) ([]httpd.TimerResult, error) {
	c, err := b.timerCall(tenant, ops)
	if err != nil {
		return nil, err
	}
	got, err := b.timers.Do(ctx, c)
	if err != nil {
		return nil, mapErr(err)
	}
	return timerResults(got), nil
}

func timerResults(got []timers.Answer) []httpd.TimerResult {
	out := make([]httpd.TimerResult, len(got))
	for i, a := range got {
		out[i] = httpd.TimerResult{OK: a.Status != timers.StatusAbsent, Status: timers.StatusNames[a.Status], Txn: a.Txn,
			MessageID: a.MessageID, DeliverAt: a.DeliverAt}
	}
	return out
}

// PeekTimer reads one pending timer on a linearizable view.
func (b *Broker) PeekTimer(ctx context.Context, tenant, queue, key string) (httpd.TimerRow, bool, error) {
	v, err := b.timers.Read(ctx, func(v *raftlog.View) (any, error) {
		t, ok, err := timers.Peek(v, tenant, queue, key)
		if !ok {
			return nil, err
		}
		return &t, err
	})
	if err != nil {
		return httpd.TimerRow{}, false, mapErr(err)
	}
	if v == nil {
		return httpd.TimerRow{}, false, nil
	}
	return timerRow(v.(*timers.Timer)), true, nil
}

// ListTimers pages a queue's pending timers on a linearizable view.
func (b *Broker) ListTimers(ctx context.Context, tenant, queue, after string, limit int) ([]httpd.TimerRow, bool, error) {
	type page struct {
		rows      []timers.Timer
		truncated bool
	}
	v, err := b.timers.Read(ctx, func(v *raftlog.View) (any, error) {
		rows, truncated, err := timers.List(v, tenant, queue, after, limit)
		return page{rows, truncated}, err
	})
	if err != nil {
		return nil, false, mapErr(err)
	}
	p := v.(page)
	out := make([]httpd.TimerRow, len(p.rows))
	for i := range p.rows {
		out[i] = timerRow(&p.rows[i])
	}
	return out, p.truncated, nil
}

// CountTimers counts a queue's pending timers on a linearizable view.
func (b *Broker) CountTimers(ctx context.Context, tenant, queue, prefix string) (int64, error) {
	v, err := b.timers.Read(ctx, func(v *raftlog.View) (any, error) { return timers.Count(v, tenant, queue, prefix) })
	if err != nil {
		return 0, mapErr(err)
	}
	n, ok := v.(int64)
	if !ok {
		return 0, fmt.Errorf("timers: count answered %T", v)
	}
	return n, nil
}

func timerRow(t *timers.Timer) httpd.TimerRow {
	return httpd.TimerRow{Queue: t.Queue, Partition: t.Partition, TimerKey: t.Key, Txn: t.Txn, MessageID: t.MessageID,
		Payload: t.Payload, Encrypted: t.Sealed, CreatedAt: t.Created, DeliverAt: t.DeliverAt, NextAttemptAt: t.Due,
		Attempts: t.Attempts, LastError: t.LastError}
}
