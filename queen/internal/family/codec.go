package family

import (
	"encoding/binary"
	"fmt"

	"github.com/queen-mq/queen-go/raftlog/wire"
)

// Encoder appends the fields of an op, a row or an answer in order:
// strings length-prefixed (wire.AppendString), integers as varints,
// flags as one byte 0 or 1.
type Encoder []byte

// Byte appends bytes as they are.
func (e *Encoder) Byte(v ...byte) { *e = append(*e, v...) }

// Str appends each string with its length before it.
func (e *Encoder) Str(ss ...string) {
	for _, s := range ss {
		*e = wire.AppendString(*e, s)
	}
}

// Strs appends a list of strings: its count, then each.
func (e *Encoder) Strs(ss []string) {
	e.Uvarint(uint64(len(ss)))
	e.Str(ss...)
}

// Uvarint appends unsigned varints.
func (e *Encoder) Uvarint(vs ...uint64) {
	for _, v := range vs {
		*e = binary.AppendUvarint(*e, v)
	}
}

// Varint appends signed varints.
func (e *Encoder) Varint(vs ...int64) {
	for _, v := range vs {
		*e = binary.AppendVarint(*e, v)
	}
}

// Bool appends each flag as a byte, 1 or 0.
func (e *Encoder) Bool(vs ...bool) {
	for _, v := range vs {
		*e = append(*e, Bit(v))
	}
}

// Bit is a flag's byte: 1 or 0.
func Bit(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// Decoder reads what an Encoder wrote, strictly: the first failure sticks
// (wire.Decoder) and wraps the family's ErrCorrupt.
type Decoder struct{ wire.Decoder }

// NewDecoder reads b; its failures wrap corrupt.
func NewDecoder(b []byte, corrupt error) *Decoder {
	return &Decoder{wire.NewDecoder(b, corrupt)}
}

// Decode reads b with read and refuses bytes left after it.
func Decode[T any](b []byte, corrupt error, read func(d *Decoder) T) (T, error) {
	d := NewDecoder(b, corrupt)
	v := read(d)
	return v, d.End()
}

// Version reads a version byte, failing "<what> <v>" for one other than
// want.
func (d *Decoder) Version(want byte, what string) {
	if v := d.Byte(); d.Err == nil && v != want {
		d.Fail(fmt.Sprintf("%s %d", what, v))
	}
}

// Expect fails what unless ok (or something failed before).
func (d *Decoder) Expect(ok bool, what string) {
	if d.Err == nil && !ok {
		d.Fail(what)
	}
}

// Str reads a length-prefixed string.
func (d *Decoder) Str() string { return string(d.Bytes()) }

// Blob reads a length-prefixed value into bytes of its own (the input's
// are not kept).
func (d *Decoder) Blob() []byte { return append([]byte(nil), d.Bytes()...) }

// Strs reads a list of strings Strs wrote (nil when empty).
func (d *Decoder) Strs() []string {
	var out []string
	n := d.Count(1)
	for i := 0; i < n && d.Err == nil; i++ {
		out = append(out, d.Str())
	}
	return out
}

// Flag reads a flag byte, failing what unless it is 0 or 1.
func (d *Decoder) Flag(what string) bool {
	v := d.Byte()
	d.Expect(v <= 1, what)
	return v == 1
}

// Optional reads a flag that older encodings leave out: absent (nothing
// left) is false, 1 is true, anything else fails what.
func (d *Decoder) Optional(what string) bool {
	if d.Err != nil || len(d.B) == 0 {
		return false
	}
	v := d.Byte() == 1
	d.Expect(v, what)
	return v
}

// ID reads 16 bytes as they are (an id, a UUID), failing what when fewer
// are left.
func (d *Decoder) ID(what string) [16]byte {
	var id [16]byte
	if len(d.B) < 16 {
		d.Fail(what)
		return id
	}
	copy(id[:], d.B[:16])
	d.B = d.B[16:]
	return id
}

// Limit reads a limit of 1..most, failing what outside it.
func (d *Decoder) Limit(most uint64, what string) int {
	n := d.Uvarint()
	d.Expect(n >= 1 && n <= most, what)
	return int(n)
}

// End refuses bytes left, and returns the first failure (nil: none).
func (d *Decoder) End() error {
	d.Expect(len(d.B) == 0, "trailing bytes")
	return d.Err
}

// OpCodec is how a family's ops start: a version byte, then a tag byte
// that says which op follows. Its names are those of the failures.
type OpCodec struct {
	Corrupt error
	Version byte
	// VersionWhat and TagWhat name a bad version or an unknown tag in a
	// failure ("<what> <byte>").
	VersionWhat, TagWhat string
}

// DecodeOp reads an op that starts as c says: read reads the op of a tag
// (nil: no op has it), and check (nil: none) refuses what the contract
// refuses. What does not decode, or check refuses, is an error and no op.
func DecodeOp[S any](c OpCodec, b []byte, read func(tag byte, d *Decoder) Op[S], check func(Op[S]) error) (Op[S], error) {
	op, err := Decode(b, c.Corrupt, func(d *Decoder) Op[S] {
		d.Version(c.Version, c.VersionWhat)
		tag := d.Byte()
		if d.Err != nil {
			return nil
		}
		op := read(tag, d)
		if op == nil {
			d.Fail(fmt.Sprintf("%s %d", c.TagWhat, tag))
		}
		return op
	})
	if err == nil && check != nil {
		err = check(op)
	}
	if err != nil {
		return nil, err
	}
	return op, nil
}
