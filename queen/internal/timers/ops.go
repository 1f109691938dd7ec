package timers

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
)

// OpTimers is the raftlog op kind of the timers family.
const OpTimers raftlog.OpKind = 769

// The contract's bounds (API.md §7).
const (
	MaxOps          = 256     // operations of one call
	MaxPayloadBytes = 1 << 20 // a timer's payload, decoded
	MaxKeyBytes     = 512     // a timerKey
	// MaxPermanent is how many fires may fail for good (the push was
	// refused, the queue's encryption changed) before the timer is filed in
	// its queue's dead-letter group __timer__. A full queue is not a
	// permanent failure: the timer waits for room, backing off.
	MaxPermanent = 5
	// FireLimit is the most timers one fire entry fires, and FireBytes
	// the payload bytes it pushes (it always fires one, whatever its size).
	FireLimit = 256
	FireBytes = 8 << 20
	// MaxDelayMicros bounds a delay (ten years; the horizon,
	// QUEEN_TIMERS_MAX_HORIZON_S, is at most that).
	MaxDelayMicros = 10 * 366 * 24 * 3600 * 1e6
)

// The operations of a Call (Op.Kind).
const (
	KindSchedule   byte = 1 // schedule and reschedule: one upsert
	KindCancel     byte = 2
	KindReschedule byte = 3
)

// ErrCorrupt is wrapped by the errors of an op that does not decode.
var ErrCorrupt = errors.New("timers: corrupt encoding")

// Op is one timer operation. A schedule (or reschedule) needs every
// field but is judged only on DelayMicros from the entry's stamp; a cancel
// needs Queue and Key (Txn is echoed when nothing is cancelled).
type Op struct {
	Kind             byte
	Queue, Partition string
	Key              string
	Txn              string
	// MessageID is the id the fired message will carry, minted by the
	// proposer.
	MessageID   [16]byte
	DelayMicros int64
	// Payload is the message's payload, sealed when Sealed (the queue was
	// encrypted when it was scheduled).
	Payload []byte
	Sealed  bool
}

// Call is one POST /api/v1/timers (or a transaction's timers[]): a
// tenant's operations, one per (queue, timerKey), applied in order.
type Call struct {
	Tenant string
	Ops    []Op
}

// FireOp fires up to Limit timers due at the entry's stamp, in due order.
// The leader proposes it when its applied state holds a due timer.
type FireOp struct {
	Limit int
}

const (
	codecVersion byte = 1
	tagCall      byte = 1
	tagFire      byte = 2
)

// Op returns the call as a raftlog op.
func (c *Call) Op() raftlog.Op {
	e := family.Encoder{codecVersion, tagCall}
	e.Str(c.Tenant)
	e.Uvarint(uint64(len(c.Ops)))
	for _, o := range c.Ops {
		e.Byte(o.Kind)
		e.Str(o.Queue, o.Partition, o.Key, o.Txn)
		e.Byte(o.MessageID[:]...)
		e.Varint(o.DelayMicros)
		e.Str(string(o.Payload))
		e.Bool(o.Sealed)
	}
	return raftlog.Op{Kind: OpTimers, Data: e}
}

// Op returns the fire as a raftlog op.
func (f FireOp) Op() raftlog.Op {
	return raftlog.Op{Kind: OpTimers, Data: binary.AppendUvarint([]byte{codecVersion, tagFire}, uint64(f.Limit))}
}

var codec = family.OpCodec{Corrupt: ErrCorrupt, Version: codecVersion, VersionWhat: "version", TagWhat: "tag"}

// decodeOp reads a Call or a FireOp, and checks a call as Check does.
func decodeOp(b []byte) (family.Op[*state], error) { return family.DecodeOp(codec, b, readOp, checkOp) }

func readOp(tag byte, d *family.Decoder) family.Op[*state] {
	switch tag {
	case tagFire:
		return FireOp{Limit: d.Limit(FireLimit, "fire limit")}
	case tagCall:
		c := &Call{Tenant: d.Str()}
		n := d.Count(1 + 4 + 16 + 1 + 1 + 1)
		for i := 0; i < n && d.Err == nil; i++ {
			o := Op{Kind: d.Byte(), Queue: d.Str(), Partition: d.Str(), Key: d.Str(), Txn: d.Str(), MessageID: d.ID("message id")}
			o.DelayMicros, o.Payload, o.Sealed = d.Varint(), d.Blob(), d.Flag("sealed")
			c.Ops = append(c.Ops, o)
		}
		return c
	}
	return nil
}

// checkOp checks a call's tenant and operations (a fire has nothing to
// check).
func checkOp(op family.Op[*state]) error {
	c, ok := op.(*Call)
	if !ok {
		return nil
	}
	if err := contract.Tenant.Check("tenant", c.Tenant); err != nil {
		return err
	}
	return Check(c.Ops)
}

// Check refuses what the contract refuses of a call, naming the
// operation: more than MaxOps, two on one (queue, timerKey), an unknown
// kind, a queue, timerKey, txn or partition its contract.Name refuses, a
// payload over its bound. The API checks all of it before; apply again.
func Check(ops []Op) error {
	if len(ops) > MaxOps {
		return fmt.Errorf("operations: %d operations, at most %d in one call", len(ops), MaxOps)
	}
	seen := make(map[[2]string]int, len(ops))
	for i, o := range ops {
		at := fmt.Sprintf("operations[%d]", i)
		if o.Kind != KindSchedule && o.Kind != KindCancel && o.Kind != KindReschedule {
			return fmt.Errorf("%s.op: unknown operation (schedule, reschedule or cancel)", at)
		}
		if err := contract.Queue.Check(at+".queue", o.Queue); err != nil {
			return err
		}
		if err := contract.TimerKey.Check(at+".timerKey", o.Key); err != nil {
			return err
		}
		if err := contract.TransactionID.Check(at+".txn", o.Txn); err != nil {
			return err
		}
		k := [2]string{o.Queue, o.Key}
		if j, dup := seen[k]; dup {
			return fmt.Errorf("%s.timerKey: timer %q of queue %q is in operations[%d] already; one operation per timer in a call", at, o.Key, o.Queue, j)
		}
		seen[k] = i
		if o.Kind == KindCancel {
			continue
		}
		if err := contract.Partition.Check(at+".partition", o.Partition); err != nil {
			return err
		}
		if o.DelayMicros > MaxDelayMicros {
			return fmt.Errorf("%s.delayMs: %d ms is over ten years", at, o.DelayMicros/1000)
		}
		if len(o.Payload) > MaxPayloadBytes+64 { // a sealed payload is longer by its nonce and tag
			return fmt.Errorf("%s.payload: %d bytes, at most %d", at, len(o.Payload), MaxPayloadBytes)
		}
	}
	return nil
}
