package kvdoc

import (
	"encoding/json"
	"testing"
)

const (
	day0 = int64(946684800_000000) // 2000-01-01T00:00:00Z
	sec  = int64(1_000_000)
)

func TestKeys(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{CommittedKey("default", "a b/c"), "s3:default:a%20b%2Fc:committed"}, // SINK-CONFIG.md §3
		{StartKey("sink-2", "orders"), "s3:sink-2:orders:start"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}

// The commit pointer's tEnd is an ISO string with six fractional digits;
// readers take the 1.5 sink's integer of microseconds too.
func TestCommittedEnd(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want int64
		bad  bool
	}{
		{`"2000-01-01T00:00:11.000000Z"`, day0 + 11*sec, false},
		{`"2026-10-03T06:37:38.377855Z"`, 1791009458377855, false},
		{`"1970-01-01T00:00:00.000000Z"`, 0, false},
		{`1791009458377855`, 1791009458377855, false},
		{`0`, 0, false},
		{`"2026-10-03T06:37:38Z"`, 0, true},             // not six digits
		{`"2026-10-03T06:37:38.377855+00:00"`, 0, true}, // not Z
		{`"1791009458377855"`, 0, true},                 // an integer in a string
		{`1.5`, 0, true},
		{`true`, 0, true},
		{`null`, 0, true},
	} {
		got, err := committedEnd(json.RawMessage(c.raw))
		if c.bad {
			if err == nil {
				t.Errorf("committedEnd(%s) = %d, want an error", c.raw, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("committedEnd(%s) = %d, %v; want %d", c.raw, got, err, c.want)
		}
	}
}
