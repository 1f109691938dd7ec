package lakeformat

import (
	"errors"
	"fmt"
)

// ErrBadKey is wrapped by every error that refuses an object key, a name
// escaped into one, or a window, part, tenant, queue or k a key is built from.
var ErrBadKey = errors.New("lakeformat: bad key")

const upperHex = "0123456789ABCDEF"

// plain reports whether b stays itself in an escaped name: A-Z a-z 0-9 . _ -
func plain(b byte) bool {
	return 'A' <= b && b <= 'Z' || 'a' <= b && b <= 'z' || '0' <= b && b <= '9' ||
		b == '.' || b == '_' || b == '-'
}

// EscapeName percent-encodes every byte of s outside A-Z a-z 0-9 . _ - as
// %XX with uppercase hex, so that a b/c becomes a%20b%2Fc; a non-ASCII rune
// is encoded one UTF-8 byte at a time. The result never holds a '/', so a
// tenant, queue or partition name cannot add a segment to a key. When s needs
// no escaping, EscapeName returns it as it is, without allocating.
//
// Keys and the sink's KV keys (SINK-CONFIG §3) use this one escaping.
func EscapeName(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !plain(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if plain(c) {
			b = append(b, c)
			continue
		}
		b = append(b, '%', upperHex[c>>4], upperHex[c&0xf])
	}
	return string(b)
}

// UnescapeName is the strict inverse of EscapeName. It refuses, in an error
// wrapping ErrBadKey that quotes s, a byte EscapeName would have escaped, a
// '%' not followed by two uppercase hex digits, and a %XX that encodes a
// byte EscapeName leaves as it is. So UnescapeName(EscapeName(s)) == s for
// every s, and EscapeName(UnescapeName(x)) == x whenever UnescapeName
// accepts x.
func UnescapeName(s string) (string, error) {
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%':
			if i+2 >= len(s) {
				return "", fmt.Errorf("%w: name %q: truncated escape at byte %d", ErrBadKey, s, i)
			}
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if !ok1 || !ok2 {
				return "", fmt.Errorf("%w: name %q: escape %q at byte %d is not %%XX with uppercase hex",
					ErrBadKey, s, s[i:i+3], i)
			}
			if plain(hi<<4 | lo) {
				return "", fmt.Errorf("%w: name %q: escape %q at byte %d encodes %q, which is never escaped",
					ErrBadKey, s, s[i:i+3], i, string(rune(hi<<4|lo)))
			}
			n++
			i += 2
		case !plain(c):
			return "", fmt.Errorf("%w: name %q: byte %q at %d should be escaped", ErrBadKey, s, c, i)
		}
	}
	if n == 0 {
		return s, nil
	}
	b := make([]byte, 0, len(s)-2*n)
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		hi, _ := unhex(s[i+1])
		lo, _ := unhex(s[i+2])
		b = append(b, hi<<4|lo)
		i += 2
	}
	return string(b), nil
}

// unhex reads one uppercase hex digit.
func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
