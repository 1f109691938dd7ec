package httpd

import (
	"context"
	"encoding/json"

	"github.com/queen-mq/queen-go/contract"
)

// Transactor serves POST /api/v1/transaction (API.md §3). New serves the
// route when its Broker implements Transactor too.
type Transactor interface {
	// Transaction applies req as one entry, all or nothing. A rollback is
	// an answer (Success false, with its Reason), not an error; errors are
	// Broker's error contract (503 with an unknown outcome: the client
	// retries with the same ids, and dedup and settled acks make a retry
	// of a committed transaction roll back as duplicate or rejected_ack).
	Transaction(ctx context.Context, tenant string, req TxnRequest) (TxnAnswer, error)
}

// The limits of a transaction (API.md §3).
const (
	MaxTxnKVOps  = 64  // kv[] ops
	MaxTxnKVKeys = 256 // keys across kv[]
)

// TxnRequest is a transaction, checked: its operations split by type, in
// order, each with the index of the operation it came from. Every push
// item has its message id (httpd mints them as for POST /api/v1/push),
// and every ack its resolved lease. It holds at least one push, ack or
// kv op.
type TxnRequest struct {
	Pushes []TxnPush
	Acks   []TxnAck
	// RequiredLeases must all still hold their partitions when the
	// transaction applies.
	RequiredLeases []string
	// KV is the kv[] ops (KV ops minus getPrefix).
	KV []KVOp
	// Timers is the timers[] ops, checked as POST /api/v1/timers checks
	// them (message ids minted, payloads decoded).
	Timers []TimerOp
	// Positions is the positions[] ops: a consumer group's place on a
	// partition, committed with the rest.
	Positions []TxnPosition
}

// TxnPosition sets a consumer group's position on a partition: Offset is
// the last offset the group is done with (its next read is Offset+1);
// nil forgets its position there, so the group reads the partition again
// as its subscription says. Metadata is kept beside it (at most
// MaxPositionMetadata bytes). Mode is the subscription (new or all) of a
// group that has none yet ("" new).
type TxnPosition struct {
	OpIndex                 int
	Queue, Group, Partition string
	Offset                  *int64
	Metadata                string
	Mode                    string
}

// TxnPush is one pushed item: an operation of type push holds one (the
// inline form) or several (items[]).
type TxnPush struct {
	OpIndex int
	Item    PushItem
}

// TxnAck is one ack operation. Its LeaseID is already resolved: its own
// leaseId, else the single lease named by requiredLeases and the other
// acks, else "" (unfenced).
type TxnAck struct {
	OpIndex int
	Item    AckItem
}

// The rollback reasons of a transaction, in priority order.
const (
	TxnRejectedAck    = "rejected_ack"
	TxnDuplicate      = "duplicate"
	TxnKVPrecondition = contract.KVReasonPrecondition // the KV call's own reason
	TxnQueueNotFound  = "queue_not_found"
	TxnBadRequest     = "bad_request"
	TxnInternal       = "internal"
)

// TxnAnswer is a processed transaction: committed (Success, Results) or
// rolled back (Reason, Error).
type TxnAnswer struct {
	// TransactionID is the broker's id of the transaction.
	TransactionID string
	Success       bool
	Reason, Error string
	// KVFailure is the failed required KV op of a kv_precondition
	// rollback.
	KVFailure *TxnKVFailure
	// Results are in one index space: the operations in order (a push
	// operation gives one result per item, all with its index), then kv.
	Results []TxnResult
}

// TxnKVFailure says which kv op failed its precondition and why.
type TxnKVFailure struct {
	FailedIndex int
	KVReason    string
	// Version and Value are the key's current ones (Version 0: absent).
	Version int64
	Value   json.RawMessage
}

// TxnResult is one result of a committed transaction. Type says which
// fields are meaningful: "push" (TransactionID, MessageID, Queue,
// Duplicate), "ack" (TransactionID, DLQ) or "kv" (OpIndex, KV).
//
// httpd answers the results in the request's order (checking their
// count and Type) and renders index, opIndex, transactionId and
// queueName from the request; of a result it reads Type, MessageID (zero:
// the id httpd minted), Duplicate, DLQ and KV.
type TxnResult struct {
	Index         int
	Type          string
	OpIndex       int
	TransactionID string
	MessageID     [16]byte
	Queue         string
	Duplicate     bool
	DLQ           bool
	// Timer is a timer op's result (type "timer").
	Timer *TimerResult
	// KV is the kv op's result in the KV API's shape: it must marshal to
	// a JSON object, whose members follow index, type and opIndex in the
	// answer (its own index, type and opIndex are dropped).
	KV json.Marshaler
}
