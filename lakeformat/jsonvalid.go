package lakeformat

import (
	"encoding/binary"
	"unicode/utf8"
	"unsafe"
)

// maxJSONDepth is the deepest nesting validJSON accepts, the same bound as
// encoding/json's scanner, so that a payload the lake writes as JSON is one
// every Go reader can parse.
const maxJSONDepth = 10000

// strSafe[b] is true for the bytes that may stand for themselves inside a
// JSON string without further checks: printable ASCII but '"' and '\\'.
var strSafe = func() (t [256]bool) {
	for b := 0x20; b < 0x80; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// plainRun returns how many leading bytes of p are strSafe, eight at a time
// while it can.
func plainRun(p []byte) int {
	i := 0
	for ; i+8 <= len(p); i += 8 {
		if special(binary.LittleEndian.Uint64(p[i:])) {
			break
		}
	}
	for i < len(p) && strSafe[p[i]] {
		i++
	}
	return i
}

// readOnly returns the bytes of s without copying them.
//
// REQUIRES: the caller never writes to the result.
func readOnly(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// special reports whether any byte of the word x is not strSafe: below 0x20,
// '"', '\\', or 0x80 and above. Each test is the classic "has a zero byte"
// bit trick, which can report a byte next to a true match but never misses
// one: a false answer is exact.
func special(x uint64) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q := x ^ (lo * '"')
	b := x ^ (lo * '\\')
	return ((x-lo*0x20)&^x|(q-lo)&^q|(b-lo)&^b|x)&hi != 0
}

// validJSON reports whether p is one JSON value (RFC 8259), optionally
// surrounded by whitespace, in valid UTF-8, nested at most maxJSONDepth deep.
// It equals json.Valid(p) && utf8.Valid(p), and is faster than either.
func validJSON(p []byte) bool {
	v := validator{p: p}
	i, ok := v.value(v.ws(0), 0)
	return ok && v.ws(i) == len(p)
}

type validator struct{ p []byte }

// ws returns the index of the first byte at or after i that is not JSON whitespace.
func (v *validator) ws(i int) int {
	for i < len(v.p) {
		switch v.p[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// value checks the value at p[i:] and returns the index just after it.
func (v *validator) value(i, depth int) (int, bool) {
	if i >= len(v.p) {
		return i, false
	}
	switch c := v.p[i]; {
	case c == '{':
		return v.container(i+1, depth+1, '}')
	case c == '[':
		return v.container(i+1, depth+1, ']')
	case c == '"':
		return v.str(i + 1)
	case c == '-' || c >= '0' && c <= '9':
		return v.number(i)
	case c == 't':
		return v.literal(i, "true")
	case c == 'f':
		return v.literal(i, "false")
	case c == 'n':
		return v.literal(i, "null")
	}
	return i, false
}

func (v *validator) literal(i int, lit string) (int, bool) {
	if len(v.p)-i < len(lit) || string(v.p[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// container checks the members of an object (close '}') or the elements
// of an array (close ']') from just after its opening bracket, and returns
// the index just after its closing one.
func (v *validator) container(i, depth int, close byte) (int, bool) {
	if depth > maxJSONDepth {
		return i, false
	}
	i = v.ws(i)
	if i < len(v.p) && v.p[i] == close {
		return i + 1, true
	}
	for {
		var ok bool
		if close == '}' {
			if i, ok = v.member(i); !ok {
				return i, false
			}
		}
		if i, ok = v.value(i, depth); !ok {
			return i, false
		}
		if i = v.ws(i); i >= len(v.p) {
			return i, false
		}
		switch v.p[i] {
		case ',':
			i = v.ws(i + 1)
		case close:
			return i + 1, true
		default:
			return i, false
		}
	}
}

// member checks an object member's name and colon at p[i:] and returns
// the index of its value.
func (v *validator) member(i int) (int, bool) {
	if i >= len(v.p) || v.p[i] != '"' {
		return i, false
	}
	i, ok := v.str(i + 1)
	if !ok {
		return i, false
	}
	if i = v.ws(i); i >= len(v.p) || v.p[i] != ':' {
		return i, false
	}
	return v.ws(i + 1), true
}

// str checks a string whose opening quote is at p[i-1].
func (v *validator) str(i int) (int, bool) {
	p := v.p
	for i < len(p) {
		i += plainRun(p[i:])
		if i >= len(p) {
			break
		}
		c := p[i]
		switch {
		case c == '"':
			return i + 1, true
		case c == '\\':
			if i+1 >= len(p) {
				return i, false
			}
			switch p[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(p) || !isHex(p[i+2]) || !isHex(p[i+3]) || !isHex(p[i+4]) || !isHex(p[i+5]) {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
		case c < 0x20:
			return i, false
		default: // c >= 0x80
			r, n := utf8.DecodeRune(p[i:])
			if r == utf8.RuneError && n <= 1 {
				return i, false
			}
			i += n
		}
	}
	return i, false
}

func (v *validator) number(i int) (int, bool) {
	p := v.p
	if p[i] == '-' {
		i++
	}
	switch {
	case i < len(p) && p[i] == '0':
		i++
	case i < len(p) && p[i] >= '1' && p[i] <= '9':
		i = digits(p, i)
	default:
		return i, false
	}
	if i < len(p) && p[i] == '.' {
		j := digits(p, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(p) && (p[i] == 'e' || p[i] == 'E') {
		i++
		if i < len(p) && (p[i] == '+' || p[i] == '-') {
			i++
		}
		j := digits(p, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

func digits(p []byte, i int) int {
	for i < len(p) && p[i] >= '0' && p[i] <= '9' {
		i++
	}
	return i
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
