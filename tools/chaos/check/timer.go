package check

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Timer is one timer a workload scheduled, once, and perhaps cancelled.
// Times are µs since the epoch: Call on the workload's clock, DeliverAt on
// the broker's (the schedule's answer), Seen on the workload's (the return
// of the first read that showed the timer's record in its queue; 0: none
// did while the workload ran).
type Timer struct {
	Key, Txn  string
	Call      int64
	DelayMs   int64
	Scheduled bool // the schedule was answered scheduled (else no answer)
	DeliverAt int64
	// Cancel is what a cancel of it was answered: "" (none sent),
	// "cancelled", "absent" (it had fired, or was never scheduled), or
	// "unknown" (no answer).
	Cancel string
	Seen   int64
}

// Fired is one record of a timers' queue as a node serves it: the
// timer's txn and the record's stamp (µs, broker clock).
type Fired struct {
	Txn   string
	Stamp int64
}

// CheckTimers checks timers against what each node's queue holds
// (fired: node → records), read after the faults healed and every due
// timer had time to fire. Anomalies: "fired-twice" (a txn twice in a
// node's queue), "early" (a record stamped before the deliverAt its
// schedule answered, or seen before its call plus delay less skew, in
// real time), "cancelled-fired" (a timer whose cancel answered cancelled
// fired), "unfired" (a timer answered scheduled, not cancelled nor of
// unknown cancel, not fired), "diverged" (a timer fired on some nodes,
// not on others), "phantom" (a record of no timer). One finding on
// several nodes is one Anomaly naming them.
func CheckTimers(timers []Timer, fired map[string][]Fired, skew time.Duration) []Anomaly {
	found := map[[2]string][]string{} // kind, detail → nodes
	var order [][2]string
	note := func(node, kind, format string, args ...any) {
		k := [2]string{kind, fmt.Sprintf(format, args...)}
		if _, ok := found[k]; !ok {
			order = append(order, k)
		}
		found[k] = append(found[k], node)
	}
	byTxn := map[string]Timer{}
	for _, t := range timers {
		byTxn[t.Txn] = t
		if t.Seen != 0 && t.Seen < t.Call+t.DelayMs*1000-skew.Microseconds() {
			note("the workload", KindEarly, "timer %s (txn %s) seen fired %v after its schedule was called, its delay %d ms",
				t.Key, t.Txn, time.Duration(t.Seen-t.Call)*time.Microsecond, t.DelayMs)
		}
	}
	nodes := sortedKeys(fired)
	mustFire := func(t Timer) bool { return t.Scheduled && t.Cancel != "cancelled" && t.Cancel != "unknown" }
	seenOn := map[string][]string{} // txn → the nodes it fired on
	for _, n := range nodes {
		stamps := map[string][]int64{}
		for _, f := range fired[n] {
			stamps[f.Txn] = append(stamps[f.Txn], f.Stamp)
		}
		for _, txn := range sortedKeys(stamps) {
			seenOn[txn] = append(seenOn[txn], n)
			t, ok := byTxn[txn]
			switch {
			case !ok:
				note(n, KindPhantom, "record of txn %s, of no timer,", txn)
				continue
			case len(stamps[txn]) > 1:
				note(n, KindFiredTwice, "timer %s (txn %s) fired %d times", t.Key, txn, len(stamps[txn]))
			}
			if t.Cancel == "cancelled" {
				note(n, KindCancelledFired, "timer %s (txn %s) fired, though its cancel answered cancelled", t.Key, txn)
			}
			if s := stamps[txn][0]; t.DeliverAt != 0 && s < t.DeliverAt {
				note(n, KindEarly, "timer %s (txn %s) fired at stamp %d, before the deliverAt %d its schedule answered", t.Key, txn, s, t.DeliverAt)
			}
		}
		for _, t := range timers {
			if mustFire(t) && len(stamps[t.Txn]) == 0 {
				note(n, KindUnfired, "timer %s (txn %s, delay %d ms, cancel %q) answered scheduled never fired", t.Key, t.Txn, t.DelayMs, t.Cancel)
			}
		}
	}
	for _, t := range timers {
		if on := seenOn[t.Txn]; len(on) > 0 && len(on) < len(nodes) && !mustFire(t) {
			note(strings.Join(on, ", "), KindDiverged, "timer %s (txn %s) fired, on the others not,", t.Key, t.Txn)
		}
	}
	out := make([]Anomaly, 0, len(order))
	for _, k := range order {
		names := found[k]
		sort.Strings(names)
		out = append(out, Anomaly{k[0], k[1] + " on " + strings.Join(names, ", ")})
	}
	return out
}
