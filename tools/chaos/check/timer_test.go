package check

import (
	"strings"
	"testing"
	"time"
)

// goodTimers is a history CheckTimers passes on n1..n3: k1 fired after
// its delay, k2 was cancelled, k3's schedule got no answer and never
// landed, k4's cancel got no answer and it fired anyway, k5's cancel
// answered absent (it had fired).
func goodTimers() ([]Timer, map[string][]Fired) {
	timers := []Timer{
		{Key: "k1", Txn: "t1", Call: 1000, DelayMs: 2, Scheduled: true, DeliverAt: 3000, Seen: 3500},
		{Key: "k2", Txn: "t2", Call: 1000, DelayMs: 5, Scheduled: true, DeliverAt: 6000, Cancel: "cancelled"},
		{Key: "k3", Txn: "t3", Call: 1000, DelayMs: 5},
		{Key: "k4", Txn: "t4", Call: 1000, DelayMs: 1, Scheduled: true, DeliverAt: 2000, Cancel: "unknown"},
		{Key: "k5", Txn: "t5", Call: 1000, DelayMs: 1, Scheduled: true, DeliverAt: 2000, Cancel: "absent", Seen: 2100},
	}
	fired := map[string][]Fired{}
	for _, n := range []string{"n1", "n2", "n3"} {
		fired[n] = []Fired{{"t1", 3100}, {"t4", 2050}, {"t5", 2000}}
	}
	return timers, fired
}

func TestCheckTimers(t *testing.T) {
	const skew = 100 * time.Microsecond
	t.Run("good", func(t *testing.T) {
		ts, f := goodTimers()
		assertKinds(t, CheckTimers(ts, f, skew), nil)
	})
	for _, tt := range []struct {
		kind  string
		spoil func(ts []Timer, f map[string][]Fired)
	}{
		{KindFiredTwice, func(_ []Timer, f map[string][]Fired) {
			for _, n := range []string{"n1", "n2"} {
				f[n] = append(f[n], Fired{"t1", 3200})
			}
		}},
		{KindEarly + " by stamp", func(_ []Timer, f map[string][]Fired) { f["n2"][0].Stamp = 2999 }},
		{KindEarly + " in real time", func(ts []Timer, _ map[string][]Fired) { ts[0].Seen = 2800 }},
		{KindCancelledFired, func(_ []Timer, f map[string][]Fired) {
			for n := range f {
				f[n] = append(f[n], Fired{"t2", 6100})
			}
		}},
		{KindUnfired, func(_ []Timer, f map[string][]Fired) {
			for n := range f {
				f[n] = f[n][1:]
			}
		}},
		{KindDiverged, func(_ []Timer, f map[string][]Fired) { f["n3"] = append(f["n3"], Fired{"t3", 6100}) }},
		{KindPhantom, func(_ []Timer, f map[string][]Fired) { f["n1"] = append(f["n1"], Fired{"t9", 6100}) }},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			ts, f := goodTimers()
			tt.spoil(ts, f)
			got := CheckTimers(ts, f, skew)
			want := tt.kind
			if strings.HasPrefix(want, KindEarly) {
				want = KindEarly
			}
			assertKinds(t, got, []string{want})
			for _, a := range got {
				t.Log(a)
			}
		})
	}
}
