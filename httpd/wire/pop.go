package wire

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// The framed pop's frame flags.
const (
	FrameTrace     = 1 // the frame carries a trace id
	FrameProducer  = 2 // the frame carries the producer's subject
	FrameEncrypted = 4 // the payload is sealed (never sent by this broker)
)

// The codecs of a framed pop's record.
const (
	CodecRaw  = 0
	CodecZstd = 1
)

// Pop is a framed pop answer.
type Pop struct {
	// Own is the answer's own keys as one JSON object (the conflation
	// echo, the autopilot's choice), or empty.
	Own                           []byte
	Queue, LeaseID, ConsumerGroup string
	Claims                        []Claim
}

// Claim is one partition's delivery: the messages of its records whose
// offsets lie in Start..End (inclusive).
type Claim struct {
	PartitionID     uint64
	Partition       string
	Start, End      uint64
	DeliveryAttempt uint32
	Records         []Record
}

// Record is a run of messages of consecutive offsets from BaseOffset,
// all stamped CreatedAt (µs since the epoch).
type Record struct {
	BaseOffset uint64
	CreatedAt  int64
	Frames     []Frame
}

// Frame is one message of a record.
type Frame struct {
	ID            [16]byte
	TraceID       [16]byte // with HasTrace
	HasTrace      bool
	TransactionID string
	Producer      string // with HasProducer
	HasProducer   bool
	Payload       []byte
}

// AppendPop appends p as a framed pop answer (version 1, every record
// raw) to dst. It fails on a text longer than 65535 bytes.
func AppendPop(dst []byte, p *Pop) ([]byte, error) {
	dst = append(append(dst, PopMagic...), 1)
	dst = append(appendU32(dst, len(p.Own)), p.Own...)
	var err error
	for _, t := range [...]struct{ s, what string }{{p.Queue, "the queue"}, {p.LeaseID, "the lease id"}, {p.ConsumerGroup, "the consumer group"}} {
		if dst, err = appendText(dst, t.s, t.what); err != nil {
			return nil, err
		}
	}
	dst = appendU32(dst, len(p.Claims))
	for i := range p.Claims {
		if dst, err = appendClaim(dst, &p.Claims[i]); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

func appendClaim(b []byte, c *Claim) ([]byte, error) {
	b = binary.LittleEndian.AppendUint64(b, c.PartitionID)
	b, err := appendText(b, c.Partition, "a partition name")
	if err != nil {
		return nil, err
	}
	b = binary.LittleEndian.AppendUint64(b, c.Start)
	b = binary.LittleEndian.AppendUint64(b, c.End)
	b = binary.LittleEndian.AppendUint32(b, c.DeliveryAttempt)
	b = appendU32(b, len(c.Records))
	for _, r := range c.Records {
		b = binary.LittleEndian.AppendUint64(b, r.BaseOffset)
		b = binary.LittleEndian.AppendUint64(b, uint64(r.CreatedAt))
		b = append(appendU32(b, len(r.Frames)), CodecRaw)
		lenAt := len(b)
		b = appendU32(b, 0)
		for _, f := range r.Frames {
			if b, err = appendFrame(b, &f); err != nil {
				return nil, err
			}
		}
		binary.LittleEndian.PutUint32(b[lenAt:], uint32(len(b)-lenAt-4))
	}
	return b, nil
}

func appendFrame(b []byte, f *Frame) ([]byte, error) {
	at := len(b)
	b = appendU32(b, 0)
	flags := byte(0)
	if f.HasTrace {
		flags |= FrameTrace
	}
	if f.HasProducer {
		flags |= FrameProducer
	}
	b = append(append(b, flags), f.ID[:]...)
	if f.HasTrace {
		b = append(b, f.TraceID[:]...)
	}
	b, err := appendText(b, f.TransactionID, "a transaction id")
	if err != nil {
		return nil, err
	}
	if f.HasProducer {
		if b, err = appendText(b, f.Producer, "a producer"); err != nil {
			return nil, err
		}
	}
	b = append(b, f.Payload...)
	binary.LittleEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	return b, nil
}

// DecodePop reads a framed pop answer, as the client does (records of
// either codec). Errors are an *Error naming the place, or ErrTooLarge.
func (d *Decoder) DecodePop(b []byte) (Pop, error) {
	const what = "framed pop"
	r := &reader{body: what, b: b}
	if string(r.take(len(PopMagic), "magic")) != PopMagic {
		return Pop{}, &Error{Body: what, Problem: "the answer does not start with " + PopMagic}
	}
	var p Pop
	switch v := r.u8("version"); {
	case r.err != nil:
		return Pop{}, r.err
	case v == 1:
		p.Own = r.take(r.u32("own"), "own")
	case v != 0:
		return Pop{}, &Error{Body: what, Where: "version", Problem: fmt.Sprintf("unknown version %d", v)}
	}
	p.Queue, p.LeaseID, p.ConsumerGroup = r.text("queue"), r.text("leaseId"), r.text("consumerGroup")
	p.Claims = make([]Claim, r.count("claims", 8+2+8+8+4+4))
	spent := 0
	for i := range p.Claims {
		at := "claims[" + strconv.Itoa(i) + "]"
		c := &p.Claims[i]
		c.PartitionID, c.Partition = r.u64(at+".partitionId"), r.text(at+".partition")
		c.Start, c.End = r.u64(at+".start"), r.u64(at+".end")
		c.DeliveryAttempt = uint32(r.u32(at + ".deliveryAttempt"))
		c.Records = make([]Record, r.count(at+".records", 8+8+4+1+4))
		for j := range c.Records {
			if err := d.readRecord(r, at+".records["+strconv.Itoa(j)+"]", &c.Records[j], &spent); err != nil {
				return Pop{}, err
			}
		}
		if r.err != nil {
			return Pop{}, r.err
		}
	}
	r.end("the last claim")
	return p, r.err
}

func (d *Decoder) readRecord(r *reader, at string, rec *Record, spent *int) error {
	rec.BaseOffset, rec.CreatedAt = r.u64(at+".base_offset"), int64(r.u64(at+".created_at"))
	n, codec := r.u32(at+".count"), r.u8(at+".codec")
	raw := r.take(r.u32(at+".bytes"), at+".bytes")
	if r.err != nil {
		return r.err
	}
	switch codec {
	case CodecRaw:
	case CodecZstd:
		var err error
		if raw, err = d.inflate(r.body, at+".bytes", raw, -1, spent); err != nil {
			return err
		}
	default:
		return &Error{Body: r.body, Where: at + ".codec", Problem: fmt.Sprintf("unknown codec %d", codec)}
	}
	fr := &reader{body: r.body, b: raw}
	if n < 0 || n > len(raw)/(4+frameHead+2) {
		return &Error{Body: r.body, Where: at + ".count", Problem: fmt.Sprintf("%d frames cannot fit in %d bytes", n, len(raw))}
	}
	rec.Frames = make([]Frame, n)
	for k := range rec.Frames {
		fat := at + ".frames[" + strconv.Itoa(k) + "]"
		f := &reader{body: r.body, b: fr.take(fr.u32(fat), fat)}
		fm := &rec.Frames[k]
		flags := f.u8(fat + ".flags")
		if f.err == nil && flags&^(FrameTrace|FrameProducer) != 0 {
			return &Error{Body: r.body, Where: fat + ".flags", Problem: fmt.Sprintf("flags 0x%02x", flags)}
		}
		copy(fm.ID[:], f.take(16, fat+".id"))
		if fm.HasTrace = flags&FrameTrace != 0; fm.HasTrace {
			copy(fm.TraceID[:], f.take(16, fat+".traceId"))
		}
		fm.TransactionID = f.text(fat + ".transactionId")
		if fm.HasProducer = flags&FrameProducer != 0; fm.HasProducer {
			fm.Producer = f.text(fat + ".producer")
		}
		if err := firstErr(fr.err, f.err); err != nil {
			return err
		}
		fm.Payload = f.b[f.at:]
	}
	fr.end(at + ".bytes")
	return fr.err
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
