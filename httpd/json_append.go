package httpd

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// Answers that carry payloads are written by hand: encoding/json compacts
// and re-escapes a json.RawMessage it marshals, and the contract wants the
// payload bytes as they were pushed (42.00 stays 42.00, white space inside
// stays). These appenders write the rest of such answers.

// stampLayout renders broker-clock stamps: ISO-8601 UTC, 6 fractional
// digits, Z (API.md §0).
const stampLayout = "2006-01-02T15:04:05.000000Z07:00"

// formatStamp renders a broker-clock stamp (µs since the epoch).
func formatStamp(us int64) string { return time.UnixMicro(us).UTC().Format(stampLayout) }

// stampOrNull renders a stamp for an answer struct, nil (null) for 0
// (never).
func stampOrNull(us int64) *string {
	if us == 0 {
		return nil
	}
	s := formatStamp(us)
	return &s
}

// stringOrNull is s for an answer struct, nil (null) when it is "".
func stringOrNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// appendStamp appends a stamp as a JSON string.
func appendStamp(b []byte, us int64) []byte {
	b = append(b, '"')
	b = time.UnixMicro(us).UTC().AppendFormat(b, stampLayout)
	return append(b, '"')
}

// appendInt appends n as a JSON number.
func appendInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

// appendKey appends "k": (k needs no escaping).
func appendKey(b []byte, k string) []byte {
	b = append(b, '"')
	b = append(b, k...)
	return append(b, '"', ':')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaped as encoding/json does
// without HTML escaping, except that \b and \f are written \u0008 and
// \u000c (as Go before 1.22 did; the answers' bytes keep that): invalid
// UTF-8 becomes U+FFFD, and U+2028 and U+2029 are escaped so the answer is
// also valid JavaScript.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendRaw appends JSON text as it is, or null when it is empty.
//
// REQUIRES: raw is empty or one valid JSON value (payloads were checked
// when pushed).
func appendRaw(b, raw []byte) []byte {
	if len(raw) == 0 {
		return append(b, "null"...)
	}
	return append(b, raw...)
}

// The members of a hand-rendered object: each appends "k":value and a
// comma (k needs no escaping), and closeObject turns the last comma into
// the object's '}'.

// appendIntField appends "k":n,.
func appendIntField(b []byte, k string, n int64) []byte {
	return append(appendInt(appendKey(b, k), n), ',')
}

// appendRawField appends "k":raw, (appendRaw: null when empty).
func appendRawField(b []byte, k string, raw []byte) []byte {
	return append(appendRaw(appendKey(b, k), raw), ',')
}

// appendStampField appends "k":"<stamp>",.
func appendStampField(b []byte, k string, us int64) []byte {
	return append(appendStamp(appendKey(b, k), us), ',')
}

// closeObject ends the object b holds: its members' last comma becomes
// '}', and an object of no member is closed as it is.
func closeObject(b []byte) []byte {
	if b[len(b)-1] == ',' {
		b[len(b)-1] = '}'
		return b
	}
	return append(b, '}')
}
