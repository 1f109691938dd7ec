package contract

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxJSONDepth is how deep a request body may nest arrays and objects: a
// push's payload sits three levels down ({"items":[{"payload":…}]}), so
// payloads get 125 levels of their own.
const MaxJSONDepth = 128

// JSONProblem is what CheckJSON found wrong.
type JSONProblem uint8

const (
	// JSONSyntax: the text is not one JSON value (RFC 8259).
	JSONSyntax JSONProblem = iota + 1
	// JSONInvalidUTF8: a string holds bytes that are not UTF-8, or a
	// \u escape of a lone surrogate, which no UTF-8 text can hold.
	JSONInvalidUTF8
	// JSONTooDeep: arrays and objects nest deeper than the limit.
	JSONTooDeep
)

// JSONError says where CheckJSON stopped: the byte offset, and the path
// of the value there ("items[3].payload"; "" for the top value).
type JSONError struct {
	Problem JSONProblem
	Offset  int
	Path    string
	// What says more: the syntax error, or the escape of a lone surrogate.
	What string
	// Limit is the depth limit of a JSONTooDeep.
	Limit int
}

func (e *JSONError) Error() string {
	at := ""
	if e.Path != "" {
		at = Clip(e.Path) + ": "
		if len(e.Path) > ClipBytes {
			at = Clip(e.Path) + "…: "
		}
	}
	switch e.Problem {
	case JSONInvalidUTF8:
		if e.What != "" {
			return fmt.Sprintf("%sthe string at byte %d holds %s, a lone surrogate: not valid UTF-8", at, e.Offset, e.What)
		}
		return fmt.Sprintf("%sthe string at byte %d is not valid UTF-8", at, e.Offset)
	case JSONTooDeep:
		return fmt.Sprintf("%sarrays and objects nest more than %d deep at byte %d, at most %d", at, e.Limit, e.Offset, e.Limit)
	}
	return fmt.Sprintf("%s%s at byte %d", at, e.What, e.Offset)
}

// CheckJSON reports whether b is exactly one JSON value, with white space
// around it, whose strings are valid UTF-8 (raw bytes and \u escapes
// alike: a lone surrogate is refused) and whose arrays and objects nest at
// most maxDepth deep. The error is a *JSONError. It reads b once and
// allocates nothing unless it fails.
//
// Once b passes, encoding/json decodes its strings without replacing a
// byte: every string means exactly its bytes.
func CheckJSON(b []byte, maxDepth int) error {
	s := scanner{b: b, max: maxDepth}
	s.ws()
	if err := s.value(0); err != nil {
		return err
	}
	s.ws()
	if s.i != len(b) {
		return s.syntax("data after the value")
	}
	return nil
}

type scanner struct {
	b   []byte
	i   int
	max int
}

func (s *scanner) syntax(what string) *JSONError {
	if s.i >= len(s.b) {
		what = "unexpected end of the text"
	}
	return &JSONError{Problem: JSONSyntax, Offset: s.i, What: what}
}

func (s *scanner) ws() {
	s.i = JSONSpaceEnd(s.b, s.i)
}

// value scans one value at depth (the number of arrays and objects
// around it). An error from inside a member or element gets that member's
// step put in front of its path on the way out.
func (s *scanner) value(depth int) *JSONError {
	if s.i >= len(s.b) {
		return s.syntax("")
	}
	switch c := s.b[s.i]; c {
	case '{', '[':
		if depth >= s.max {
			return &JSONError{Problem: JSONTooDeep, Offset: s.i, Limit: s.max}
		}
		if c == '{' {
			return s.object(depth + 1)
		}
		return s.array(depth + 1)
	case '"':
		return s.str()
	case 't', 'f', 'n':
		return s.literal()
	}
	return s.number()
}

func (s *scanner) object(depth int) *JSONError {
	if s.open('}') {
		return nil
	}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return s.syntax("an object member must start with a string")
		}
		keyAt := s.i
		if err := s.str(); err != nil {
			return err
		}
		key := s.b[keyAt+1 : s.i-1]
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return s.syntax("expected ':' after an object member's name")
		}
		s.i++
		s.ws()
		if err := s.value(depth); err != nil {
			err.Path = joinPath(memberStep(key), err.Path)
			return err
		}
		if done, err := s.next('}', "expected ',' or '}' after an object member"); done || err != nil {
			return err
		}
	}
}

func (s *scanner) array(depth int) *JSONError {
	if s.open(']') {
		return nil
	}
	for n := 0; ; n++ {
		if err := s.value(depth); err != nil {
			err.Path = joinPath("["+strconv.Itoa(n)+"]", err.Path)
			return err
		}
		if done, err := s.next(']', "expected ',' or ']' after an array element"); done || err != nil {
			return err
		}
	}
}

// open reads past a container's opening bracket and the space after it,
// and past its closing one when it is empty (it reports so).
func (s *scanner) open(close byte) (empty bool) {
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == close {
		s.i++
		return true
	}
	return false
}

// next reads what follows a member or an element: a ',' and the space
// after it (more follow), or close (done); anything else is a syntax
// error that says what was expected.
func (s *scanner) next(close byte, expected string) (done bool, err *JSONError) {
	s.ws()
	if s.i >= len(s.b) {
		return false, s.syntax("")
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		s.ws()
		return false, nil
	case close:
		s.i++
		return true, nil
	}
	return false, s.syntax(expected)
}

// joinPath puts step in front of rest: "items" + "[3].payload".
func joinPath(step, rest string) string {
	switch {
	case rest == "":
		return step
	case rest[0] == '[':
		return step + rest
	}
	return step + "." + rest
}

// memberStep renders a member's name as a path step: as it is when it is
// a plain name, else quoted (and clipped).
func memberStep(raw []byte) string {
	plain := len(raw) > 0 && len(raw) <= ClipBytes
	for _, c := range raw {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			plain = false
			break
		}
	}
	if plain {
		return string(raw)
	}
	return "[" + Quote(strings.ToValidUTF8(string(raw), "\uFFFD")) + "]"
}

// literal scans true, false or null (JSONLiteralEnd).
func (s *scanner) literal() *JSONError {
	end, ok := JSONLiteralEnd(s.b, s.i)
	if !ok {
		return s.syntax("invalid literal")
	}
	s.i = end
	return nil
}

// number scans a number (scanNumber), saying where and why it broke off.
func (s *scanner) number() *JSONError {
	var fault numberFault
	s.i, fault = scanNumber(s.b, s.i)
	switch {
	case fault == numberNoInteger && s.i >= len(s.b):
		return s.syntax("")
	case fault == numberNoInteger:
		return s.syntax("invalid character " + strconv.QuoteRune(rune(s.b[s.i])) + " looking for a value")
	case fault == numberNoFraction:
		return s.syntax("a number's fraction needs a digit")
	case fault == numberNoExponent:
		return s.syntax("a number's exponent needs a digit")
	}
	return nil
}

// str scans a string from its opening quote past its closing one.
func (s *scanner) str() *JSONError {
	start := s.i
	s.i++
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return nil
		case c == '\\':
			if err := s.escape(start); err != nil {
				return err
			}
		case c < 0x20:
			return s.syntax("a control character in a string")
		case c < utf8.RuneSelf:
			s.i++
		default:
			r, size := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && size == 1 {
				return &JSONError{Problem: JSONInvalidUTF8, Offset: start}
			}
			s.i += size
		}
	}
	return s.syntax("")
}

// escape scans one escape of the string that starts at start.
func (s *scanner) escape(start int) *JSONError {
	s.i++ // '\\'
	if s.i >= len(s.b) {
		return s.syntax("")
	}
	switch s.b[s.i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.i++
		return nil
	case 'u':
	default:
		return s.syntax("invalid escape in a string")
	}
	r, ok := s.hex4()
	if !ok {
		return s.syntax("invalid \\u escape in a string")
	}
	switch {
	case r >= 0xDC00 && r <= 0xDFFF:
		return &JSONError{Problem: JSONInvalidUTF8, Offset: start, What: fmt.Sprintf(`\u%04x`, r)}
	case r >= 0xD800 && r <= 0xDBFF:
		at := s.i
		if s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
			s.i++
			if lo, ok := s.hex4(); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				return nil
			}
		}
		s.i = at
		return &JSONError{Problem: JSONInvalidUTF8, Offset: start, What: fmt.Sprintf(`\u%04x`, r)}
	}
	return nil
}

// hex4 reads 'u' and four hex digits.
func (s *scanner) hex4() (rune, bool) {
	if s.i >= len(s.b) || s.b[s.i] != 'u' {
		return 0, false
	}
	r := JSONHex4(s.b[s.i+1:])
	if r < 0 {
		return 0, false
	}
	s.i += 5
	return r, true
}
