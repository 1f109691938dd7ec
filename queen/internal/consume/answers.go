package consume

import (
	"encoding/binary"
	"fmt"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// PopResult is what a pop leased.
type PopResult struct {
	// LeaseID is the lease's id ("" when nothing was leased or AutoAck);
	// End is the lease's end as the consumer is told it.
	LeaseID string
	End     int64
	Parts   []Popped
	// NextAt is the earliest stamp at which something this pop found
	// blocked (a lease, a retry delay, delayed processing) may free; 0
	// when nothing was blocked. A long poll wakes then at the latest.
	NextAt int64
	// Conflation: the group conflates (its stored policy); Conflict: the
	// pop asked otherwise than the group stores (the stored one won).
	Conflation, Conflict bool
}

// Popped is one partition a pop leased, with its messages in offset order.
type Popped struct {
	Partition string
	UID       uint64
	Messages  []Delivered
}

// Delivered is one message and how often it was delivered, this time too.
type Delivered struct {
	raftlog.Record
	Attempt int
}

// AckAnswer answers one AckItem.
type AckAnswer struct {
	OK bool
	// Error says why the item was refused ("" when OK).
	Error string
	// Released: the item settled the last message its lease held on the
	// partition, so the partition is free again.
	Released bool
	// DLQ: the message went to the dead-letter queue.
	DLQ bool
	// Noop: a completed ack of a message committed already (below the
	// group's cursor, or acked): it changed nothing.
	Noop bool
}

// ExtendAnswer answers an ExtendOp.
type ExtendAnswer struct {
	Renewed int
	End     int64
}

func appendPopResult(b []byte, r *PopResult) []byte {
	b = wire.AppendString(b, r.LeaseID)
	b = binary.AppendVarint(b, r.End)
	b = binary.AppendVarint(b, r.NextAt)
	b = append(b, boolByte(r.Conflation)|boolByte(r.Conflict)<<1)
	b = binary.AppendUvarint(b, uint64(len(r.Parts)))
	for _, p := range r.Parts {
		b = wire.AppendString(b, p.Partition)
		b = binary.AppendUvarint(b, p.UID)
		b = binary.AppendUvarint(b, uint64(len(p.Messages)))
		for _, m := range p.Messages {
			b = binary.AppendVarint(b, m.Offset)
			b = binary.AppendVarint(b, m.Ts)
			b = append(b, m.MessageID[:]...)
			b = wire.AppendString(b, m.TransactionID)
			b = wire.AppendString(b, string(m.Payload))
			b = binary.AppendUvarint(b, uint64(m.Attempt))
			b = append(b, m.TraceID[:]...)
			b = wire.AppendString(b, m.ProducerSub)
		}
	}
	return b
}

// DecodePopResult decodes a pop's answer.
func DecodePopResult(b []byte) (PopResult, error) {
	d := wire.NewDecoder(b, ErrCorrupt)
	r := PopResult{LeaseID: str(&d), End: d.Varint(), NextAt: d.Varint()}
	flags := d.Byte()
	if flags&^3 != 0 {
		d.Fail(fmt.Sprintf("pop answer flags %#x", flags))
	}
	r.Conflation, r.Conflict = flags&1 != 0, flags&2 != 0
	n := d.Count(3)
	for range n {
		p := Popped{Partition: str(&d), UID: d.Uvarint()}
		m := d.Count(38)
		for range m {
			var x Delivered
			x.Offset, x.Ts = d.Varint(), d.Varint()
			if len(d.B) < 16 {
				d.Fail("message id")
				break
			}
			copy(x.MessageID[:], d.B[:16])
			d.B = d.B[16:]
			x.TransactionID = str(&d)
			x.Payload = append([]byte(nil), d.Bytes()...)
			x.Attempt = int(d.Uvarint())
			if len(d.B) < 16 {
				d.Fail("trace id")
				break
			}
			copy(x.TraceID[:], d.B[:16])
			d.B = d.B[16:]
			x.ProducerSub = str(&d)
			p.Messages = append(p.Messages, x)
		}
		r.Parts = append(r.Parts, p)
	}
	if d.Err == nil && len(d.B) != 0 {
		d.Fail("trailing bytes")
	}
	if d.Err != nil {
		return PopResult{}, fmt.Errorf("pop answer: %w", d.Err)
	}
	return r, nil
}

func appendAckAnswers(b []byte, as []AckAnswer) []byte {
	b = binary.AppendUvarint(b, uint64(len(as)))
	for _, a := range as {
		var flags byte
		if a.OK {
			flags |= 1
		}
		if a.Released {
			flags |= 2
		}
		if a.DLQ {
			flags |= 4
		}
		if a.Noop {
			flags |= 8
		}
		b = append(b, flags)
		b = wire.AppendString(b, a.Error)
	}
	return b
}

// DecodeAckAnswers decodes an ack call's answers.
func DecodeAckAnswers(b []byte) ([]AckAnswer, error) {
	d := wire.NewDecoder(b, ErrCorrupt)
	n := d.Count(2)
	out := make([]AckAnswer, 0, n)
	for range n {
		f := d.Byte()
		if f&^15 != 0 {
			d.Fail(fmt.Sprintf("ack answer flags %#x", f))
			break
		}
		out = append(out, AckAnswer{OK: f&1 != 0, Released: f&2 != 0, DLQ: f&4 != 0, Noop: f&8 != 0, Error: str(&d)})
	}
	if d.Err == nil && len(d.B) != 0 {
		d.Fail("trailing bytes")
	}
	if d.Err != nil {
		return nil, fmt.Errorf("ack answer: %w", d.Err)
	}
	return out, nil
}

func appendExtend(b []byte, e ExtendAnswer) []byte {
	b = binary.AppendUvarint(b, uint64(e.Renewed))
	return binary.AppendVarint(b, e.End)
}

// DecodeExtendAnswer decodes an extension's answer.
func DecodeExtendAnswer(b []byte) (ExtendAnswer, error) {
	d := wire.NewDecoder(b, ErrCorrupt)
	e := ExtendAnswer{Renewed: int(d.Uvarint()), End: d.Varint()}
	if d.Err == nil && len(d.B) != 0 {
		d.Fail("trailing bytes")
	}
	if d.Err != nil {
		return ExtendAnswer{}, fmt.Errorf("extend answer: %w", d.Err)
	}
	return e, nil
}
