package traces

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
)

// OpTraces is the raftlog op kind of the traces family.
const OpTraces raftlog.OpKind = 770

// The family's bounds: the contract's (contract.TraceData, TraceNames,
// TraceName, TraceEventType), and its own.
var (
	MaxDataBytes = int(contract.TraceData.Max) // an event's data, as sent
	MaxNames     = int(contract.TraceNames.Max)
)

const (
	// DefaultRetention is QUEEN_TRACES_RETENTION_S' default: an event
	// lives 7 days on the broker clock.
	DefaultRetention = 7 * 24 * time.Hour
	// MaxTTLSeconds bounds the lifetime an op may carry (ten years; the
	// configuration's range is within it).
	MaxTTLSeconds = 10 * 366 * 24 * 3600
	// SweepLimit is the most events one sweep entry deletes; each takes
	// its row, its expiry entry and one index entry per name with it.
	SweepLimit = 1000
	// DefaultEventType is the eventType of an event that names none.
	DefaultEventType = "info"
	// DefaultGroup is the consumerGroup of an event that names none.
	DefaultGroup = "__QUEUE_MODE__"
)

// ErrCorrupt is wrapped by the errors of an op that does not decode.
var ErrCorrupt = errors.New("traces: corrupt encoding")

// Record stores one trace event (POST /api/v1/traces) of a tenant: what a
// consumer noted about a message it popped, named by the partition id the
// pop answered and the message's transactionId. Every field is the
// proposer's; the event's id, creation and expiry come from the entry.
type Record struct {
	Tenant        string
	PartitionUID  uint64
	TransactionID string
	Group         string
	EventType     string
	// Names are the event's trace names, distinct, in the order sent.
	Names []string
	// Data is one JSON value, its bytes as sent.
	Data []byte
	// TTLSeconds is the event's lifetime from its entry's stamp: the
	// proposer's QUEEN_TRACES_RETENTION_S, carried in the op so that every
	// node expires it at the same stamp whatever its own configuration.
	TTLSeconds int64
}

// SweepOp deletes up to Limit events whose lifetime ended at the entry's
// stamp, in expiry order. The leader's retention pass proposes it.
type SweepOp struct {
	Limit int
}

const (
	codecVersion byte = 1
	tagRecord    byte = 1
	tagSweep     byte = 2
)

// Op returns the record as a raftlog op.
func (r *Record) Op() raftlog.Op {
	e := family.Encoder{codecVersion, tagRecord}
	e.Str(r.Tenant)
	e.Uvarint(r.PartitionUID)
	e.Str(r.TransactionID, r.Group, r.EventType)
	e.Strs(r.Names)
	e.Str(string(r.Data))
	e.Varint(r.TTLSeconds)
	return raftlog.Op{Kind: OpTraces, Data: e}
}

// Op returns the sweep as a raftlog op.
func (s SweepOp) Op() raftlog.Op {
	return raftlog.Op{Kind: OpTraces, Data: binary.AppendUvarint([]byte{codecVersion, tagSweep}, uint64(max(s.Limit, 0)))}
}

// decodeOp reads a *Record (checked as Check does) or a SweepOp.
func decodeOp(b []byte) (family.Op[family.Entry], error) {
	return family.DecodeOp(family.OpCodec{Corrupt: ErrCorrupt, Version: codecVersion, VersionWhat: "version", TagWhat: "tag"}, b, readOp, checkOp)
}

func readOp(tag byte, d *family.Decoder) family.Op[family.Entry] {
	switch tag {
	case tagSweep:
		return SweepOp{Limit: d.Limit(SweepLimit, "sweep limit")}
	case tagRecord:
		r := &Record{Tenant: d.Str(), PartitionUID: d.Uvarint(), TransactionID: d.Str(), Group: d.Str(), EventType: d.Str()}
		r.Names, r.Data, r.TTLSeconds = d.Strs(), d.Blob(), d.Varint()
		return r
	}
	return nil
}

// checkOp is Check of a record (a sweep has nothing to check).
func checkOp(op family.Op[family.Entry]) error {
	if r, ok := op.(*Record); ok {
		return r.Check()
	}
	return nil
}

// Check refuses what the contract refuses of an event, naming the field:
// a tenant, transactionId (required), consumerGroup, eventType or trace
// name its contract.Name refuses, more than MaxNames names or one twice,
// data empty or over MaxDataBytes, a lifetime outside 1..MaxTTLSeconds.
// The API checks all of it before; apply checks again.
func (r *Record) Check() error {
	if err := contract.Tenant.Check("tenant", r.Tenant); err != nil {
		return err
	}
	if r.TransactionID == "" {
		return errors.New("transactionId is required")
	}
	err := family.FirstErr(contract.TransactionID.Check("transactionId", r.TransactionID), contract.ConsumerGroup.Check("consumerGroup", r.Group),
		contract.TraceEventType.Check("eventType", r.EventType))
	if err != nil {
		return err
	}
	if r.EventType == "" {
		return errors.New(`eventType is empty: the proposer defaults it ("info")`)
	}
	if len(r.Names) > MaxNames {
		return fmt.Errorf("traceNames: %d names, at most %d", len(r.Names), MaxNames)
	}
	for i, n := range r.Names {
		at := fmt.Sprintf("traceNames[%d]", i)
		if err := contract.TraceName.Check(at, n); err != nil {
			return err
		}
		for j := range i {
			if r.Names[j] == n {
				return fmt.Errorf("%s: %s is traceNames[%d] already", at, contract.Quote(n), j)
			}
		}
	}
	if len(r.Data) == 0 || len(r.Data) > MaxDataBytes {
		return fmt.Errorf("data: %d bytes, it must be one JSON value of 1..%d bytes", len(r.Data), MaxDataBytes)
	}
	if r.TTLSeconds < 1 || r.TTLSeconds > MaxTTLSeconds {
		return fmt.Errorf("ttl: %d s is outside 1..%d s", r.TTLSeconds, MaxTTLSeconds)
	}
	return nil
}
