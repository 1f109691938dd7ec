package contract

import "math"

// MaxStampMillis is the last millisecond ISO-8601 renders with four year
// digits (9999-12-31T23:59:59.999Z): the bound of every time an input
// gives as a number.
const MaxStampMillis = 253402300799999

// The numeric parameters of the routes, beside the queue options
// (QueueOptions): each one's range, and whether the contract clamps it.
var (
	PopBatch       = &Range{Field: "batch", Min: 1, Max: 10000, Doc: "messages a pop returns at most (default 1; 200 with autopilot=true)", Where: "pop, ephemeral pop"}
	PopPartitions  = &Range{Field: "partitions", Min: 1, Max: 64, Doc: "partitions one pop leases (default 1)", Where: "pop"}
	PopTimeout     = &Range{Field: "timeout", Min: 0, Max: 60000, Unit: "ms", Clamp: true, Doc: "a waiting pop's wait (default 30000)", Where: "pop, ephemeral pop"}
	LeaseSeconds   = &Range{Field: "leaseSeconds", Min: 1, Max: 604800, Unit: "s", Doc: "a pop's lease (default the queue's leaseTime)", Where: "pop"}
	ExtendSeconds  = &Range{Field: "seconds", Min: 1, Max: 604800, Unit: "s", Doc: "a lease extension (default the lease's own length)", Where: "lease extend"}
	FetchOffset    = &Range{Field: "offset", Min: 0, Max: math.MaxInt64, Doc: "the first offset a fetch reads", Where: "fetch"}
	FetchMaxBytes  = &Range{Field: "maxBytes", Min: 1, Max: 8 << 20, Unit: "bytes", Clamp: true, Doc: "payload bytes of one fetch entry (default 1 MiB)", Where: "fetch"}
	FetchMaxWait   = &Range{Field: "maxWaitMs", Min: 0, Max: 30000, Unit: "ms", Clamp: true, Doc: "how long a fetch parks for minBytes (default 0)", Where: "fetch"}
	FetchMinBytes  = &Range{Field: "minBytes", Min: 0, Max: 1024 * 8 << 20, Unit: "bytes", Clamp: true, Doc: "bytes a fetch parks for (default 1)", Where: "fetch"}
	Timestamp      = &Range{Field: "timestamp", Min: 0, Max: MaxStampMillis, Unit: "ms", Doc: "a time as epoch milliseconds", Where: "fetch/offsets"}
	ChangedLimit   = &Range{Field: "limit", Min: 1, Max: 1000, Clamp: true, Doc: "partitions of one partitions/changed page (default 1000)", Where: "partitions/changed"}
	KVTTLSeconds   = &Range{Field: "ttlSeconds", Min: 1, Max: KVMaxTTLSeconds, Unit: "s", Doc: "a KV row's lifetime", Where: "kv"}
	KVExpect       = &Range{Field: "expect", Min: 0, Max: math.MaxInt64, Doc: "the version a KV write requires (0: absent)", Where: "kv"}
	KVLimit        = &Range{Field: "limit", Min: 1, Max: KVMaxLimit, Clamp: true, Doc: "rows of one getPrefix (default 100)", Where: "kv (getPrefix)"}
	AckBatch       = &Range{Field: "acknowledgments", Min: 1, Max: 10000, Unit: "items", Doc: "items of one ack/batch", Where: "ack/batch"}
	GroupMinLag    = &Range{Field: "minLag", Min: 0, Max: math.MaxInt64, Doc: "the lag a lagging group has at least (default 1)", Where: "consumer-groups/lagging"}
	ListLimit      = &Range{Field: "limit", Min: 1, Max: 1000, Doc: "rows of one page (default 100; messages 200)", Where: "dlq, messages, status/queues, resources/partitions"}
	MessagesOffset = &Range{Field: "offset", Min: 0, Max: MaxSafeInteger, Doc: "rows a page skips", Where: "messages, status/queues"}
	LockTTLSeconds = &Range{Field: "ttlSeconds", Min: 1, Max: 100 * 365 * 24 * 3600, Unit: "s", Doc: "a permit's lifetime (no forever)", Where: "locks"}
	LockLimit      = &Range{Field: "limit", Min: 1, Max: 1024, Unit: "slots", Doc: "permits of a semaphore (default 1: a lock)", Where: "locks"}
	LockToken      = &Range{Field: "token", Min: 1, Max: math.MaxInt64, Doc: "the permit's token, from its acquire or last renew", Where: "locks"}
	LockSlot       = &Range{Field: "slot", Min: 0, Max: 1023, Doc: "the permit's slot (default 0)", Where: "locks"}
	TimerDelayMs   = &Range{Field: "delayMs", Min: -10 * 366 * 24 * 3600 * 1000, Max: 10 * 366 * 24 * 3600 * 1000, Unit: "ms", Doc: "a timer's delay (a past one fires at once); over QUEEN_TIMERS_MAX_HORIZON_S (90 days) it is 403", Where: "timers"}
	PositionOffset = &Range{Field: "offset", Min: -1, Max: MaxSafeInteger, Doc: "a transaction position: the last offset a group is done with (-1: none yet)", Where: "transaction (positions)"}
	StreamStateOps = &Range{Field: "state_ops", Min: 0, Max: 10000, Unit: "ops", Doc: "state writes of one stream cycle", Where: "streams/v1/cycle"}
	StreamPushes   = &Range{Field: "push_items", Min: 0, Max: 10000, Unit: "items", Doc: "pushes of one stream cycle", Where: "streams/v1/cycle"}
	StreamValue    = &Range{Field: "value", Min: 0, Max: 1 << 20, Unit: "bytes", Doc: "a stream state row's value (JSON)", Where: "streams/v1/cycle"}
	StreamRipe     = &Range{Field: "ripe_at_or_before", Min: 0, Max: MaxStampMillis, Unit: "ms", Doc: "state rows whose windowEnd is at or before it", Where: "streams/v1/state/get"}
	TimerLimit     = &Range{Field: "limit", Min: 1, Max: 1000, Clamp: true, Doc: "timers of one list page (default 100)", Where: "timers"}

	EphemeralMaxBytes     = &Range{Field: "maxBytes", Min: 0, Max: MaxSafeInteger, Unit: "bytes", Doc: "an ephemeral queue's budget: payload bytes + 128 per message (default 0: only the node's QUEEN_EPHEMERAL_MAX_BYTES)", Where: "ephemeral configure"}
	EphemeralMaxLength    = &Range{Field: "maxLength", Min: 0, Max: MaxSafeInteger, Unit: "messages", Doc: "messages an ephemeral queue holds at most (default 0: no bound)", Where: "ephemeral configure"}
	EphemeralTTLSeconds   = &Range{Field: "ttlSeconds", Min: 0, Max: 366 * 24 * 3600, Unit: "s", Doc: "an ephemeral message is dropped this long after its push (default 0: never)", Where: "ephemeral configure"}
	EphemeralLeaseSeconds = &Range{Field: "leaseSeconds", Min: 1, Max: 604800, Unit: "s", Doc: "an ephemeral pop's lease (default 30)", Where: "ephemeral configure"}
	EphemeralRetryLimit   = &Range{Field: "retryLimit", Min: 0, Max: 10000, Unit: "retries", Doc: "deliveries of an ephemeral message past the first before it is dropped (default 3)", Where: "ephemeral configure"}
	EphemeralWindowMs     = &Range{Field: "ms", Min: 0, Max: 60000, Unit: "ms", Doc: "windowBuffer: how long a waiting ephemeral pop lets its batch fill once a message is there (default 0: off)", Where: "ephemeral configure"}
	EphemeralWindowCount  = &Range{Field: "count", Min: 0, Max: 10000, Unit: "messages", Doc: "windowBuffer: the batch it waits for (default 0: the pop's batch)", Where: "ephemeral configure"}
	TraceData             = &Range{Field: "data", Min: 1, Max: 64 << 10, Unit: "bytes", Doc: "a trace event's data: one JSON value, its bytes as sent", Where: "traces"}
	TraceNames            = &Range{Field: "traceNames", Min: 0, Max: 16, Unit: "names", Doc: "names of one trace event (a repeated name counts once)", Where: "traces"}
	TraceLimit            = &Range{Field: "limit", Min: 1, Max: 1000, Clamp: true, Doc: "events of one trace read, or names of one names page (default 100; a message's: 1000)", Where: "traces"}
	TraceOffset           = &Range{Field: "offset", Min: 0, Max: 10000, Doc: "events a by-name page skips (page further back with to)", Where: "traces (by-name)"}
)

// Params lists them, in the order the docs show them.
var Params = []*Range{PopBatch, PopPartitions, PopTimeout, LeaseSeconds, ExtendSeconds, FetchOffset, FetchMaxBytes,
	FetchMaxWait, FetchMinBytes, Timestamp, ChangedLimit, KVTTLSeconds, KVExpect, KVLimit, AckBatch, GroupMinLag,
	ListLimit, MessagesOffset, LockTTLSeconds, LockLimit, LockToken, LockSlot, TimerDelayMs, TimerLimit, StreamStateOps, StreamPushes, StreamValue, StreamRipe, TraceData,
	TraceNames, TraceLimit, TraceOffset, PositionOffset,
	EphemeralMaxBytes, EphemeralMaxLength, EphemeralTTLSeconds, EphemeralLeaseSeconds, EphemeralRetryLimit,
	EphemeralWindowMs, EphemeralWindowCount}
