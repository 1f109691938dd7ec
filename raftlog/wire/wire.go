// Package wire holds the small pieces shared by the binary codecs of
// raftlog and of the modules whose ops apply inside its state machine
// (kvstore): varint fields that decode strictly, length-prefixed strings,
// and the bounds of a key prefix.
//
// Strict means one encoding per value: a padded varint (a last byte of 0
// after others) is refused, so anything that decodes encodes back to the
// same bytes.
package wire

import (
	"encoding/binary"
	"fmt"
)

// Decoder reads the fields of an encoding in order. The first failure
// sticks in Err (wrapping Corrupt), and every read after it returns zero
// values.
type Decoder struct {
	// B is what is left to read.
	B []byte
	// Err is the first failure, or nil.
	Err error
	// Corrupt is the sentinel every failure wraps.
	Corrupt error
}

// NewDecoder reads b; its failures wrap corrupt.
func NewDecoder(b []byte, corrupt error) Decoder { return Decoder{B: b, Corrupt: corrupt} }

// Fail records a failure to read what, unless one is recorded already.
func (d *Decoder) Fail(what string) {
	if d.Err == nil {
		d.Err = fmt.Errorf("%w: bad %s", d.Corrupt, what)
	}
	d.B = nil
}

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	if len(d.B) == 0 {
		d.Fail("byte")
		return 0
	}
	v := d.B[0]
	d.B = d.B[1:]
	return v
}

// Uvarint reads an unsigned varint, refusing a padded one.
func (d *Decoder) Uvarint() uint64 {
	v, n := binary.Uvarint(d.B)
	if n <= 0 || (n > 1 && d.B[n-1] == 0) {
		d.Fail("uvarint")
		return 0
	}
	d.B = d.B[n:]
	return v
}

// Varint reads a signed varint, refusing a padded one.
func (d *Decoder) Varint() int64 {
	v, n := binary.Varint(d.B)
	if n <= 0 || (n > 1 && d.B[n-1] == 0) {
		d.Fail("varint")
		return 0
	}
	d.B = d.B[n:]
	return v
}

// Bytes reads a uvarint length and that many bytes, which alias the input.
func (d *Decoder) Bytes() []byte {
	n := d.Uvarint()
	if n > uint64(len(d.B)) {
		d.Fail("length")
		return nil
	}
	v := d.B[:n:n]
	d.B = d.B[n:]
	return v
}

// Count reads an element count, refusing one that the bytes left could not
// hold at minSize bytes an element.
func (d *Decoder) Count(minSize uint64) int {
	n := d.Uvarint()
	if minSize > 0 && n > uint64(len(d.B))/minSize {
		d.Fail("count")
		return 0
	}
	return int(n)
}

// AppendString appends s with its uvarint length before it.
func AppendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// PrefixEnd returns the first key after every key that starts with p, or
// nil when there is none (p is all 0xff).
func PrefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
