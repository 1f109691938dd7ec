// Package traces is the broker's message traces as a family of the
// replicated state machine (kind OpTraces): a consumer notes what it did
// with a message it popped (POST /api/v1/traces, the official client's
// message.trace(…)), and a dashboard reads the notes back by message, by
// trace name, and as the list of names with their counts.
//
// # What it owns
//
// Per tenant, the trace events: each stored under its message (the
// partition id a pop answered and the message's transactionId), with its
// consumer group, event type, trace names, data (one JSON value, its
// bytes as sent), and its creation and expiry on the broker clock. Beside
// them, an index of each name's events (newest first), a count per name,
// and an index of every event by its expiry (keys.go). ByMessage, ByName
// and Names read them through a raftlog.View, each one prefix scan bounded
// by its limit; a SweepOp, proposed by the leader's retention pass,
// deletes the events whose lifetime ended.
//
// # Shape
//
// The family has the shape queen/internal/family gives every family: an
// op is a Record or a SweepOp (ops.go: family.DecodeOp reads the version
// and the tag, readOp the op, checkOp the contract), encoded with
// family.Encoder; each op's Apply applies it on its entry
// (family.Op[family.Entry], through family.Applier, which Appliers
// registers under OpTraces); Traces.Record refuses what Record.Check
// refuses before proposing (family.Propose), as apply checks again.
//
// # Invariants
//
//   - The codec is strict (family.Decoder): an op, an event row or an
//     index entry that decodes encodes back to the same bytes; an op that
//     does not decode is refused, a row that does not halts the node
//     (FuzzDecodeOp, FuzzDecodeStored).
//   - Apply is deterministic: an event's id is its entry's stamp and its
//     op's place in the entry, its creation the stamp, its expiry the stamp
//     plus the lifetime the op carries (the proposer's
//     QUEEN_TRACES_RETENTION_S, so that nodes configured otherwise still
//     agree). No wall clock, no map order reaches a write.
//   - Ids are unique in the shard and grow with their entries: stamps
//     strictly increase from entry to entry.
//   - Traces cannot grow without bound: every event has a lifetime (at
//     most ten years, 7 days by default) and an expiry entry; a sweep
//     deletes at most SweepLimit events, each with its index entries and
//     its share of its names' counts, and the retention pass proposes
//     sweeps until one finds no more due. One event holds at most 64 KiB
//     of data and 16 names of at most 256 bytes (contract.TraceData,
//     TraceNames, TraceName).
//   - A name's count is the number of its events stored: it rises with a
//     record and falls with the sweep, and the name leaves the list when
//     it reaches 0. A name index entry exists exactly while its event's
//     row does.
//   - The reads hide events whose lifetime ended at the view's stamp, as
//     KV hides a row past its TTL; the names' counts do not (they count
//     what is stored, which the sweep brings down at most one retention
//     interval late).
//
// # Decisions the contract left open
//
//   - A trace is stored whatever it names. The client never fails on a
//     trace and the product keeps it, so neither an unknown partition id
//     (one no consumer of the tenant popped, another tenant's, or one
//     never issued) nor a transactionId the partition does not hold (its
//     dedup entry swept, dedup off, the record trimmed) refuses it. Its
//     queue and partition are what the partition id names when it is read
//     (consume.PartitionOf), or none; a tenant never sees another's names.
//   - Nothing deduplicates a trace: the client sends no id of its own, so
//     a retry after an unknown outcome (503 timeout) may store the event
//     twice, under two ids. A trace is a diagnostic, not a record.
//   - The data of a trace on an encrypted queue is stored as sent, not
//     sealed: it is the consumer's note, not the message's payload.
//   - A name search is a prefix of the name's bytes (case counts), so the
//     names read stays one bounded scan.
//
// # Usage
//
//	shard, _ := host.StartShard(id, appliers) // consume's, traces' and the others'
//	t := &traces.Traces{Shard: shard}
//	got, _ := t.Record(ctx, traces.Record{Tenant: tenant, PartitionUID: 7, TransactionID: "order-9",
//		Group: "billing", EventType: "info", Names: []string{"checkout"}, Data: []byte(`{"step":1}`),
//		TTLSeconds: 7 * 86400})
//	_ = got.ID
//	v, _ := t.Read(ctx, func(v *raftlog.View) (any, error) {
//		evs, _, err := traces.ByMessage(v, tenant, 7, "order-9", 100)
//		return evs, err
//	})
package traces
