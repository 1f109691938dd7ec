package check

import (
	"fmt"
	"sort"
	"time"
)

// Hold is one acquire of a lock answered acquired: its call and return
// (ns on the workload's one monotonic clock), the token it was answered,
// and the time the holder held it: From, the acquire's return, to To,
// when it sent its release, or the acquire's call plus the lock's TTL,
// whichever came first.
type Hold struct {
	Client                 int
	Lock                   string
	Token                  int64
	Call, Return, From, To int64
}

// GuardedWrite is a KV write a holder made with its permit's guard (a
// required check of the permit at its token) and was answered applied,
// at Version of the written key: the KV's versions order the writes as
// the log applied them.
type GuardedWrite struct {
	Lock    string
	Token   int64
	Version int64
}

// CheckLock checks a lock's history; holds of one lock with one token are
// one permit answered again (already: true), held from the first call and
// return until the earliest end (the earliest the permit may expire).
// Anomalies: "lock-overlap" (two holds of one lock with different tokens
// held at once for more than skew),
// "token-order" (an acquire called after another's return answered a
// token not higher), "guard" (two guarded writes of one lock applied in
// the opposite order of their tokens: the earlier token's write applied
// after the later token's holder had the permit, as its guard should
// have refused).
func CheckLock(holds []Hold, writes []GuardedWrite, skew time.Duration) []Anomaly {
	var out []Anomaly
	bad := func(kind, format string, args ...any) {
		out = append(out, Anomaly{kind, fmt.Sprintf(format, args...)})
	}
	byLock := map[string][]Hold{}
	for _, h := range mergeHolds(holds) {
		byLock[h.Lock] = append(byLock[h.Lock], h)
	}
	for _, name := range sortedKeys(byLock) {
		hs := byLock[name]
		sort.Slice(hs, func(i, j int) bool { return hs[i].Call < hs[j].Call })
		for i, b := range hs {
			for _, a := range hs[:i] {
				if b.Call > a.Return && b.Token <= a.Token {
					bad(KindTokenOrder, "lock %s: client %d acquired token %d over [%d,%d], after client %d acquired token %d over [%d,%d]",
						name, b.Client, b.Token, b.Call, b.Return, a.Client, a.Token, a.Call, a.Return)
				}
				first, second := a, b
				if b.From < a.From {
					first, second = b, a
				}
				if over := min(first.To, second.To) - second.From; over > skew.Nanoseconds() {
					bad(KindLockOverlap, "lock %s: client %d held token %d over [%d,%d] and client %d token %d over [%d,%d]: %v at once, more than the %v allowed",
						name, first.Client, first.Token, first.From, first.To, second.Client, second.Token, second.From, second.To, time.Duration(over), skew)
				}
			}
		}
	}
	byWrite := map[string][]GuardedWrite{}
	for _, w := range writes {
		byWrite[w.Lock] = append(byWrite[w.Lock], w)
	}
	for _, name := range sortedKeys(byWrite) {
		ws := byWrite[name]
		sort.Slice(ws, func(i, j int) bool { return ws[i].Version < ws[j].Version })
		for i := 1; i < len(ws); i++ {
			if ws[i].Token < ws[i-1].Token {
				bad(KindGuard, "lock %s: a write guarded by token %d applied at version %d, after one guarded by token %d at version %d",
					name, ws[i].Token, ws[i].Version, ws[i-1].Token, ws[i-1].Version)
			}
		}
	}
	return out
}

// mergeHolds merges the holds of one lock and token into one.
func mergeHolds(holds []Hold) []Hold {
	type key struct {
		lock  string
		token int64
	}
	at := map[key]int{}
	var out []Hold
	for _, h := range holds {
		i, ok := at[key{h.Lock, h.Token}]
		if !ok {
			at[key{h.Lock, h.Token}] = len(out)
			out = append(out, h)
			continue
		}
		m := &out[i]
		m.Call, m.Return, m.From, m.To = min(m.Call, h.Call), min(m.Return, h.Return), min(m.From, h.From), min(m.To, h.To)
	}
	return out
}
