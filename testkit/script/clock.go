package script

import (
	"math"
	"strconv"
	"testing"
	"time"
)

// Base is the stamp at=0 stands for: 2030-01-01T00:00:00Z in µs, the same
// every run, and after any wall clock an entry of the cluster's own may
// carry.
var Base = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()

// Time reads the case's argument key, seconds after Base, as a stamp in µs.
func Time(t testing.TB, c *Case, key string) int64 {
	t.Helper()
	s, err := strconv.ParseFloat(c.Args[key], 64)
	if err != nil {
		t.Fatalf("line %d: %s=%s: %v", c.Line, key, c.Args[key], err)
	}
	return Base + int64(math.Round(s*1e6))
}

// Secs renders a stamp as seconds after Base: "+10s", "+9.999999s".
func Secs(us int64) string {
	return "+" + strconv.FormatFloat(float64(us-Base)/1e6, 'f', -1, 64) + "s"
}

// Clock is a script's broker clock: each entry is proposed with the stamp
// Next gives and checked by Stamped, so at= is always the entry's stamp.
type Clock struct {
	// Last is the last entry's stamp.
	Last int64
}

// Next is the stamp the case's entry gets: at=, or one µs after the last.
// An at= that is not after the last stamp fails the test.
func (k *Clock) Next(t testing.TB, c *Case) int64 {
	t.Helper()
	if _, ok := c.Args["at"]; !ok {
		return k.Last + 1
	}
	us := Time(t, c, "at")
	if us <= k.Last {
		t.Fatalf("line %d: at=%s is not after the last stamp %s", c.Line, c.Args["at"], Secs(k.Last))
	}
	return us
}

// Stamped records the stamp an entry proposed at want got, failing the
// test when the two differ.
func (k *Clock) Stamped(t testing.TB, c *Case, want, got int64) {
	t.Helper()
	if got != want {
		t.Fatalf("line %d: the entry was stamped %s, not %s", c.Line, Secs(got), Secs(want))
	}
	k.Last = got
}
