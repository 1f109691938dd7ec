package check

import (
	"fmt"
	"sort"
	"strings"
)

// Anomaly is one violation a checker found.
type Anomaly struct{ Kind, Detail string }

func (a Anomaly) String() string { return a.Kind + ": " + a.Detail }

// The kinds of Anomaly the checkers report.
const (
	// CheckLog.
	KindLost      = "lost"      // an acked push in no log, or missing on a node
	KindMoved     = "moved"     // an acked push served at another offset than answered
	KindDuplicate = "duplicate" // one TxnID at two offsets of a partition
	KindGap       = "gap"       // a partition's offsets not contiguous from the first
	KindDiverged  = "diverged"  // two nodes (or one node twice) serve different records at one offset
	KindPhantom   = "phantom"   // a record whose TxnID no push sent
	KindCorrupt   = "corrupt"   // a record whose payload is not the pushed payload of its TxnID
	KindRefused   = "refused"   // a record of a TxnID whose every push was refused (507)

	// CheckKV.
	KindNonlinearizable = "nonlinearizable" // a key's history is no register's
	KindUndecided       = "undecided"       // the check of a key ran out of CheckKVTimeout
	KindInvalid         = "invalid"         // an op the checker cannot read (kind, times)

	// CheckTxn (and lost, duplicate, phantom, diverged).
	KindPartial = "partial" // a node shows some of a transaction's effects, not all

	// CheckConsume.
	KindUndelivered  = "undelivered"   // a record pushed and answered stored, never delivered
	KindRedelivered  = "redelivered"   // a record delivered by a pop called after its ack was answered success
	KindAckedTwice   = "acked-twice"   // a record settled by two acks
	KindLeaseOverlap = "lease-overlap" // two leases on one partition held at once, past the skew bound

	// CheckLock.
	KindLockOverlap = "lock-overlap" // two holders of one lock at once, past the skew bound
	KindTokenOrder  = "token-order"  // a later acquire answered a token not higher
	KindGuard       = "guard"        // a write guarded by an older token applied after a newer one's

	// CheckTimers (and phantom, diverged).
	KindFiredTwice     = "fired-twice"     // a timer's record twice in its queue
	KindEarly          = "early"           // a timer fired before its delay
	KindCancelledFired = "cancelled-fired" // a timer fired though its cancel answered cancelled
	KindUnfired        = "unfired"         // a timer answered scheduled, never cancelled, never fired

	// CheckCounter and CheckPutIfAbsent.
	KindCounter  = "counter"
	KindWinners  = "winners"
	KindLoserSaw = "loser-saw" // a lost putIfAbsent was told a value that is not the final one
)

// Summary counts anomalies by kind, kinds in name order:
// "no anomalies", or "3 anomalies: gap 1, lost 2".
func Summary(anomalies []Anomaly) string {
	if len(anomalies) == 0 {
		return "no anomalies"
	}
	n := map[string]int{}
	for _, a := range anomalies {
		n[a.Kind]++
	}
	kinds := make([]string, 0, len(n))
	for k := range n {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, n[k])
	}
	noun := "anomalies"
	if len(anomalies) == 1 {
		noun = "anomaly"
	}
	return fmt.Sprintf("%d %s: %s", len(anomalies), noun, strings.Join(parts, ", "))
}
