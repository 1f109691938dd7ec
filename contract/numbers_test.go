package contract

import (
	"errors"
	"math"
	"testing"
)

func TestParseInteger(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		err  error
	}{
		{"3", 3, nil}, {"-2", -2, nil}, {"3.0", 3, nil}, {"1e3", 1000, nil}, {" 7 ", 7, nil},
		{"9223372036854775807", math.MaxInt64, nil},
		{"2.5", 0, ErrNotInteger}, {`"3"`, 0, ErrNotInteger}, {"true", 0, ErrNotInteger}, {"", 0, ErrNotInteger},
		{"9223372036854775808", 0, ErrIntegerRange}, {"99999999999999999999", 0, ErrIntegerRange},
		{"1e400", 0, ErrIntegerRange}, {"-1e400", 0, ErrIntegerRange}, {"9.3e18", 0, ErrIntegerRange},
	}
	for _, c := range cases {
		got, err := ParseInteger([]byte(c.in))
		if got != c.want || !errors.Is(err, c.err) {
			t.Errorf("ParseInteger(%q) = %d, %v; want %d, %v", c.in, got, err, c.want, c.err)
		}
	}
}

func TestRange(t *testing.T) {
	r := &Range{Field: "leaseSeconds", Min: 1, Max: 604800, Unit: "s"}
	if n, err := r.Parse("", []byte("60")); n != 60 || err != nil {
		t.Fatalf("60: %d %v", n, err)
	}
	for in, want := range map[string]string{
		"0":                    "leaseSeconds 0 is outside 1..604800 s",
		"-5":                   "leaseSeconds -5 is outside 1..604800 s",
		"1e400":                "leaseSeconds 1e400 is outside 1..604800 s",
		"99999999999999999999": "leaseSeconds 99999999999999999999 is outside 1..604800 s",
		"2.5":                  "leaseSeconds 2.5 must be an integer in 1..604800 s",
	} {
		_, err := r.Parse("", []byte(in))
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", in, err, want)
		}
	}
	if _, err := r.ParseDecimal("", "99999999999999999999"); err == nil ||
		err.Error() != `leaseSeconds "99999999999999999999" is outside 1..604800 s` {
		t.Errorf("decimal: %v", err)
	}
	c := &Range{Field: "timeout", Min: 0, Max: 60000, Clamp: true}
	if n, err := c.Parse("", []byte("90000")); n != 60000 || err != nil {
		t.Fatalf("clamp: %d %v", n, err)
	}
	if _, err := c.Parse("", []byte("1e400")); err == nil {
		t.Fatal("1e400 clamped: beyond int64 must be refused")
	}
}

func TestSaturating(t *testing.T) {
	cases := []struct{ got, want int64 }{
		{Micros(math.MaxInt64), math.MaxInt64},
		{Micros(9223372036855), math.MaxInt64},
		{Micros(-math.MaxInt64), math.MinInt64},
		{Micros(3600), 3_600_000_000},
		{MilliMicros(math.MaxInt64 / 10), math.MaxInt64},
		{MulSat(-1, math.MinInt64), math.MaxInt64},
		{MulSat(math.MinInt64, -1), math.MaxInt64},
		{MulSat(math.MinInt64, 1), math.MinInt64},
		{AddSat(math.MaxInt64, 1), math.MaxInt64},
		{AddSat(math.MinInt64, -1), math.MinInt64},
		{SubSat(0, math.MinInt64), math.MaxInt64},
		{SubSat(-1, math.MinInt64), math.MaxInt64},
		{SubSat(-2, math.MaxInt64), math.MinInt64},
		{SubSat(5, 3), 2},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: %d, want %d", i, c.got, c.want)
		}
	}
}
