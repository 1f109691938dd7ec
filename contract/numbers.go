package contract

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// MaxSafeInteger is the largest integer every JSON reader holds exactly
// (2^53-1, JavaScript's Number.MAX_SAFE_INTEGER): the bound of counts that
// have no bound of their own.
const MaxSafeInteger = 1<<53 - 1

// Range is the range of one numeric input: a queue option or a query
// parameter. Every number that enters the broker has one.
type Range struct {
	// Field is the input's name ("leaseTime", "timeout").
	Field string
	// Min and Max bound it, both included.
	Min, Max int64
	// Unit is what it counts ("s", "ms", "records", "bytes", "").
	Unit string
	// Clamp: a value outside Min..Max (but inside int64) is moved to the
	// nearer bound instead of refused, where the contract says so.
	Clamp bool
	// Doc says what it is, and what 0 means where 0 means something.
	Doc string
	// Where names the routes that take it (the docs' table).
	Where string
}

// RangeError refuses a number outside its Range, or a value that is not
// an integer at all.
type RangeError struct {
	Field string
	Range *Range
	// Text is the value as sent, clipped to ClipBytes.
	Text string
	// NotInteger: the value is not a number of integral value (a string,
	// 2.5, true).
	NotInteger bool
}

func (e *RangeError) Error() string {
	r := e.Range
	unit := ""
	if r.Unit != "" {
		unit = " " + r.Unit
	}
	if e.NotInteger {
		return fmt.Sprintf("%s %s must be an integer in %d..%d%s", e.Field, e.Text, r.Min, r.Max, unit)
	}
	return fmt.Sprintf("%s %s is outside %d..%d%s", e.Field, e.Text, r.Min, r.Max, unit)
}

// ErrNotInteger: a JSON value or query text is not a number of integral
// value.
var ErrNotInteger = errors.New("contract: not an integer")

// ErrIntegerRange: a number of integral value beyond int64.
var ErrIntegerRange = errors.New("contract: integer beyond int64")

// ParseInteger reads a JSON number of integral value: 3, -2, 3.0, 1e3.
// A fraction (2.5) is ErrNotInteger, and so is anything but a number; a
// value beyond int64 (1e400, 99999999999999999999) is ErrIntegerRange.
func ParseInteger(raw []byte) (int64, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, ErrNotInteger
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err == nil {
		return n, nil
	}
	if errors.Is(err, strconv.ErrRange) {
		return 0, ErrIntegerRange
	}
	f, ferr := strconv.ParseFloat(string(raw), 64)
	switch {
	case ferr != nil && !errors.Is(ferr, strconv.ErrRange):
		return 0, ErrNotInteger
	case math.IsInf(f, 0) || f >= math.MaxInt64 || f < math.MinInt64:
		return 0, ErrIntegerRange
	case f != math.Trunc(f):
		return 0, ErrNotInteger
	}
	return int64(f), nil
}

// Parse reads raw (a JSON number, or a query parameter's decimal text)
// and checks it against r: clamped into r when r.Clamp, else refused
// outside it. field is where the caller read it (r.Field when ""). Errors
// are *RangeError.
func (r *Range) Parse(field string, raw []byte) (int64, error) {
	if field == "" {
		field = r.Field
	}
	n, err := ParseInteger(raw)
	if err != nil {
		return 0, &RangeError{Field: field, Range: r, Text: Clip(string(bytes.TrimSpace(raw))), NotInteger: errors.Is(err, ErrNotInteger)}
	}
	return r.Check(field, n)
}

// Check checks n against r: clamped when r.Clamp, else refused outside it.
func (r *Range) Check(field string, n int64) (int64, error) {
	if field == "" {
		field = r.Field
	}
	if n >= r.Min && n <= r.Max {
		return n, nil
	}
	if r.Clamp {
		return min(max(n, r.Min), r.Max), nil
	}
	return 0, &RangeError{Field: field, Range: r, Text: strconv.FormatInt(n, 10)}
}

// Bound moves n into r, whatever r.Clamp says: how stored values (written
// by an older broker, or not checked) are read, so that no arithmetic on
// them can overflow.
func (r *Range) Bound(n int64) int64 { return min(max(n, r.Min), r.Max) }

// Micros converts seconds to microseconds, saturating at the int64 bounds
// instead of wrapping.
func Micros(seconds int64) int64 { return MulSat(seconds, 1_000_000) }

// MilliMicros converts milliseconds to microseconds, saturating.
func MilliMicros(ms int64) int64 { return MulSat(ms, 1_000) }

// MulSat is a*b, saturated at the int64 bounds.
func MulSat(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	c := a * b
	if c/b != a || (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		if (a < 0) == (b < 0) {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return c
}

// AddSat is a+b, saturated at the int64 bounds.
func AddSat(a, b int64) int64 {
	c := a + b
	switch {
	case b > 0 && c < a:
		return math.MaxInt64
	case b < 0 && c > a:
		return math.MinInt64
	}
	return c
}

// SubSat is a-b, saturated at the int64 bounds.
func SubSat(a, b int64) int64 {
	if b == math.MinInt64 {
		if a >= 0 {
			return math.MaxInt64
		}
		return a - b
	}
	return AddSat(a, -b)
}

// ParseDecimal reads a query parameter's decimal text (no sign but '-',
// no fraction, no exponent) and checks it against r like Parse.
func (r *Range) ParseDecimal(field, text string) (int64, error) {
	if field == "" {
		field = r.Field
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		ne, _ := err.(*strconv.NumError)
		return 0, &RangeError{Field: field, Range: r, Text: strconv.Quote(Clip(text)),
			NotInteger: ne == nil || !errors.Is(ne.Err, strconv.ErrRange)}
	}
	n, err = r.Check(field, n)
	if re, ok := err.(*RangeError); ok {
		re.Text = strconv.Quote(text) // a query's value is quoted, as it was sent
	}
	return n, err
}

// Int64 is the range of an input that must be an integer int64 holds,
// whose own range its reader checks further (KV's ttlSeconds, expect and
// limit are kvstore's to check).
func Int64(field string) *Range { return &Range{Field: field, Min: math.MinInt64, Max: math.MaxInt64} }
