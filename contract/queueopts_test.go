package contract

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

func normalize(t *testing.T, patch string) (string, error) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(patch), &m); err != nil {
		t.Fatal(err)
	}
	b, err := NormalizeOptions(m)
	return string(b), err
}

func TestNormalizeOptions(t *testing.T) {
	got, err := normalize(t, `{"retryLimit":5.0,"leaseTime":1e2,"minPopWaitTime":99999,"x":[1, 2],"task":null,"namespace":"billing"}`)
	want := `{"leaseTime":100,"minPopWaitTime":60000,"namespace":"billing","retryLimit":5,"task":null,"x":[1, 2]}`
	if err != nil || got != want {
		t.Fatalf("got %s %v\nwant %s", got, err, want)
	}
	refused := map[string]string{
		`{"retryLimit":"3"}`:                                 "retryLimit must be an integer in 0..10000 retries",
		`{"retentionEnabled":1}`:                             "retentionEnabled must be a boolean",
		`{"namespace":7}`:                                    "namespace must be a string",
		`{"leaseTime":-1}`:                                   "leaseTime -1 is outside 0..604800 s",
		`{"retryLimit":-1}`:                                  "retryLimit -1 is outside 0..10000 retries",
		`{"dedupWindowSeconds":-1}`:                          "dedupWindowSeconds -1 is outside 0..315360000 s",
		`{"dedupWindowSeconds":9223372036854775807}`:         "dedupWindowSeconds 9223372036854775807 is outside 0..315360000 s",
		`{"dedupWindowSeconds":1e400}`:                       "dedupWindowSeconds 1e400 is outside 0..315360000 s",
		`{"dedupWindowSeconds":9223372036855}`:               "dedupWindowSeconds 9223372036855 is outside 0..315360000 s",
		`{"retentionSeconds":9223372036854775807}`:           "retentionSeconds 9223372036854775807 is outside 0..315360000 s",
		`{"completedRetentionSeconds":1e400}`:                "completedRetentionSeconds 1e400 is outside 0..315360000 s",
		`{"leaseTime":2.5}`:                                  "leaseTime 2.5 must be an integer in 0..604800 s",
		`{"retentionSinkHoldMaxSeconds":59}`:                 "retentionSinkHoldMaxSeconds 59 is outside 60..31536000 s",
		`{"retentionSinkHold":"a b"}`:                        `retentionSinkHold "a b" holds ' ' at byte 1, which retentionSinkHold names may not hold`,
		`{"namespace":"a/b"}`:                                `namespace "a/b" holds '/' at byte 1, which namespace names may not hold`,
		fmt.Sprintf(`{"task":%q}`, strings.Repeat("t", 257)): "task of 257 bytes is over 256",
	}
	for patch, msg := range refused {
		_, err := normalize(t, patch)
		if err == nil || !strings.HasPrefix(err.Error(), msg) {
			t.Errorf("%.80s: %v, want %s", patch, err, msg)
		}
	}
}

// TestEveryOptionIsBounded feeds the extremes of int64 and beyond to every
// integer option: configure refuses them (or clamps, where the contract
// clamps), and stored ones read as the option's bound, never wrapped.
func TestEveryOptionIsBounded(t *testing.T) {
	for _, opt := range QueueOptionTable {
		if opt.Kind != OptionInt {
			continue
		}
		for _, v := range []string{"9223372036854775807", "-9223372036854775808", "1e400", "-1e400", "9223372036855", "99999999999999999999"} {
			got, err := normalize(t, `{"`+opt.Field+`":`+v+`}`)
			n, perr := ParseInteger([]byte(v))
			var re *RangeError
			switch {
			case perr == nil && n >= opt.Range.Min && n <= opt.Range.Max:
				if want := fmt.Sprintf(`{"%s":%d}`, opt.Field, n); err != nil || got != want {
					t.Errorf("%s=%s: %s %v, want %s", opt.Field, v, got, err, want)
				}
			case perr == nil && opt.Range.Clamp:
				if want := fmt.Sprintf(`{"%s":%d}`, opt.Field, opt.Range.Bound(n)); err != nil || got != want {
					t.Errorf("%s=%s: %s %v, want %s", opt.Field, v, got, err, want)
				}
			case !errors.As(err, &re):
				t.Errorf("%s=%s: %s %v, want a RangeError", opt.Field, v, got, err)
			}
		}
		for _, v := range []int64{math.MaxInt64, math.MinInt64} {
			o := ParseQueueOptions([]byte(fmt.Sprintf(`{"%s":%d}`, opt.Field, v)))
			got := reflect.ValueOf(o).FieldByNameFunc(func(n string) bool { return strings.EqualFold(n, opt.Field) })
			if !got.IsValid() {
				continue // priority and ttl: no field reads them
			}
			want := opt.Range.Max
			if v < 0 {
				want = opt.Range.Min
			}
			if opt.Field == "leaseTime" && want == 0 {
				want = 300
			}
			if got.Int() != want {
				t.Errorf("stored %s=%d reads as %d, want the bound %d", opt.Field, v, got.Int(), want)
			}
			if u := opt.Range.Unit; (u == "s" || u == "ms") && (Micros(got.Int()) < 0 || Micros(got.Int()) > math.MaxInt64/2) {
				t.Errorf("%s=%d: µs %d are near the int64 bounds", opt.Field, v, Micros(got.Int()))
			}
		}
	}
}

func TestParseQueueOptions(t *testing.T) {
	def := ParseQueueOptions([]byte(`{"retryLimit":5}`))
	if def.LeaseTime != 300 || def.RetryLimit != 5 || def.DedupWindowSeconds != 3600 || !def.DeadLetterQueue ||
		def.RetentionSinkHoldMaxSeconds != 604800 {
		t.Fatalf("defaults: %+v", def)
	}
	if o := ParseQueueOptions([]byte(`{}`)); o.LeaseTime != PushCreatedLeaseTime {
		t.Fatalf("a push-created queue leases for %d s", o.LeaseTime)
	}
	if o := ParseQueueOptions([]byte(`{"leaseTime":"x","retentionEnabled":1,"namespace":5}`)); o.LeaseTime != 300 ||
		o.RetentionEnabled || o.Namespace != "" {
		t.Fatalf("wrong types read as defaults: %+v", o)
	}
	if o := ParseQueueOptions([]byte(`not json`)); o.LeaseTime != 300 || o.DedupWindowSeconds != 3600 {
		t.Fatalf("garbage: %+v", o)
	}
}

func TestWithDefaults(t *testing.T) {
	got, err := WithDefaults([]byte(`{"maxSize":7,"zz":true,"aa":1}`))
	if err != nil {
		t.Fatal(err)
	}
	s := string(got)
	if !strings.HasPrefix(s, `{"priority":0,"leaseTime":300,`) || !strings.HasSuffix(s, `"task":"","aa":1,"zz":true,"maxQueueSize":7}`) ||
		!strings.Contains(s, `"maxSize":7,`) || !json.Valid(got) {
		t.Fatalf("got %s", s)
	}
	if _, err := WithDefaults([]byte(`[1]`)); err == nil {
		t.Fatal("an array read as options")
	}
}

// BenchmarkParseQueueOptions: a configured queue's stored options, read
// as every push, pop and ack reads them.
func BenchmarkParseQueueOptions(b *testing.B) { benchParse(b, ParseQueueOptions) }

// BenchmarkParseQueueOptionsCold: the same, decoded each time (what every
// reader paid before the cache).
func BenchmarkParseQueueOptionsCold(b *testing.B) { benchParse(b, parseQueueOptions) }

func benchParse(b *testing.B, parse func([]byte) QueueOptions) {
	stored := []byte(`{"leaseTime":45,"retryLimit":5,"retryDelay":0,"deadLetterQueue":true,"namespace":"billing","task":"invoices","dedupWindowSeconds":600}`)
	b.ReportAllocs()
	for b.Loop() {
		if o := parse(stored); o.RetryLimit != 5 {
			b.Fatal(o)
		}
	}
}

// TestParseQueueOptionsKeepsNoAlias: the cached options of a value are
// those of its bytes, whatever the caller does with its slice after.
func TestParseQueueOptionsKeepsNoAlias(t *testing.T) {
	b := []byte(`{"retryLimit":7}`)
	if o := ParseQueueOptions(b); o.RetryLimit != 7 {
		t.Fatal(o)
	}
	copy(b, `{"retryLimit":8}`)
	if o := ParseQueueOptions(b); o.RetryLimit != 8 {
		t.Fatalf("the changed bytes read as the old ones: %+v", o)
	}
	if o := ParseQueueOptions([]byte(`{"retryLimit":7}`)); o.RetryLimit != 7 {
		t.Fatal(o)
	}
}
