package contract

// numberFault says where a JSON number broke off (scanNumber).
type numberFault uint8

const (
	numberOK         numberFault = iota
	numberNoInteger              // no digit where the integer part starts
	numberNoFraction             // a '.' with no digit after it
	numberNoExponent             // an 'e' or 'E' (and its sign) with no digit after it
)

// scanNumber reads the JSON number (RFC 8259) that starts at s[i],
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, and returns the offset
// just past it, or the offset where it broke off and why. It is the one
// reading of the grammar: CheckJSON, IsJSONNumber and JSONNumberEnd.
func scanNumber[T ~string | ~[]byte](s T, i int) (end int, fault numberFault) {
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		i = digitsEnd(s, i)
	default:
		return i, numberNoInteger
	}
	if i < len(s) && s[i] == '.' {
		j := digitsEnd(s, i+1)
		if j == i+1 {
			return j, numberNoFraction
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digitsEnd(s, i)
		if j == i {
			return j, numberNoExponent
		}
		i = j
	}
	return i, numberOK
}

// digitsEnd is the offset past the decimal digits that start at s[i].
func digitsEnd[T ~string | ~[]byte](s T, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// JSONNumberEnd reads the JSON number that starts at b[i] and returns the
// offset just past it; ok is false when none starts there (end is then
// where the grammar broke off). For the JSON scanners of the other
// modules (httpd's push body), so that every reader of our bodies keeps
// to the one grammar CheckJSON checks.
func JSONNumberEnd(b []byte, i int) (end int, ok bool) {
	end, fault := scanNumber(b, i)
	return end, fault == numberOK
}
