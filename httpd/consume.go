package httpd

import (
	"context"
	"encoding/json"
	"time"
)

// Consumer is the consuming half of the API (API.md §2): pop, ack and
// lease extension. New serves those routes when its Broker implements
// Consumer too; otherwise they answer 404 no_such_route like any other
// unknown route.
//
// The error contract is Broker's. Pop and Ack change replicated state, so
// an unknown outcome (ErrTimeout, ErrNoLeader, ErrRetry) is a 503 the
// client retries: a retried pop may lease other messages, and the ones the
// lost answer held come back when that lease expires.
type Consumer interface {
	// Pop leases messages to the caller. ok false means there was nothing
	// to lease within req.Timeout (when req.Wait) or now (204, no body).
	// The broker does the long polling: it parks on new records and
	// released leases, never on a sleep loop.
	Pop(ctx context.Context, tenant string, req PopRequest) (ans PopAnswer, ok bool, err error)
	// Ack settles messages, one answer per item in order. Items are
	// independent: one refused item does not refuse the others.
	Ack(ctx context.Context, tenant string, items []AckItem) ([]AckResult, error)
	// ExtendLease moves a live lease's end to seconds from now (the broker
	// clock); seconds 0 means by the lease's own length. An unknown,
	// expired or released lease is Success false.
	ExtendLease(ctx context.Context, tenant, leaseID string, seconds int) (ExtendAnswer, error)
}

// QueueModeGroup is the consumer group of a pop without consumerGroup:
// queue mode, where the queue's consumers share one cursor.
const QueueModeGroup = "__QUEUE_MODE__"

// The limits and defaults of pop (API.md §2).
const (
	DefaultPopTimeout = 30 * time.Second // timeout when absent
	MaxPopTimeout     = 60 * time.Second // timeout is clamped to 0..this
	MaxPopPartitions  = 64               // partitions must be 1..this
	MaxPopBatch       = 10000            // batch must be 1..this
)

// PopRequest is one pop, its query checked and defaulted.
type PopRequest struct {
	// Queue and Partition name what to pop from: Partition "" means any
	// partition of the queue. In the discovery form (GET /api/v1/pop)
	// Queue is "" and Namespace or Task selects the queues.
	Queue, Partition string
	Namespace, Task  string
	// ConsumerGroup is the group; QueueModeGroup when the query has none.
	ConsumerGroup string
	// Batch is the most messages the call returns, across its partitions.
	Batch int
	// Partitions is the most partitions the call leases (one lease id).
	Partitions int
	// Wait asks to long-poll up to Timeout when nothing is there.
	Wait    bool
	Timeout time.Duration
	// LeaseSeconds is the lease's length; 0 means the queue's leaseTime.
	LeaseSeconds int
	// SubscriptionMode is "new" or "all": where a group that has never
	// read a partition starts. SubscriptionFrom (µs since the epoch, 0:
	// unset) starts it at the first record at or after that time instead.
	SubscriptionMode string
	SubscriptionFrom int64
	// AutoAck (commitOnDelivery) settles the messages as they are
	// delivered: no lease is left behind and LeaseID is "".
	AutoAck bool
	// Autopilot (autopilot=true): the client left batch or partitions to
	// the broker; the answer echoes what was used.
	Autopilot bool
	// Conflation (conflation=true) asks that the group conflate: per
	// partition only the newest message, those behind it retired. The
	// group's first pop fixes its policy.
	Conflation bool
}

// AutopilotBatch is the batch of a pop that leaves it to the broker
// (autopilot=true without batch): the broker-side default the 2.x client
// names (utils/autopilot.py), the most a pop returns when that much is
// ready. An autopilot pop without partitions leases one, as any pop.
const AutopilotBatch = 200

// PopAnswer is the 200 answer of a pop.
type PopAnswer struct {
	Queue string
	// Partition and PartitionID are those of the first partition claimed.
	Partition, PartitionID string
	LeaseID                string
	ConsumerGroup          string
	Messages               []PopMessage
	PartitionsClaimed      int
	// Conflation: the group conflates (its stored policy);
	// ConflationConflict: the pop asked otherwise than the group stores.
	// A pop that asked for conflation is answered 200 with them even when
	// it leased nothing (the client takes their absence for a broker that
	// ignored the flag).
	Conflation, ConflationConflict bool
}

// PopMessage is one leased message.
type PopMessage struct {
	ID            string // the message id, a UUID
	TransactionID string
	// TraceID is the producer's trace id, "" when it sent none (null).
	TraceID string
	// ProducerSub is the subject the record was pushed with, "" when
	// none (null): auth was off, or the push came through a skip path.
	ProducerSub string
	// Data is the payload, written byte for byte as stored.
	Data json.RawMessage
	// CreatedAt is the record's stamp (µs since the epoch).
	CreatedAt int64
	// PartitionID is the partition's numeric id as a decimal string: the
	// partitionId an ack names.
	PartitionID     string
	Queue           string
	Partition       string
	LeaseID         string
	ConsumerGroup   string
	DeliveryAttempt int
	Offset          int64
}

// The statuses of an ack item.
const (
	AckCompleted = "completed" // done: never delivered again
	AckFailed    = "failed"    // spends a retry; past retryLimit, the DLQ or dropped
	AckRetry     = "retry"     // released now, no retry spent
	AckDLQ       = "dlq"       // filed in the dead-letter queue now
)

// AckItem is one message to settle. Status is one of the Ack constants
// (an unknown status reads as completed). LeaseID "" is not fenced.
type AckItem struct {
	TransactionID string
	PartitionID   string
	ConsumerGroup string // QueueModeGroup when absent
	LeaseID       string
	Status        string
	Error         string
}

// AckResult answers one AckItem.
type AckResult struct {
	Index         int
	TransactionID string
	Success       bool
	// Error says why an item was refused ("" on success).
	Error string
	// LeaseReleased: the ack settled the last message its lease held on
	// that partition, so the partition is free for the group again.
	LeaseReleased bool
	// DLQ: the message went to the dead-letter queue.
	DLQ bool
	// Noop: a completed ack of a message committed already; it changed
	// nothing (answered "noop":true; an ack that settled carries none).
	Noop bool
}

// ExtendAnswer answers a lease extension.
type ExtendAnswer struct {
	Success bool
	LeaseID string
	// Renewed is how many partitions the lease holds that were extended.
	Renewed int
	// ExpiresAt is the lease's new end (µs), 0 when nothing was renewed.
	ExpiresAt int64
}
