package ephemeral

import (
	"errors"
	"fmt"
	"time"
)

// Policy says what a push that would break a queue's own bound (MaxBytes,
// MaxLength) does.
type Policy string

// The policies of QueueOptions.Policy.
const (
	// PolicyReject refuses the push (*FullError): the queue keeps what it
	// holds.
	PolicyReject Policy = "reject"
	// PolicyDropOldest drops the queue's oldest messages until the push
	// fits: feed semantics. It also makes room under the node's cap, from
	// its own messages only.
	PolicyDropOldest Policy = "drop_oldest"
)

// ErrBadOption is wrapped by Configure's refusal of an option out of its
// range (the HTTP API checks them first; this guards other callers).
var ErrBadOption = errors.New("ephemeral: bad option")

// WindowBuffer lets a waiting pop fatten its batch: once a message is
// there, the pop waits up to Wait more for Count messages (0: its batch)
// before it takes what there is. Wait 0 turns it off.
type WindowBuffer struct {
	Wait  time.Duration
	Count int
}

// QueueOptions are one ephemeral queue's bounds. They live in this node's
// memory, like the messages: a restart forgets them.
type QueueOptions struct {
	// MaxBytes bounds the bytes the queue holds (each message counts its
	// payload and MessageOverhead); 0: only the node's cap.
	MaxBytes int64
	// MaxLength bounds the messages the queue holds; 0: no bound.
	MaxLength int64
	// Policy says what a push past MaxBytes or MaxLength does.
	Policy Policy
	// TTL drops a message that long after its push, delivered or not; 0:
	// never.
	TTL time.Duration
	// Lease is how long a popped message stays with its consumer before
	// it is delivered again.
	Lease time.Duration
	// RetryLimit is how many deliveries past the first a message gets
	// (per group) before it is dropped and counted; there is no DLQ.
	RetryLimit int
	// WindowBuffer fattens waiting pops.
	WindowBuffer WindowBuffer
}

// The defaults of a queue that a push or a pop created, and of the
// options a configure does not give.
const (
	DefaultLease      = 30 * time.Second
	DefaultRetryLimit = 3
)

// DefaultQueueOptions are the options of a queue nobody configured.
func DefaultQueueOptions() QueueOptions {
	return QueueOptions{Policy: PolicyReject, Lease: DefaultLease, RetryLimit: DefaultRetryLimit}
}

// Patch changes some options of a queue: a nil field keeps the queue's
// value. WindowBuffer replaces both of its members.
type Patch struct {
	MaxBytes     *int64
	MaxLength    *int64
	Policy       *Policy
	TTL          *time.Duration
	Lease        *time.Duration
	RetryLimit   *int
	WindowBuffer *WindowBuffer
}

// apply returns o with p's fields, or an error wrapping ErrBadOption
// naming the first one out of its range.
func (p Patch) apply(o QueueOptions) (QueueOptions, error) {
	var err error
	patch(&err, &o.MaxBytes, p.MaxBytes, func(v int64) bool { return v >= 0 }, "maxBytes %d is negative")
	patch(&err, &o.MaxLength, p.MaxLength, func(v int64) bool { return v >= 0 }, "maxLength %d is negative")
	patch(&err, &o.Policy, p.Policy, func(v Policy) bool { return v == PolicyReject || v == PolicyDropOldest }, "policy %q is not reject or drop_oldest")
	patch(&err, &o.TTL, p.TTL, func(v time.Duration) bool { return v >= 0 }, "ttl %v is negative")
	patch(&err, &o.Lease, p.Lease, func(v time.Duration) bool { return v >= time.Second }, "lease %v is under a second")
	patch(&err, &o.RetryLimit, p.RetryLimit, func(v int) bool { return v >= 0 }, "retryLimit %d is negative")
	patch(&err, &o.WindowBuffer, p.WindowBuffer, func(v WindowBuffer) bool { return v.Wait >= 0 && v.Count >= 0 }, "windowBuffer %+v is negative")
	return o, err
}

// patch sets *to to *from when from is set and ok, else (unless *err is
// set already) sets *err to ErrBadOption with bad's text of the value.
func patch[T any](err *error, to, from *T, ok func(T) bool, bad string) {
	switch {
	case *err != nil || from == nil:
	case !ok(*from):
		*err = fmt.Errorf("%w: "+bad, ErrBadOption, *from)
	default:
		*to = *from
	}
}
