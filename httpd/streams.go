package httpd

import (
	"context"
	"encoding/json"
)

// Streamer serves the routes of the product's streaming SDK under
// /streams/v1 (queries, state/get, cycle): the SDK runs a query's
// operators in the user's process and keeps its state and progress in
// the broker. New serves them when its Broker implements Streamer too.
type Streamer interface {
	// RegisterStream registers a query (idempotent for one config hash).
	RegisterStream(ctx context.Context, tenant string, req StreamRegister) (StreamRegistered, error)
	// StreamQueries lists the tenant's queries, or the one named (none:
	// an empty list).
	StreamQueries(ctx context.Context, tenant, name string) ([]StreamQuery, error)
	// DeleteStream forgets a query, its registration and its state.
	DeleteStream(ctx context.Context, tenant, name string) (found bool, rows int64, err error)
	// StreamState reads state rows from a linearizable view; found false
	// when QueryID names no registration.
	StreamState(ctx context.Context, tenant string, req StreamStateRequest) (rows []StreamRow, found bool, err error)
	// StreamCycle applies a cycle as one entry, all or nothing.
	StreamCycle(ctx context.Context, tenant string, req StreamCycle) (StreamCycleAnswer, error)
}

// StreamRegister is a POST /streams/v1/queries body.
type StreamRegister struct {
	Name, SourceQueue, SinkQueue, ConfigHash string
	Reset                                    bool
}

// StreamRegistered is a registration's answer. Mismatch: refused, the
// query stands with ConfigHash (409 config_hash_mismatch).
type StreamRegistered struct {
	QueryID, Name, ConfigHash string
	Fresh, Reset, Mismatch    bool
}

// StreamQuery is one query as GET /streams/v1/queries lists it.
type StreamQuery struct {
	QueryID       string      `json:"query_id"`
	Name          string      `json:"name"`
	SourceQueue   string      `json:"source_queue"`
	SinkQueue     *string     `json:"sink_queue"`
	ConfigHash    string      `json:"config_hash"`
	ConsumerGroup string      `json:"consumer_group"`
	CreatedAt     string      `json:"created_at"`
	RegisteredAt  string      `json:"registered_at"`
	UpdatedAt     string      `json:"updated_at"`
	Resets        uint64      `json:"resets"`
	Cycles        uint64      `json:"cycles"`
	State         StreamState `json:"state"`
	// Lag is the source's messages the query's consumer group has not
	// settled (all of the source's while the group never popped it).
	Lag int64 `json:"lag"`
}

// StreamState is the size of a query's state: rows, and their keys' and
// values' bytes.
type StreamState struct {
	Rows  int64 `json:"rows"`
	Bytes int64 `json:"bytes"`
}

// StreamStateRequest is a POST /streams/v1/state/get body.
type StreamStateRequest struct {
	QueryID, PartitionID string
	Keys                 []string
	KeyPrefix            string
	// Ripe asks only for rows whose value's windowEnd is at or before
	// RipeAt (ms).
	Ripe   bool
	RipeAt int64
}

// StreamRow is one state row.
type StreamRow struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

// StreamStateOp is one state write of a cycle; Value is compact JSON
// (nil for a delete).
type StreamStateOp struct {
	Delete bool
	Key    string
	Value  json.RawMessage
}

// StreamCycle is a POST /streams/v1/cycle body.
type StreamCycle struct {
	QueryID, PartitionID, ConsumerGroup string
	StateOps                            []StreamStateOp
	// Pushes are the outputs: Queue, Partition, Payload and, when the
	// item gave one, TransactionID (else the broker mints one).
	Pushes []PushItem
	// Ack settles the source up to its message under its lease; nil: a
	// cycle without one (the SDK's idle flush).
	Ack *AckItem
	// AckCount is the ack's count (0: absent): given, the broker settles
	// what the SDK consumed, the messages up to the named one in the
	// SDK's order, whatever the offsets' order.
	AckCount     int
	ReleaseLease bool
}

// The reasons of a cycle that applied nothing (StreamCycleAnswer.Reason).
const (
	StreamLeaseNotCurrent = "lease_not_current"
	StreamStateConflict   = "state_conflict"
	StreamQueryNotFound   = "query_not_found"
	StreamDuplicate       = "duplicate"
	StreamBadRequest      = "bad_request"
)

// StreamCycleAnswer is a cycle's answer: applied (Success) with its
// pushes and the query's state after it, or nothing applied and why.
type StreamCycleAnswer struct {
	Success       bool
	Reason, Error string
	Pushes        []PushResult
	LeaseReleased bool
	State         StreamState
}
