package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestScheduleBody checks that timer i is due -delay plus i/-timers of
// -spread after the start, as a delayMs from the call's sending, never
// negative.
func TestScheduleBody(t *testing.T) {
	o := options{queue: "q", timers: 4, delay: time.Second, spread: 2 * time.Second}
	start := time.Unix(100, 0)
	var body struct {
		Operations []struct {
			TimerKey string `json:"timerKey"`
			Txn      string `json:"txn"`
			DelayMs  int64  `json:"delayMs"`
		} `json:"operations"`
	}
	if err := json.Unmarshal(scheduleBody(o, "p-", "e30=", start, start.Add(1500*time.Millisecond), 0, 4), &body); err != nil {
		t.Fatal(err)
	}
	want := []int64{0, 0, 500, 1000} // due at 1 s, 1.5 s, 2 s, 2.5 s; sent at 1.5 s
	for i, op := range body.Operations {
		if op.DelayMs != want[i] || op.Txn != "p-"+string(rune('0'+i)) || !strings.HasPrefix(op.TimerKey, "p-k") {
			t.Errorf("op %d: %+v, want delayMs %d", i, op, want[i])
		}
	}
	if len(body.Operations) != 4 {
		t.Fatalf("%d operations, want 4", len(body.Operations))
	}
}

// TestCheckModes checks the new modes' flags are refused elsewhere and
// their bounds kept.
func TestCheckModes(t *testing.T) {
	base := options{conns: 1, batch: 1, partitions: 1, duration: time.Second, queue: "q", group: "g", prefill: 1,
		timers: 1, wait: time.Second, body: bodyJSON}
	for _, c := range []struct {
		mode, flag string
		edit       func(*options)
		ok         bool
	}{
		{"locks", "shared", nil, true},
		{"push", "shared", nil, false},
		{"timers", "duration", nil, false},
		{"timers", "batch", func(o *options) { o.batch = 257 }, false},
		{"timers", "batch", func(o *options) { o.batch = 256 }, true},
		{"timers", "timers", func(o *options) { o.timers = 0 }, false},
	} {
		o := base
		o.mode = c.mode
		if c.edit != nil {
			c.edit(&o)
		}
		if err := o.check(map[string]bool{c.flag: true}); (err == nil) != c.ok {
			t.Errorf("-mode %s -%s: %v, want ok %v", c.mode, c.flag, err, c.ok)
		}
	}
}
