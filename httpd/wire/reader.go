package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Error is a body that does not read as its layout: Where names the place
// ("groups[2].messages[7].payload"), Problem says what is wrong.
type Error struct {
	Body    string // "binary push", "binary transaction" or "framed pop"
	Where   string
	Problem string
}

func (e *Error) Error() string {
	if e.Where == "" {
		return e.Body + ": " + e.Problem
	}
	return e.Body + ": " + e.Where + ": " + e.Problem
}

// ErrTooLarge is a body that decompresses past the decoder's budget.
var ErrTooLarge = errors.New("wire: the body decompresses past the size limit")

// reader reads little-endian fields off b; the first read past the end
// records an *Error naming where and what it was reading, and every read
// after it returns zero values.
type reader struct {
	body string
	b    []byte
	at   int
	err  error
}

func (r *reader) fail(where, format string, args ...any) {
	if r.err == nil {
		r.err = &Error{Body: r.body, Where: where, Problem: fmt.Sprintf(format, args...)}
	}
}

// left is how many bytes are still to read.
func (r *reader) left() int { return len(r.b) - r.at }

func (r *reader) take(n int, where string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > r.left() {
		r.fail(where, "%d bytes run past the end (%d left)", n, r.left())
		return nil
	}
	p := r.b[r.at : r.at+n : r.at+n]
	r.at += n
	return p
}

func (r *reader) u8(where string) byte {
	p := r.take(1, where)
	if p == nil {
		return 0
	}
	return p[0]
}

func (r *reader) u16(where string) int {
	p := r.take(2, where)
	if p == nil {
		return 0
	}
	return int(binary.LittleEndian.Uint16(p))
}

func (r *reader) u32(where string) int {
	p := r.take(4, where)
	if p == nil {
		return 0
	}
	return int(binary.LittleEndian.Uint32(p))
}

func (r *reader) u64(where string) uint64 {
	p := r.take(8, where)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(p)
}

// text reads u16 len, bytes as a string.
func (r *reader) text(where string) string {
	return string(r.take(r.u16(where), where))
}

// count reads a u32 count of things of at least min bytes each, refused
// when that many could not fit in what is left: nothing is sized by a
// count the body cannot hold.
func (r *reader) count(where string, min int) int {
	n := r.u32(where)
	if r.err == nil && (n < 0 || n > r.left()/min) { // n < 0: a count past 2^31 on a 32-bit int
		r.fail(where, "%d entries cannot fit in the %d bytes left", n, r.left())
		return 0
	}
	return n
}

// end refuses bytes after the last field.
func (r *reader) end(where string) {
	if r.err == nil && r.left() != 0 {
		r.fail(where, "%d bytes after the end", r.left())
	}
}

// Appending little-endian fields.

func appendU16(b []byte, v int) []byte { return binary.LittleEndian.AppendUint16(b, uint16(v)) }
func appendU32(b []byte, v int) []byte { return binary.LittleEndian.AppendUint32(b, uint32(v)) }

// appendText appends u16 len, s; what names s in the error when it is
// longer than 65535 bytes.
func appendText(b []byte, s, what string) ([]byte, error) {
	if len(s) > 0xFFFF {
		return nil, fmt.Errorf("wire: %s is %d bytes, longer than 65535", what, len(s))
	}
	return append(appendU16(b, len(s)), s...), nil
}

// head reads the start of a body of kind what: its magic, then its flags
// byte, of which only the known bits may be set. A flags byte past the
// end is left in the reader's err.
func head(what, magic string, known byte, body []byte) (*reader, byte, error) {
	r := &reader{body: what, b: body}
	if string(r.take(len(magic), "magic")) != magic {
		return nil, 0, &Error{Body: what, Problem: "the body does not start with " + magic}
	}
	flags := r.u8("flags")
	if r.err == nil && flags&^known != 0 {
		return nil, 0, &Error{Body: what, Where: "flags", Problem: fmt.Sprintf("unknown flags 0x%02x", flags&^known)}
	}
	return r, flags, nil
}
