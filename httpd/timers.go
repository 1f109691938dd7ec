package httpd

import (
	"context"
	"encoding/json"
)

// Timerer is a Broker that serves the timer routes (API.md §7). They are
// registered only when the broker is one.
type Timerer interface {
	// Timers applies one call of schedules, reschedules and cancels as
	// one entry and answers each in order. Delays over the horizon are
	// refused by httpd (403) before it is called.
	Timers(ctx context.Context, tenant string, ops []TimerOp) ([]TimerResult, error)
	// PeekTimer reads one pending timer; ok false when there is none.
	PeekTimer(ctx context.Context, tenant, queue, key string) (TimerRow, bool, error)
	// ListTimers pages a queue's pending timers in timerKey byte order,
	// after the key after (exclusive), up to limit.
	ListTimers(ctx context.Context, tenant, queue, after string, limit int) (rows []TimerRow, truncated bool, err error)
	// CountTimers counts a queue's pending timers whose key has prefix.
	CountTimers(ctx context.Context, tenant, queue, prefix string) (int64, error)
}

// TimerOp is one timer operation, checked: Op is schedule, reschedule or
// cancel; a schedule's Partition is defaulted, its Txn given or minted,
// its Payload decoded (base64, then zstd when payloadZstd) and valid
// JSON, its MessageID minted. A cancel's Txn is what it sent ("" none).
type TimerOp struct {
	OpIndex          int
	Op               string
	Queue, Partition string
	TimerKey         string
	Txn              string
	MessageID        [16]byte
	DelayMs          int64
	Payload          json.RawMessage
}

// TimerResult is one operation's result: Status scheduled, rescheduled,
// cancelled or absent (OK false). DeliverAt (broker-clock µs) and
// MessageID are a schedule's; Txn is the timer's (a cancel that found
// none echoes its own).
type TimerResult struct {
	OK        bool
	Status    string
	Txn       string
	MessageID [16]byte
	DeliverAt int64
}

// TimerRow is a pending timer as peek and list show it. Payload is the
// payload as stored: base64 of the JSON, or of the sealed envelope when
// Encrypted.
type TimerRow struct {
	Queue, Partition, TimerKey, Txn string
	MessageID                       [16]byte
	Payload                         []byte
	Encrypted                       bool
	// CreatedAt, DeliverAt and NextAttemptAt are broker-clock µs.
	CreatedAt, DeliverAt, NextAttemptAt int64
	Attempts                            int
	LastError                           string
}
