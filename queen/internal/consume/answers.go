package consume

import (
	"encoding/binary"
	"fmt"

	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
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
	queuelog.Record
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
	e := family.Encoder(b)
	e.Str(r.LeaseID)
	e.Varint(r.End, r.NextAt)
	e.Byte(family.Bit(r.Conflation) | family.Bit(r.Conflict)<<1)
	e.Uvarint(uint64(len(r.Parts)))
	for _, p := range r.Parts {
		e.Str(p.Partition)
		e.Uvarint(p.UID, uint64(len(p.Messages)))
		for _, m := range p.Messages {
			e.Varint(m.Offset, m.Ts)
			e.Byte(m.MessageID[:]...)
			e.Str(m.TransactionID, string(m.Payload))
			e.Uvarint(uint64(m.Attempt))
			e.Byte(m.TraceID[:]...)
			e.Str(m.ProducerSub)
		}
	}
	return e
}

// DecodePopResult decodes a pop's answer.
func DecodePopResult(b []byte) (PopResult, error) {
	d := family.NewDecoder(b, ErrCorrupt)
	r := PopResult{LeaseID: d.Str(), End: d.Varint(), NextAt: d.Varint()}
	flags := d.Byte()
	if flags&^3 != 0 {
		d.Fail(fmt.Sprintf("pop answer flags %#x", flags))
	}
	r.Conflation, r.Conflict = flags&1 != 0, flags&2 != 0
	n := d.Count(3)
	for range n {
		p := Popped{Partition: d.Str(), UID: d.Uvarint()}
		m := d.Count(38)
		for range m {
			var x Delivered
			x.Offset, x.Ts, x.MessageID = d.Varint(), d.Varint(), d.ID("message id")
			x.TransactionID, x.Payload, x.Attempt = d.Str(), d.Blob(), int(d.Uvarint())
			x.TraceID, x.ProducerSub = d.ID("trace id"), d.Str()
			if d.Err != nil {
				break
			}
			p.Messages = append(p.Messages, x)
		}
		r.Parts = append(r.Parts, p)
	}
	d.Expect(len(d.B) == 0, "trailing bytes")
	if d.Err != nil {
		return PopResult{}, fmt.Errorf("pop answer: %w", d.Err)
	}
	return r, nil
}

func appendAckAnswers(b []byte, as []AckAnswer) []byte {
	b = binary.AppendUvarint(b, uint64(len(as)))
	for _, a := range as {
		b = append(b, family.Bit(a.OK)|family.Bit(a.Released)<<1|family.Bit(a.DLQ)<<2|family.Bit(a.Noop)<<3)
		b = wire.AppendString(b, a.Error)
	}
	return b
}

// DecodeAckAnswers decodes an ack call's answers.
func DecodeAckAnswers(b []byte) ([]AckAnswer, error) {
	d := family.NewDecoder(b, ErrCorrupt)
	n := d.Count(2)
	out := make([]AckAnswer, 0, n)
	for range n {
		f := d.Byte()
		if f&^15 != 0 {
			d.Fail(fmt.Sprintf("ack answer flags %#x", f))
			break
		}
		out = append(out, AckAnswer{OK: f&1 != 0, Released: f&2 != 0, DLQ: f&4 != 0, Noop: f&8 != 0, Error: d.Str()})
	}
	d.Expect(len(d.B) == 0, "trailing bytes")
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
	d := family.NewDecoder(b, ErrCorrupt)
	e := ExtendAnswer{Renewed: int(d.Uvarint()), End: d.Varint()}
	d.Expect(len(d.B) == 0, "trailing bytes")
	if d.Err != nil {
		return ExtendAnswer{}, fmt.Errorf("extend answer: %w", d.Err)
	}
	return e, nil
}
