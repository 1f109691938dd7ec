package httpd

import (
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/queen-mq/queen-go/contract"
)

// jsonScan reads JSON text in one pass without reflection, for the bodies
// on the hot path (push_scan.go). It accepts exactly what encoding/json
// accepts: RFC 8259 text, with any bytes at or past 0x80 inside strings
// (encoding/json checks no UTF-8; parseJSON does, before), and arrays and
// objects nested at most jsonMaxNesting deep.
//
// Its methods return false on the first syntax error; the caller then
// refuses the whole body, as encoding/json checks a whole text before it
// decodes any of it.
type jsonScan struct {
	b []byte
	i int
	// depth is the number of arrays and objects open at i.
	//
	// INVARIANT: 0 ≤ depth ≤ jsonMaxNesting.
	depth int
}

// jsonMaxNesting is encoding/json's bound on nesting (its scanner's
// maxNestingDepth): one more open array or object is a syntax error.
const jsonMaxNesting = 10000

// strClass sorts the bytes of a string's inside: 0 for the ones that stand
// for themselves, 1 for '"', 2 for '\\', 3 for control characters.
var strClass = func() (t [256]uint8) {
	for c := 0; c < 0x20; c++ {
		t[c] = 3
	}
	t['"'], t['\\'] = 1, 2
	return t
}()

// ws skips white space.
func (s *jsonScan) ws() {
	s.i = contract.JSONSpaceEnd(s.b, s.i)
}

// peek is the byte at i, 0 at the end of the text.
func (s *jsonScan) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// open steps past the '{' or '[' at i, one level deeper.
func (s *jsonScan) open() bool {
	if s.depth == jsonMaxNesting {
		return false
	}
	s.depth++
	s.i++
	return true
}

// next reads what follows a member or an element, white space around
// it: ',' (more true) or the closing byte end (more false).
func (s *jsonScan) next(end byte) (more, ok bool) {
	s.ws()
	switch s.peek() {
	case ',':
		s.i++
		s.ws()
		return true, true
	case end:
		s.i++
		s.depth--
		return false, true
	}
	return false, false
}

// first reads the start of an object or array just opened: true when it
// is empty (and closed), white space skipped.
func (s *jsonScan) first(end byte) (empty bool) {
	s.ws()
	if s.peek() == end {
		s.i++
		s.depth--
		return true
	}
	return false
}

// key reads an object member's name and the ':' after it, white space
// around; name is its text between the quotes, still escaped.
func (s *jsonScan) key() (name []byte, ok bool) {
	if s.peek() != '"' {
		return nil, false
	}
	start := s.i
	if !s.str() {
		return nil, false
	}
	name = s.b[start+1 : s.i-1]
	s.ws()
	if s.peek() != ':' {
		return nil, false
	}
	s.i++
	s.ws()
	return name, true
}

// value skips one value at i (no white space before it).
func (s *jsonScan) value() bool {
	switch s.peek() {
	case '"':
		return s.str()
	case '{':
		return s.container('}')
	case '[':
		return s.container(']')
	case 't', 'f', 'n':
		return s.literal()
	}
	return s.number()
}

// container skips the object (end '}') or array (end ']') that opens at
// i: its members, each a key and a value, or its elements.
func (s *jsonScan) container(end byte) bool {
	if !s.open() {
		return false
	}
	if s.first(end) {
		return true
	}
	for {
		if end == '}' {
			if _, ok := s.key(); !ok {
				return false
			}
		}
		if !s.value() {
			return false
		}
		more, ok := s.next(end)
		if !ok || !more {
			return ok
		}
	}
}

// literal skips true, false or null, in the grammar contract.CheckJSON
// checks.
func (s *jsonScan) literal() bool {
	var ok bool
	s.i, ok = contract.JSONLiteralEnd(s.b, s.i)
	return ok
}

// number skips a number, in the grammar contract.CheckJSON checks.
func (s *jsonScan) number() bool {
	var ok bool
	s.i, ok = contract.JSONNumberEnd(s.b, s.i)
	return ok
}

// str skips a string from its opening quote at i past its closing one.
func (s *jsonScan) str() bool {
	b := s.b
	i := s.i + 1
	for {
		for i+8 <= len(b) && !strSpecial8(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		for i < len(b) && strClass[b[i]] == 0 {
			i++
		}
		if i >= len(b) {
			return false
		}
		switch strClass[b[i]] {
		case 1:
			s.i = i + 1
			return true
		case 3:
			return false
		}
		// A backslash.
		if i+1 >= len(b) {
			return false
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if contract.JSONHex4(b[i+2:]) < 0 {
				return false
			}
			i += 6
		default:
			return false
		}
	}
}

// strSpecial8 reports whether any of the eight bytes of x is special in
// a string: '"', '\\' or a control character (SWAR: a byte is zero after
// the xor, or below 0x20, when its high bit survives the borrow).
func strSpecial8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	below20 := (x - 0x20*ones) & ^x & highs
	return below20|zero(x^'"'*ones)|zero(x^'\\'*ones) != 0
}

// jsonText is the text of the JSON string raw (quotes included, as
// scanned), unescaped as encoding/json unescapes it: a byte that is not
// UTF-8, and the escape of a lone surrogate, become U+FFFD. When raw needs
// no unescaping, the text is raw's own bytes between the quotes.
//
// REQUIRES: raw is one JSON string as jsonScan accepts it.
func jsonText(raw []byte) []byte {
	in := raw[1 : len(raw)-1]
	for i := 0; i < len(in); i++ {
		if c := in[i]; c == '\\' || c >= utf8.RuneSelf {
			if c != '\\' && utf8.Valid(in[i:]) && !hasByte(in[i:], '\\') {
				return in
			}
			return unescape(make([]byte, 0, len(in)+utf8.UTFMax), in, i)
		}
	}
	return in
}

// hasByte reports whether b holds c.
func hasByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

// unescape appends in's text to dst: in[:from] as it is, the rest
// unescaped (jsonText).
func unescape(dst, in []byte, from int) []byte {
	dst = append(dst, in[:from]...)
	for i := from; i < len(in); {
		c := in[i]
		switch {
		case c == '\\':
			switch e := in[i+1]; e {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r := contract.JSONHex4(in[i+2:])
				i += 6
				if utf16.IsSurrogate(r) {
					if r2 := pairLow(in[i:]); utf16.DecodeRune(r, r2) != utf8.RuneError {
						r = utf16.DecodeRune(r, r2)
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				dst = utf8.AppendRune(dst, r)
				continue
			default: // '"', '\\', '/'
				dst = append(dst, e)
			}
			i += 2
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(in[i:])
			dst = utf8.AppendRune(dst, r)
			i += size
		}
	}
	return dst
}

// pairLow is the \u escape at the start of b, -1 when there is none.
func pairLow(b []byte) rune {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return -1
	}
	return contract.JSONHex4(b[2:])
}
