package httpd

import (
	"context"
	"encoding/json"
	"errors"
)

// Admin is the consumer-group, DLQ and message half of API.md §8. New
// serves its routes when the Broker implements Admin too.
type Admin interface {
	// ConsumerGroups lists the tenant's groups, each with the queues it
	// reads.
	ConsumerGroups(ctx context.Context, tenant string) ([]GroupInfo, error)
	// ConsumerGroup describes one group; ok false when it reads no queue.
	ConsumerGroup(ctx context.Context, tenant, group string) (g GroupInfo, ok bool, err error)
	// DeleteConsumerGroup forgets a group on one queue (queue "": every
	// queue) and answers on how many queues it was subscribed. With
	// keepSubscription (deleteMetadata=false) the group's subscriptions
	// stay, so it starts again where it subscribed.
	DeleteConsumerGroup(ctx context.Context, tenant, group, queue string, keepSubscription bool) (int, error)
	// Message describes the message a partition id and transaction id
	// name (ok false: none known).
	Message(ctx context.Context, tenant, partitionID, transactionID string) (MessageDetail, bool, error)
	// RetryMessage puts the message back from every dead-letter queue it
	// is in (as ReplayDLQ does) and answers each replay; found is false
	// when the ids name no message.
	RetryMessage(ctx context.Context, tenant, partitionID, transactionID string) (replays []ReplayAnswer, found bool, err error)
	// DeleteMessage deletes a message for every consumer group (none is
	// delivered it again); found is false when the ids name no message
	// (deleted already, too).
	DeleteMessage(ctx context.Context, tenant, partitionID, transactionID string) (m MessageInfo, found bool, err error)
	// DeleteQueue deletes a queue: its partitions and records, its
	// consumer groups' state on it, its dead letters and its dedup index
	// (ok false: there was no such queue). What the S3 sink wrote of it
	// stays in the lake.
	DeleteQueue(ctx context.Context, tenant, queue string) (QueueDeleted, bool, error)
	// SetSubscription moves the subscription time of a group on every
	// queue it reads (where it starts on a partition it has not read) and
	// answers on how many queues; 0 when it reads none.
	SetSubscription(ctx context.Context, tenant, group string, from int64) (int, error)
	// SeekConsumerGroup moves a group's cursors and releases its leases
	// there; it answers how many partitions moved.
	SeekConsumerGroup(ctx context.Context, tenant string, req SeekRequest) (int, error)
	// DLQ lists a page of the dead letters q selects and answers how many
	// it selects in all.
	DLQ(ctx context.Context, tenant string, q DLQQuery) (page []DeadLetter, total int, err error)
	// ReplayDLQ pushes a copy of a dead letter back (to queue/partition
	// when given, else where it came from) and takes it out of the DLQ.
	// A letter not in the DLQ is ErrGone.
	ReplayDLQ(ctx context.Context, tenant, id, queue, partition string) (ReplayAnswer, error)
	// PurgeDLQ deletes a queue's dead letters (of one group, or all when
	// group is "") and answers how many.
	PurgeDLQ(ctx context.Context, tenant, queue, group string) (int, error)
	// Messages lists records of the tenant's queues with their status for
	// queue mode.
	Messages(ctx context.Context, tenant string, q MessagesQuery) ([]MessageInfo, error)
}

// MessageDetail is GET /api/v1/messages/:partitionId/:transactionId: the
// message as GET /api/v1/messages lists it (its status for queue mode),
// its status for each group subscribed to its queue, and the ids of its
// dead letters.
type MessageDetail struct {
	MessageInfo
	Groups      []GroupStatus
	DeadLetters []string
}

// GroupStatus is a message's status for one consumer group: pending,
// processing, completed or dlq.
type GroupStatus struct {
	Group, Status string
}

// QueueDeleted is what DeleteQueue deleted.
type QueueDeleted struct {
	Partitions     int64
	Messages       int64 // the records the partitions held
	ConsumerGroups int
	DeadLetters    int
}

// DLQQuery selects dead letters: of a queue ("": every queue), a group
// ("": every group), a partition ("": every one), filed in [From, To) (µs,
// 0: open); the page skips Offset of them and holds up to Limit.
type DLQQuery struct {
	Queue, Group, Partition string
	From, To                int64
	Offset, Limit           int
}

// ErrGone is the error of ReplayDLQ for a dead letter not in the DLQ: 404
// with code gone.
var ErrGone = errors.New("gone")

// GroupInfo is a consumer group and the queues it reads.
type GroupInfo struct {
	Name   string
	Queues []GroupQueue
}

// GroupQueue is a group's subscription to one queue.
type GroupQueue struct {
	Queue string
	// SubscribedAt is when the group first read (or sought) the queue (µs);
	// SubscriptionMode "new" or "all".
	SubscribedAt     int64
	SubscriptionMode string
	// Lag is the records not yet settled, over the queue's partitions.
	Lag        int64
	Partitions []GroupPartition
}

// GroupPartition is a group's position on one partition.
type GroupPartition struct {
	Partition string
	// Cursor is the first offset not settled; HighWatermark the offset the
	// next record gets.
	Cursor, HighWatermark int64
	// LeaseID and LeaseExpiresAt (µs) name the live lease that holds the
	// partition, when one does.
	LeaseID        string
	LeaseExpiresAt int64
}

// SeekRequest moves a group on a queue (one partition when Partition is
// set) to the end, or to the first record at or after To (µs).
type SeekRequest struct {
	Group, Queue, Partition string
	ToEnd                   bool
	To                      int64
}

// DeadLetter is one message in a dead-letter queue.
type DeadLetter struct {
	ID            string
	Queue         string
	ConsumerGroup string
	Partition     string
	Offset        int64
	MessageID     [16]byte
	TransactionID string
	// Data is the payload as stored (valid JSON; empty renders as null).
	Data      json.RawMessage
	CreatedAt int64 // the record's stamp (µs)
	FailedAt  int64 // when it was filed (µs)
	Attempts  int
	Error     string
}

// ReplayAnswer says what a replay did: Verdict "moved", or "duplicate"
// when the copy's transaction id (dlq:<id>) had been pushed already.
type ReplayAnswer struct {
	ID, Verdict, Queue, Partition string
}

// The limits of GET /api/v1/messages.
const (
	DefaultMessagesLimit = 200
	MaxMessagesLimit     = 1000
)

// MessagesQuery filters GET /api/v1/messages: a queue (or the queues of a
// namespace or task), a partition, a status (pending, processing,
// completed, dlq; "" any), a time range [From, To) of stamps (0: open),
// and a page (Offset messages skipped, then up to Limit).
type MessagesQuery struct {
	Queue, Partition, Namespace, Task, Status string
	From, To                                  int64
	Offset, Limit                             int
}

// MessageInfo is one message of GET /api/v1/messages.
type MessageInfo struct {
	ID            [16]byte
	TransactionID string
	Queue         string
	Partition     string
	PartitionID   string
	Offset        int64
	Data          json.RawMessage
	CreatedAt     int64
	// Status is the message's state for queue mode: pending (not yet
	// delivered), processing (under a lease), completed, or dlq.
	Status string
}
