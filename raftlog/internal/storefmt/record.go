package storefmt

import (
	"encoding/binary"
	"fmt"
)

// StoredRecord is a record as the queue log stores it.
type StoredRecord struct {
	Stamp       int64
	MsgID       [16]byte
	TxID        string
	TraceID     [16]byte // zero: none
	ProducerSub string   // "": none
	Payload     []byte
}

// The versions of a stored record. A record with neither a trace id nor
// a producer sub is version 1 (MetaVersion); one with a trace id only is
// version 2, its 16 bytes after the transaction id; both byte for byte
// as an older broker wrote them. One with a producer sub is version 3:
//
//	3 | varint stamp | message id(16) | transactionId | flags |
//	[trace id(16), flags&1] | producer sub (a name, not empty) | payload
//
// flags has bit 1 (a trace id) and bit 2 (the sub, always set) only.
// Every encoding is the one encode gives: a version 3 record without a
// sub, a zero trace id or a flag beyond these is refused.
const (
	RecordTraced   = 2
	RecordProducer = 3
)

// Encode is the record's stored value, of the least version that holds it.
func (r *StoredRecord) Encode() []byte {
	b := make([]byte, 0, 1+10+16+2+len(r.TxID)+17+3+len(r.ProducerSub)+len(r.Payload))
	traced := r.TraceID != [16]byte{}
	switch {
	case r.ProducerSub != "":
		b = append(b, RecordProducer)
	case traced:
		b = append(b, RecordTraced)
	default:
		b = append(b, MetaVersion)
	}
	b = binary.AppendVarint(b, r.Stamp)
	b = append(b, r.MsgID[:]...)
	b = appendName(b, r.TxID)
	if r.ProducerSub != "" {
		flags := byte(2)
		if traced {
			flags |= 1
		}
		b = append(b, flags)
	}
	if traced {
		b = append(b, r.TraceID[:]...)
	}
	if r.ProducerSub != "" {
		b = appendName(b, r.ProducerSub)
	}
	return append(b, r.Payload...)
}

// KnownRecordVersion says whether v is a stored record's version.
func KnownRecordVersion(v byte) bool {
	return v == MetaVersion || v == RecordTraced || v == RecordProducer
}

// DecodeRecord reads a stored record of any version.
func DecodeRecord(b []byte) (StoredRecord, error) {
	var r StoredRecord
	if len(b) < 1 || !KnownRecordVersion(b[0]) {
		return r, fmt.Errorf("%w: record version", ErrStorage)
	}
	d := decoder(b[1:])
	r.Stamp = d.Varint()
	if len(d.B) < 16 {
		return r, fmt.Errorf("%w: record", ErrStorage)
	}
	copy(r.MsgID[:], d.B[:16])
	d.B = d.B[16:]
	r.TxID = string(d.Bytes())
	if d.Err != nil {
		return r, fmt.Errorf("%w: record", ErrStorage)
	}
	traced := b[0] == RecordTraced
	if b[0] == RecordProducer {
		if len(d.B) < 1 || d.B[0]&^1 != 2 { // 2 or 3: the sub, and maybe a trace id
			return r, fmt.Errorf("%w: record flags", ErrStorage)
		}
		traced = d.B[0]&1 != 0
		d.B = d.B[1:]
	}
	if traced {
		if len(d.B) < 16 || [16]byte(d.B[:16]) == [16]byte{} {
			return r, fmt.Errorf("%w: record trace id", ErrStorage)
		}
		copy(r.TraceID[:], d.B[:16])
		d.B = d.B[16:]
	}
	if b[0] == RecordProducer {
		r.ProducerSub = string(d.Bytes())
		if d.Err != nil || r.ProducerSub == "" {
			return r, fmt.Errorf("%w: record producer sub", ErrStorage)
		}
	}
	r.Payload = d.B
	return r, nil
}

// RecordStamp reads only the stamp of an 'R' value, a stored record or a
// pointer.
func RecordStamp(b []byte) (int64, error) {
	if len(b) > 0 && b[0] == RecordInSegment {
		_, stamp, _, err := DecodePtr(b)
		return stamp, err
	}
	if len(b) < 2 || !KnownRecordVersion(b[0]) {
		return 0, fmt.Errorf("%w: record version", ErrStorage)
	}
	v, n := binary.Varint(b[1:])
	if n <= 0 {
		return 0, fmt.Errorf("%w: record stamp", ErrStorage)
	}
	return v, nil
}

// Ptr locates one record's bytes in a shard's segments: the segment's
// id, the offset and length of the bytes there, and their CRC-32C.
type Ptr struct {
	Seg uint64
	Pos int64
	N   int
	CRC uint32
}

// RecordInSegment starts an 'R' value that points into a segment
// (segments.go) instead of holding the record (StoredRecord, versions 1
// and 2, which a store written before segments still holds and every
// reader still reads):
//
//	RecordInSegment | uvarint seg | uvarint pos | uvarint n | u32 crc32c
//	| varint stamp | transactionId
//
// The stamp and transaction id ride along so that trims, dedup sweeps and
// time lookups need no segment read.
const RecordInSegment = 0xFD

// EncodePtr is the 'R' value pointing at p, with the record's stamp and
// transaction id.
func EncodePtr(p Ptr, stamp int64, txid string) []byte {
	b := make([]byte, 0, 1+10+10+5+4+10+len(txid))
	b = append(b, RecordInSegment)
	b = binary.AppendUvarint(b, p.Seg)
	b = binary.AppendUvarint(b, uint64(p.Pos))
	b = binary.AppendUvarint(b, uint64(p.N))
	b = binary.BigEndian.AppendUint32(b, p.CRC)
	b = binary.AppendVarint(b, stamp)
	return append(b, txid...)
}

// DecodePtr reads an 'R' value that is a pointer.
func DecodePtr(v []byte) (p Ptr, stamp int64, txid string, err error) {
	if len(v) == 0 || v[0] != RecordInSegment {
		return p, 0, "", fmt.Errorf("%w: not a record pointer", ErrStorage)
	}
	d := decoder(v[1:])
	p.Seg, p.Pos, p.N = d.Uvarint(), int64(d.Uvarint()), int(d.Uvarint())
	if d.Err != nil || len(d.B) < 4 || p.N < 0 || p.Pos < 0 {
		return p, 0, "", fmt.Errorf("%w: record pointer", ErrStorage)
	}
	p.CRC = binary.BigEndian.Uint32(d.B)
	d.B = d.B[4:]
	stamp = d.Varint()
	if d.Err != nil {
		return p, 0, "", fmt.Errorf("%w: record pointer", ErrStorage)
	}
	return p, stamp, string(d.B), nil
}

// RecordHead reads an 'R' value's stamp and transaction id, from a
// pointer or a stored record alike, without a segment read.
func RecordHead(v []byte) (stamp int64, txid string, err error) {
	if len(v) > 0 && v[0] == RecordInSegment {
		_, stamp, txid, err = DecodePtr(v)
		return stamp, txid, err
	}
	r, err := DecodeRecord(v)
	return r.Stamp, r.TxID, err
}

// IsRecordKey says whether k is an 'R' key (PrefixRecord, uid, offset).
func IsRecordKey(k []byte) bool { return len(k) == 17 && k[0] == PrefixRecord }
