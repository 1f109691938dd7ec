package check

import (
	"fmt"
	"sort"
	"strings"
)

// Txn is one transaction a workload sent, retried with the same ids
// until answered. Effects names what it writes, each by a name the state
// shows it under (a record's partition and transaction id, a KV key).
// Committed: answered success, or rolled back as a duplicate (an earlier
// attempt of it committed); otherwise it was never answered committed,
// and may have committed or not.
type Txn struct {
	ID        string
	Effects   []string
	Committed bool
}

// CheckTxn checks transactions are all or nothing and exactly once:
// state maps a node's name to how often each effect shows on it, read
// after the faults healed and the nodes converged. Anomalies: "partial"
// (a transaction of which a node shows some effects, not all), "lost" (a
// committed transaction of which a node shows no effect), "duplicate"
// (an effect shown more than once on a node), "phantom" (an effect no
// transaction has), "diverged" (a transaction not answered committed
// that some nodes show and others do not). One finding on several nodes
// is one Anomaly naming them, in transaction order, then by effect.
//
// REQUIRES: no two transactions share an effect name.
func CheckTxn(txns []Txn, state map[string]map[string]int) []Anomaly {
	nodes := sortedKeys(state)
	var out []Anomaly
	on := func(kind, detail string, names []string) {
		if len(names) > 0 {
			out = append(out, Anomaly{kind, detail + " on " + strings.Join(names, ", ")})
		}
	}
	known := map[string]bool{}
	for _, t := range txns {
		var partial, lost, all []string
		for _, n := range nodes {
			seen := 0
			for _, e := range t.Effects {
				known[e] = true
				if state[n][e] > 0 {
					seen++
				}
			}
			switch {
			case seen > 0 && seen < len(t.Effects):
				partial = append(partial, n)
			case seen == 0 && t.Committed:
				lost = append(lost, n)
			case seen > 0:
				all = append(all, n)
			}
		}
		on(KindPartial, fmt.Sprintf("transaction %s: some of its effects %q, not all,", t.ID, t.Effects), partial)
		on(KindLost, fmt.Sprintf("committed transaction %s: none of its effects", t.ID), lost)
		if !t.Committed && len(partial) == 0 && len(all) > 0 && len(all) < len(nodes) {
			on(KindDiverged, fmt.Sprintf("transaction %s (not answered committed): all its effects, on the others none,", t.ID), all)
		}
	}
	var effects []string
	for _, n := range nodes {
		for e := range state[n] {
			effects = append(effects, e)
		}
	}
	sort.Strings(effects)
	for i, e := range effects {
		if i > 0 && effects[i-1] == e {
			continue
		}
		var dup, phantom []string
		for _, n := range nodes {
			switch c := state[n][e]; {
			case c > 0 && !known[e]:
				phantom = append(phantom, n)
			case c > 1:
				dup = append(dup, fmt.Sprintf("%s (%d times)", n, c))
			}
		}
		on(KindDuplicate, fmt.Sprintf("effect %q more than once", e), dup)
		on(KindPhantom, fmt.Sprintf("effect %q, of no transaction,", e), phantom)
	}
	return out
}
