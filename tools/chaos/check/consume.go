package check

import (
	"fmt"
	"sort"
	"time"
)

// Delivery is one message a pop delivered to a consumer, with the pop's
// call and return (ns on the workload's one monotonic clock).
type Delivery struct {
	Consumer         int
	TxnID, Partition string
	LeaseID          string
	Call, Return     int64
}

// Ack is one ack item a consumer sent and was answered success (Noop:
// the broker said the message was committed already), with the call's
// return.
type Ack struct {
	Consumer int
	TxnID    string
	Noop     bool
	Return   int64
}

// Lease is a partition lease as its consumer held it: from the return of
// the pop that granted it until the consumer sent the ack that ends it,
// or the lease's end (the pop's call plus the lease's seconds), whichever
// came first.
type Lease struct {
	Consumer      int
	ID, Partition string
	From, To      int64
}

// CheckConsume checks a consumer group's history: pushed are the
// transaction ids of the pushes answered stored, deliveries every message
// a pop answered (the drain after the faults healed included), acks every
// ack answered success, leases every lease a pop granted. Anomalies:
// "undelivered" (a pushed record never delivered), "redelivered" (a
// delivery by a pop called after an ack of the record was answered
// success), "acked-twice" (two acks of one record answered success, both
// settling it: neither a noop), "lease-overlap" (two leases on one
// partition held at once for more than skew).
func CheckConsume(pushed []string, deliveries []Delivery, acks []Ack, leases []Lease, skew time.Duration) []Anomaly {
	var out []Anomaly
	bad := func(kind, format string, args ...any) {
		out = append(out, Anomaly{kind, fmt.Sprintf(format, args...)})
	}
	delivered := map[string]bool{}
	for _, d := range deliveries {
		delivered[d.TxnID] = true
	}
	for _, id := range pushed {
		if !delivered[id] {
			bad(KindUndelivered, "record %s was pushed and answered stored, but never delivered", id)
		}
	}
	ackedAt := map[string]Ack{} // the first answered ack of each record
	for _, a := range acks {
		first, ok := ackedAt[a.TxnID]
		if !a.Noop && ok && !first.Noop {
			bad(KindAckedTwice, "record %s was settled twice: by consumer %d's ack (returned at %d) and consumer %d's (at %d)",
				a.TxnID, first.Consumer, first.Return, a.Consumer, a.Return)
		}
		if !ok || a.Return < first.Return {
			ackedAt[a.TxnID] = a
		}
	}
	for _, d := range deliveries {
		if a, ok := ackedAt[d.TxnID]; ok && d.Call > a.Return {
			bad(KindRedelivered, "record %s was delivered to consumer %d (lease %s, pop called at %d) after consumer %d's ack of it was answered (at %d)",
				d.TxnID, d.Consumer, d.LeaseID, d.Call, a.Consumer, a.Return)
		}
	}
	return append(out, leaseOverlaps(leases, skew.Nanoseconds())...)
}

// leaseOverlaps is a "lease-overlap" anomaly for each two leases of one
// partition held at once for more than skew ns.
func leaseOverlaps(leases []Lease, skew int64) []Anomaly {
	byPart := map[string][]Lease{}
	for _, l := range leases {
		byPart[l.Partition] = append(byPart[l.Partition], l)
	}
	var out []Anomaly
	for _, p := range sortedKeys(byPart) {
		ls := byPart[p]
		sort.Slice(ls, func(i, j int) bool { return ls[i].From < ls[j].From })
		for i, b := range ls {
			for _, a := range ls[:i] {
				if a.ID == b.ID {
					continue
				}
				if over := min(a.To, b.To) - b.From; over > skew {
					out = append(out, Anomaly{KindLeaseOverlap, fmt.Sprintf(
						"partition %s: consumer %d held lease %s over [%d,%d] and consumer %d lease %s over [%d,%d]: %v at once, more than the %v allowed",
						p, a.Consumer, a.ID, a.From, a.To, b.Consumer, b.ID, b.From, b.To, time.Duration(over), time.Duration(skew))})
				}
			}
		}
	}
	return out
}
