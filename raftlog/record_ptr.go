package raftlog

import (
	"encoding/binary"
	"fmt"
)

// recordInSegment starts an 'R' value that points into a segment
// (segments.go) instead of holding the record (storedRecord, versions 1
// and 2, which a store written before segments still holds and every
// reader still reads):
//
//	recordInSegment | uvarint seg | uvarint pos | uvarint n | u32 crc32c
//	| varint stamp | transactionId
//
// The stamp and transaction id ride along so that trims, dedup sweeps and
// time lookups need no segment read.
const recordInSegment = 0xFD

func encodePtr(p recordPtr, stamp int64, txid string) []byte {
	b := make([]byte, 0, 1+10+10+5+4+10+len(txid))
	b = append(b, recordInSegment)
	b = binary.AppendUvarint(b, p.seg)
	b = binary.AppendUvarint(b, uint64(p.pos))
	b = binary.AppendUvarint(b, uint64(p.n))
	b = binary.BigEndian.AppendUint32(b, p.crc)
	b = binary.AppendVarint(b, stamp)
	return append(b, txid...)
}

func decodePtr(v []byte) (p recordPtr, stamp int64, txid string, err error) {
	if len(v) == 0 || v[0] != recordInSegment {
		return p, 0, "", fmt.Errorf("%w: not a record pointer", ErrStorage)
	}
	d := newDecoder(v[1:])
	p.seg, p.pos, p.n = d.Uvarint(), int64(d.Uvarint()), int(d.Uvarint())
	if d.Err != nil || len(d.B) < 4 || p.n < 0 || p.pos < 0 {
		return p, 0, "", fmt.Errorf("%w: record pointer", ErrStorage)
	}
	p.crc = binary.BigEndian.Uint32(d.B)
	d.B = d.B[4:]
	stamp = d.Varint()
	if d.Err != nil {
		return p, 0, "", fmt.Errorf("%w: record pointer", ErrStorage)
	}
	return p, stamp, string(d.B), nil
}

// recordHead reads an 'R' value's stamp and transaction id, from a
// pointer or a stored record alike, without a segment read.
func recordHead(v []byte) (stamp int64, txid string, err error) {
	if len(v) > 0 && v[0] == recordInSegment {
		_, stamp, txid, err = decodePtr(v)
		return stamp, txid, err
	}
	r, err := decodeRecord(v)
	return r.Stamp, r.TxID, err
}

// resolveRecord decodes an 'R' value: a stored record as it is, a pointer
// through segs (nil: a pointer is a storage error).
func resolveRecord(segs *segments, v []byte) (storedRecord, error) {
	if len(v) == 0 || v[0] != recordInSegment {
		return decodeRecord(v)
	}
	p, _, _, err := decodePtr(v)
	if err != nil {
		return storedRecord{}, err
	}
	if segs == nil {
		return storedRecord{}, fmt.Errorf("%w: a record pointer with no segments to read", ErrStorage)
	}
	b, err := segs.read(p)
	if err != nil {
		return storedRecord{}, err
	}
	return decodeRecord(b)
}

// isRecordKey says whether k is an 'R' key (prefixRecord, uid, offset).
func isRecordKey(k []byte) bool { return len(k) == 17 && k[0] == prefixRecord }
