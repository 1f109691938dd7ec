package kvstore

import "encoding/binary"

// reasons numbers the write reasons in the answer codec; 0 is none.
var reasons = [...]string{"", ReasonExists, ReasonAbsent, ReasonVersion, ReasonLimit, ReasonType}

func reasonCode(r string) byte {
	for i, s := range reasons {
		if s == r {
			return byte(i)
		}
	}
	panic("kvstore: unknown reason " + r) // every reason comes from the constants above
}

// appendAnswer appends a's encoding (Stamp is not part of it: the entry's
// result carries it):
//
//	version | ok (1) | ok ? count (uvarint), count × result
//	                    : failedIndex (uvarint) | kvReason (1) | version (uvarint) | [value]
//	result = kind (1) | flags (1) | reason (1) | key | [value] | version (uvarint) |
//	         expiresAt, updatedAt (varint) | rows (uvarint count, rows) | missing (uvarint count, strings) | nextAfter
//	row    = flags (1) | key | [value] | version (uvarint) | expiresAt, updatedAt (varint)
//
// where [value] is present when the flags say rflagValue.
func appendAnswer(b []byte, a *Answer) []byte {
	b = append(b, callVersion)
	if !a.OK {
		b = append(b, 0)
		b = binary.AppendUvarint(b, uint64(a.FailedIndex))
		b = append(b, reasonCode(a.KVReason))
		b = binary.AppendUvarint(b, a.Version)
		b = append(b, valueFlag(a.Value))
		return appendValue(b, a.Value)
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(len(a.Results)))
	for i := range a.Results {
		r := &a.Results[i]
		b = append(b, byte(kindOf(r.Op)), flagBits(r.Applied, r.Found, r.Truncated, r.Value != nil), reasonCode(r.Reason))
		b = appendRow(b, &Row{Key: r.Key, Value: r.Value, Version: r.Version, ExpiresAt: r.ExpiresAt, UpdatedAt: r.UpdatedAt})
		b = binary.AppendUvarint(b, uint64(len(r.Rows)))
		for j := range r.Rows {
			w := &r.Rows[j]
			b = append(b, valueFlag(w.Value))
			b = appendRow(b, w)
		}
		b = binary.AppendUvarint(b, uint64(len(r.Missing)))
		for _, k := range r.Missing {
			b = appendString(b, k)
		}
		b = appendString(b, r.NextAfter)
	}
	return b
}

// appendRow appends what a result and a row share: key, value (when its
// flag says so), version and stamps.
func appendRow(b []byte, w *Row) []byte {
	b = appendString(b, w.Key)
	b = appendValue(b, w.Value)
	b = binary.AppendUvarint(b, w.Version)
	b = binary.AppendVarint(b, w.ExpiresAt)
	return binary.AppendVarint(b, w.UpdatedAt)
}

// row reads what appendRow wrote.
func (d *decoder) row(w *Row, hasValue bool) {
	w.Key = d.string()
	if hasValue {
		w.Value = d.Bytes()
	}
	w.Version, w.ExpiresAt, w.UpdatedAt = d.Uvarint(), d.Varint(), d.Varint()
}

// valueFlag is rflagValue when v is present.
func valueFlag(v []byte) byte {
	if v != nil {
		return rflagValue
	}
	return 0
}

// DecodeAnswer reads the answer of an OpKV op from an entry's result
// (raftlog.Result.Ops[i]), including the answer of a call a required op
// rolled back. Stamp is left 0: it is the entry's, in raftlog.Result.
// An answer raftlog.Rejected recognizes is not a KV answer.
func DecodeAnswer(b []byte) (*Answer, error) {
	d, err := openDecoder(b, "answer")
	if err != nil {
		return nil, err
	}
	ok := d.Byte()
	a := &Answer{OK: ok == 1}
	switch {
	case d.Err != nil || ok > 1:
		d.Fail("ok")
	case !a.OK:
		a.FailedIndex = int(d.uvarintTo(1<<31-1, "failed index"))
		a.KVReason = d.reason()
		a.Version = d.Uvarint()
		if f := d.Byte(); f&^rflagValue != 0 {
			d.Fail("flags")
		} else if f != 0 {
			a.Value = d.Bytes()
		}
	default:
		if n := d.Count(minResultBytes); n > 0 {
			a.Results = make([]Result, n)
			for i := range a.Results {
				d.result(&a.Results[i], i)
				if d.Err != nil {
					break
				}
			}
		}
	}
	if err := d.finish(); err != nil {
		return nil, err
	}
	return a, nil
}

// minResultBytes and minRowBytes are the sizes of the smallest encoded
// result and row.
const (
	minResultBytes = 10
	minRowBytes    = 5
)

func (d *decoder) reason() string {
	c := d.Byte()
	if int(c) >= len(reasons) {
		d.Fail("reason")
		return ""
	}
	return reasons[c]
}

func (d *decoder) result(r *Result, i int) {
	r.Index = i
	kind, flags := d.Byte(), d.Byte()
	if d.Err != nil || kind == 0 || kind >= byte(kindEnd) || flags&^rflagsKnown != 0 {
		d.Fail("result kind or flags")
		return
	}
	r.Op = kindNames[kind]
	r.Applied, r.Found, r.Truncated = flags&rflagApplied != 0, flags&rflagFound != 0, flags&rflagTruncated != 0
	r.Reason = d.reason()
	var w Row
	d.row(&w, flags&rflagValue != 0)
	r.Key, r.Value, r.Version, r.ExpiresAt, r.UpdatedAt = w.Key, w.Value, w.Version, w.ExpiresAt, w.UpdatedAt
	if n := d.Count(minRowBytes); n > 0 {
		r.Rows = make([]Row, n)
		for j := range r.Rows {
			f := d.Byte()
			if f&^rflagValue != 0 {
				d.Fail("row flags")
				return
			}
			d.row(&r.Rows[j], f != 0)
		}
	}
	r.Missing = d.strings()
	r.NextAfter = d.string()
}
