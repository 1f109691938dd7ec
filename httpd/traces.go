package httpd

import (
	"context"
	"encoding/json"
)

// Tracer is a Broker that serves the trace routes (route_traces.go):
// what consumers note about the messages they popped, and the reads a
// dashboard makes of it. They are registered only when the broker is one.
// The error contract is Broker's.
type Tracer interface {
	// RecordTrace stores one event, checked by httpd (TraceEvent), as one
	// entry and answers it as stored (Data not set). A partition id or
	// transactionId the broker does not know is stored all the same.
	RecordTrace(ctx context.Context, tenant string, ev TraceEvent) (TraceRow, error)
	// TracesOf reads a message's events, oldest first, at most limit;
	// truncated says more follow.
	TracesOf(ctx context.Context, tenant string, partitionID uint64, transactionID string, limit int) (rows []TraceRow, truncated bool, err error)
	// TracesByName pages one name's events, newest first; more says
	// events follow the page.
	TracesByName(ctx context.Context, tenant string, q TraceNameQuery) (rows []TraceRow, more bool, err error)
	// TraceNames pages the tenant's trace names in byte order, with their
	// counts; truncated says more follow.
	TraceNames(ctx context.Context, tenant string, q TraceNamesQuery) (names []TraceNameCount, truncated bool, err error)
}

// TraceEvent is POST /api/v1/traces, checked and defaulted: the message
// it is about (PartitionID, the decimal id a pop answered, and its
// TransactionID), ConsumerGroup (QueueModeGroup when none), EventType
// ("info" when none), TraceNames (distinct, in the order sent) and Data,
// one JSON value as sent.
type TraceEvent struct {
	PartitionID   uint64
	TransactionID string
	ConsumerGroup string
	EventType     string
	TraceNames    []string
	Data          json.RawMessage
}

// TraceRow is a stored event. Queue and Partition are what PartitionID
// names, when Known (a consumer of the tenant popped it). CreatedAt and
// ExpiresAt are broker-clock µs; ID is the broker's.
type TraceRow struct {
	ID               [16]byte
	PartitionID      uint64
	TransactionID    string
	Known            bool
	Queue, Partition string
	ConsumerGroup    string
	EventType        string
	TraceNames       []string
	// Data is the event's JSON as stored, written out as is.
	Data                 []byte
	CreatedAt, ExpiresAt int64
}

// TraceNameQuery is GET /api/v1/traces/by-name/:name: the events created
// in [From, To) (µs; 0: open), Offset skipped, at most Limit.
type TraceNameQuery struct {
	Name          string
	From, To      int64
	Offset, Limit int
}

// TraceNamesQuery is GET /api/v1/traces/names: the names that start with
// Search, after After (exclusive), at most Limit.
type TraceNamesQuery struct {
	Search, After string
	Limit         int
}

// TraceNameCount is one trace name, the events stored under it and when
// the newest was recorded (broker-clock µs).
type TraceNameCount struct {
	Name       string
	Count      int64
	LastSeenAt int64
}
