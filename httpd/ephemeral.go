package httpd

import (
	"context"
	"encoding/json"
	"time"
)

// Ephemeral is a Broker that serves the ephemeral routes
// (/api/v1/ephemeral/*, route_ephemeral.go). New registers them only when
// the broker is one; otherwise they answer 404 no_such_route, which the
// official client reads as a broker without ephemeral queues.
//
// An ephemeral queue's messages live in the memory of the node that
// answers the call, never in the replicated log: each node has its own,
// serves them whether it leads or not, and loses them when it stops.
//
// Error contract: Broker's. A push that does not fit now is an *Error 429
// CodeOverloaded (the client retries it after Retry-After); one that can
// never fit an *Error 413 CodePayloadTooLarge. No method waits for raft,
// so none answers ErrTimeout, ErrNoLeader or ErrRetry.
type Ephemeral interface {
	// EphemeralPush appends the payloads to one partition, all or none,
	// making the queue and the partition when new; it answers how many
	// it pushed.
	EphemeralPush(ctx context.Context, tenant string, req EphemeralPush) (int, error)
	// EphemeralPop takes up to req.Batch messages for the group (none is
	// an answer: an empty slice). When req.Wait it long-polls up to
	// req.Timeout, parked, never in a sleep loop.
	EphemeralPop(ctx context.Context, tenant string, req EphemeralPop) ([]EphemeralMessage, error)
	// EphemeralAck settles deliveries and answers each one's outcome in
	// order (EphemeralAcked, …). It never makes a queue.
	EphemeralAck(ctx context.Context, tenant string, req EphemeralAck) ([]string, error)
	// EphemeralConfigure declares the queue and changes the options
	// req sets (nil fields keep theirs); it answers every option in force.
	EphemeralConfigure(ctx context.Context, tenant string, req EphemeralConfigure) (EphemeralOptions, error)
	// EphemeralReset drops the queue's messages and leases, keeps its
	// options and groups, and answers how many messages it dropped (0 for
	// an absent queue, which it does not make).
	EphemeralReset(ctx context.Context, tenant, queue string) (int, error)
	// EphemeralDelete forgets the queue; false when there was none.
	EphemeralDelete(ctx context.Context, tenant, queue string) (bool, error)
	// EphemeralQueues lists the tenant's queues on this node, by name.
	EphemeralQueues(ctx context.Context, tenant string) ([]EphemeralQueue, error)
	// EphemeralDepth describes one queue; ok false when there is none.
	EphemeralDepth(ctx context.Context, tenant, queue string) (d EphemeralDepth, ok bool, err error)
}

// The ephemeral routes' codes and bounds.
const (
	// CodeOverloaded is the 429 of a push that does not fit now (API.md
	// §0: a write budget full): the node's memory cap or the queue's own
	// bound under policy reject.
	CodeOverloaded = "overloaded"
	// CodeEphemeralQueueNotFound is the 404 of the depth of a queue this
	// node does not have (the official client's EPHEMERAL_QUEUE_NOT_FOUND).
	CodeEphemeralQueueNotFound = "ephemeral_queue_not_found"
	// MaxEphemeralAcks caps the acks of one ephemeral ack call.
	MaxEphemeralAcks = 10000
)

// The outcomes of an ephemeral ack.
const (
	EphemeralAcked       = "acked"       // settled for the group
	EphemeralRedelivered = "redelivered" // given back: delivered again (attempts+1) unless its retries are spent
	EphemeralStale       = "stale"       // of an earlier ring: before a restart, a reset or a delete
	EphemeralUnknown     = "unknown"     // not a delivery the group holds now
)

// The policies of an ephemeral queue's bounds.
const (
	EphemeralPolicyReject     = "reject"      // a push past maxBytes or maxLength is 429
	EphemeralPolicyDropOldest = "drop_oldest" // the queue's oldest messages make room
)

// EphemeralPush is one push, checked: Partition defaulted to
// DefaultPartition, Payloads non-empty, each the JSON text as sent.
type EphemeralPush struct {
	Queue, Partition string
	Payloads         [][]byte
}

// EphemeralPop is one pop, checked and defaulted: Partition "" reads
// every partition; Group QueueModeGroup when the query names none; Batch
// 1..MaxPopBatch; Timeout 0..MaxPopTimeout, counted only when Wait.
type EphemeralPop struct {
	Queue, Partition string
	Group            string
	Batch            int
	Wait             bool
	Timeout          time.Duration
	// AutoAck settles at delivery (commitOnDelivery, autoAck).
	AutoAck bool
}

// EphemeralMessage is one delivered message.
type EphemeralMessage struct {
	// ID names the delivery: the ack sends it back. Opaque.
	ID        string
	Partition string
	// Payload is the JSON text as pushed, written out byte for byte.
	Payload json.RawMessage
	// Attempts counts the group's deliveries of the message (≥ 1).
	Attempts int
}

// EphemeralAck is one ack call: Group QueueModeGroup when absent; 1 to
// MaxEphemeralAcks items.
type EphemeralAck struct {
	Queue, Group string
	Acks         []EphemeralAckItem
}

// EphemeralAckItem is one delivery to settle: Status AckCompleted,
// AckFailed or AckRetry. Error is what the consumer said, kept nowhere
// (there is no DLQ).
type EphemeralAckItem struct {
	ID, Status, Error string
}

// EphemeralWindow is an ephemeral queue's windowBuffer: a waiting pop
// that sees a message holds on up to Ms for Count (0: its batch) of them.
type EphemeralWindow struct {
	Ms    int64 `json:"ms"`
	Count int64 `json:"count"`
}

// EphemeralConfigure is a configure call, checked: a nil option keeps
// the queue's value (a new queue's is the default).
type EphemeralConfigure struct {
	Queue        string
	MaxBytes     *int64
	MaxLength    *int64
	Policy       *string
	TTLSeconds   *int64
	LeaseSeconds *int64
	RetryLimit   *int64
	WindowBuffer *EphemeralWindow
}

// EphemeralOptions are an ephemeral queue's options, as configure and
// depth answer them (in the wire's order).
type EphemeralOptions struct {
	MaxBytes     int64           `json:"maxBytes"`
	MaxLength    int64           `json:"maxLength"`
	Policy       string          `json:"policy"`
	TTLSeconds   int64           `json:"ttlSeconds"`
	LeaseSeconds int64           `json:"leaseSeconds"`
	RetryLimit   int64           `json:"retryLimit"`
	WindowBuffer EphemeralWindow `json:"windowBuffer"`
}

// EphemeralQueue is one queue's gauges on this node. Bytes count each
// message's payload and the broker's bookkeeping.
type EphemeralQueue struct {
	Queue          string `json:"queue"`
	Declared       bool   `json:"declared"`
	Messages       int64  `json:"messages"`
	Bytes          int64  `json:"bytes"`
	Inflight       int    `json:"inflight"`
	PartitionCount int    `json:"partitionCount"`
	GroupCount     int    `json:"groupCount"`
}

// EphemeralDepth is one queue in detail: partitions in creation order,
// groups by name, each group's Pending (yet to be delivered to it, new or
// given back) and Inflight (leased).
type EphemeralDepth struct {
	EphemeralQueue
	Options    EphemeralOptions
	Partitions []EphemeralPartitionDepth
	Groups     []EphemeralGroupDepth
}

// EphemeralPartitionDepth is one partition's gauges.
type EphemeralPartitionDepth struct {
	Partition string                `json:"partition"`
	Messages  int64                 `json:"messages"`
	Bytes     int64                 `json:"bytes"`
	Groups    []EphemeralGroupDepth `json:"groups"`
}

// EphemeralGroupDepth is one group's backlog.
type EphemeralGroupDepth struct {
	Group    string `json:"group"`
	Pending  int    `json:"pending"`
	Inflight int    `json:"inflight"`
}
