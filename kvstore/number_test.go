package kvstore

import "testing"

func TestAddNumbers(t *testing.T) {
	cases := []struct {
		cur, delta, lo, hi string
		want               string
		outcome            incrOutcome
	}{
		{"0.1", "0.2", "", "", "0.3", incrOK},
		{"", "1", "", "", "1", incrOK},
		{"", "-2.50", "", "", "-2.50", incrOK},
		{"1.10", "0.2", "", "", "1.30", incrOK},
		{"-0.5", "0.5", "", "", "0.0", incrOK},
		{"99999999999999999999999999", "1", "", "", "100000000000000000000000000", incrOK},
		{"0.000000001", "0.000000002", "", "", "0.000000003", incrOK},
		{"1e2", "1", "", "", "101", incrOK},
		{"2E+3", "1e3", "", "", "3E+3", incrOK},
		{"1", "1", "2", "2", "2", incrOK}, // bounds are inclusive
		{"1", "1", "", "1.99", "", incrLimit},
		{"1", "-1", "0.5", "", "", incrLimit},
		{`"1"`, "1", "", "", "", incrType},
		{"null", "1", "", "", "", incrType},
		{"[1]", "1", "", "", "", incrType},
		{"1", "1e999999999999", "", "", "", incrLimit},   // beyond apd's exponent range
		{"1e100000", "1e-100000", "", "", "", incrLimit}, // 200,001 digits: longer than a value may be
	}
	for _, c := range cases {
		got, outcome := addNumbers(c.cur, c.delta, c.lo, c.hi)
		if got != c.want || outcome != c.outcome {
			t.Errorf("addNumbers(%q, %q, [%q, %q]) = %q, %d; want %q, %d", c.cur, c.delta, c.lo, c.hi, got, outcome, c.want, c.outcome)
		}
	}
}
