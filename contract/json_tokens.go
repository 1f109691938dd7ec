package contract

// The tokens of JSON text other than strings' insides and numbers
// (json_number.go): white space, the three literals and a \u escape's
// four hex digits. CheckJSON reads them here, and so does httpd's push
// scanner, so that every reader of our bodies keeps to one grammar.

// JSONSpaceEnd is the offset past the JSON white space (' ', '\t', '\n',
// '\r') that starts at b[i]: i itself when there is none.
func JSONSpaceEnd(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// JSONLiteralEnd reads the literal (true, false or null) that starts at
// b[i] and returns the offset just past it; ok is false when none starts
// there (end is then i).
func JSONLiteralEnd(b []byte, i int) (end int, ok bool) {
	var lit string
	switch {
	case i >= len(b):
		return i, false
	case b[i] == 't':
		lit = "true"
	case b[i] == 'f':
		lit = "false"
	case b[i] == 'n':
		lit = "null"
	default:
		return i, false
	}
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// JSONHex4 reads the four hex digits (either case) of a \u escape at the
// start of b: the code unit they spell, -1 when there are not four.
func JSONHex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}
