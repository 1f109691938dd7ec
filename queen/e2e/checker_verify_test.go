package e2e

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"
)

// allDelivered reports whether some pop delivered each offset below hwm.
func (h *ckHistory) allDelivered(hwm map[string]int64) bool {
	got := map[string]map[int64]bool{}
	for _, p := range h.pops {
		if p.Code == 200 {
			for _, m := range p.Msgs {
				if got[m.Part] == nil {
					got[m.Part] = map[int64]bool{}
				}
				got[m.Part][m.Offset] = true
			}
		}
	}
	for part, end := range hwm {
		for off := int64(0); off < end; off++ {
			if !got[part][off] {
				return false
			}
		}
	}
	return true
}

type ckKey struct {
	part string
	off  int64
}

// ckLeaseOn is one lease on one partition, from a pop that answered 200.
type ckLeaseOn struct {
	pop *ckPop
	// end is a lower bound, in real time, of when the broker stops holding
	// the partition for this lease if no ack releases it (see check).
	end time.Time
	// ext is the extension that set end, if any.
	ext *ckExtend
	// released is the earliest invoke time of an ack attempt that may have
	// released the partition from this lease (answered leaseReleased, or
	// outcome unknown), or the zero time.
	released time.Time
}

// check verifies the histories against the guarantees of pop and ack:
// "No acked message lost, none acked twice, none delivered again after a
// successful ack. Leases are exclusive in real time. Order per partition,
// with no skips." And the ack's offset-commit semantics: a completed ack
// settles the earlier messages of its lease too, a nack releases its lease
// and is never skipped (what settles the message comes from a later
// delivery), no completed item past a nack of the same call succeeds, and
// a completed ack of a committed message is a noop, not a second
// settlement. Every bound is in real time as the clients saw it, on the
// one clock all processes of this machine share. It returns what it found
// by kind, and lines that sum the run up.
//
// Facts the checks rest on:
//   - An entry's stamp (the broker clock) is max(proposer's clock when it
//     proposed, previous stamp + 1 µs). The proposer is the node a client
//     called, which reads its clock after the call was made, so a call's
//     stamp is at or after its invoke time; and every clock read that went
//     into it happened before the entry applied, so it is at or before the
//     call's completion. Hence invoke ≤ stamp ≤ completion. (A long poll
//     proposes again after each wake; the entry that leased is one of
//     those. The nodes run with no QUEEN_RAFT_CLOCK_OFFSET_MS: a node
//     whose clock jumps ahead by more than the skew breaks exclusivity, and
//     this check reports it as an overlap.)
//   - Entries apply in one order; an answered call was applied; a call
//     with an unknown outcome (503, no answer) may or may not have been.
//   - A pop that leases partition p for L holds it until its stamp + L +
//     skew (QUEEN_RAFT_MAX_CLOCK_SKEW_MS) unless acks release it first
//     (the ack that settles its last pending message); a successful
//     extension by L moves that to the extension's stamp + L + skew.
func (h *ckHistory) check(hwm map[string]int64) (r violations, summary []string) {
	r = violations{}

	// Deliveries by message, and the transactionId at each offset.
	type delivered struct {
		pop *ckPop
		m   ckDelivery
	}
	deliveries := map[ckKey][]delivered{}
	txAt := map[ckKey]string{}
	offsetOf := map[string]ckKey{}
	var ok200, ok204, popUnknown, nMsgs, redelivered int
	for _, p := range h.pops {
		switch p.Code {
		case 200:
			ok200++
		case 204:
			ok204++
			continue
		default:
			popUnknown++
			continue
		}
		last := map[string]int64{}
		for _, m := range p.Msgs {
			k := ckKey{m.Part, m.Offset}
			nMsgs++
			if m.Attempt > 1 {
				redelivered++
			}
			if l, seen := last[m.Part]; seen && m.Offset <= l {
				r.add("order", "a pop delivered %s offset %d after offset %d: %s", m.Part, m.Offset, l, h.fmtPop(p))
			}
			last[m.Part] = m.Offset
			deliveries[k] = append(deliveries[k], delivered{p, m})
			if tx, seen := txAt[k]; seen && tx != m.TxID {
				r.add("log", "%s offset %d delivered as %s and as %s", m.Part, m.Offset, tx, m.TxID)
			}
			txAt[k] = m.TxID
			if o, seen := offsetOf[m.TxID]; seen && o != k {
				r.add("log", "transaction %s delivered at %v and at %v", m.TxID, o, k)
			}
			offsetOf[m.TxID] = k
		}
	}

	// Acknowledged pushes: where each landed.
	pushedAt := map[ckKey]string{}
	var pushCalls, pushAttempts, pushUnknown int
	ackedTx := map[string]ckKey{}
	for _, p := range h.pushes {
		pushAttempts++
		if p.Code != 201 {
			pushUnknown++
			continue
		}
		pushCalls++
		for i, a := range p.Answers {
			it := p.Items[i]
			k := ckKey{it.Partition, a.Offset}
			if a.Status != "queued" && a.Status != "duplicate" {
				r.add("push", "push of %s answered status %q", it.TransactionID, a.Status)
			}
			if o, seen := ackedTx[it.TransactionID]; seen && o != k {
				r.add("push", "transaction %s acknowledged at %v and at %v", it.TransactionID, o, k)
			}
			ackedTx[it.TransactionID] = k
			pushedAt[k] = it.TransactionID
		}
	}

	// Ack attempts by message: which settled it, which may have. An ack is
	// an offset commit: a completed ack of offset N under lease L settles
	// the messages L's pop delivered on that partition below N too (those
	// it had not settled yet); such an ack is an implicit ack of each.
	type acked struct {
		a    *ckAck
		item ckAckItem
		res  *ackResult // nil: outcome unknown
	}
	popOf := map[string]*ckPop{}
	for _, p := range h.pops {
		if p.Code == 200 {
			popOf[p.LeaseID] = p
		}
	}
	acksOf := map[ckKey][]acked{}
	implicitOf := map[ckKey][]acked{}
	var ackAttempts, ackUnknown, ackItems, ackOK, ackNoop, ackRefused, ackFailed, ackRetry int
	for _, a := range h.acks {
		ackAttempts++
		if !a.known() {
			ackUnknown++
		}
		nackAt := map[string]int64{} // per partition, the lowest offset a nack of the call took
		for i, it := range a.Items {
			k := ckKey{it.Part, it.Offset}
			x := acked{a: a, item: it}
			if a.known() {
				x.res = &a.Results[i]
				ackItems++
				switch {
				case !x.res.Success:
					ackRefused++
				case it.Status == "completed" && x.res.Noop:
					ackNoop++
				case it.Status == "completed":
					ackOK++
				case it.Status == "failed":
					ackFailed++
				default:
					ackRetry++
				}
				if x.res.DLQ {
					r.add("dlq", "with retryLimit 1000 a message went to the DLQ: %s", h.fmtAck(a))
				}
				if x.res.Success != (x.res.Error == nil) {
					r.add("ack", "an ack result's success and error disagree: %+v in %s", *x.res, h.fmtAck(a))
				}
				if x.res.Noop && (!x.res.Success || it.Status != "completed" || x.res.LeaseReleased) {
					r.add("ack", "noop on an ack that is not a successful completed one: %+v in %s", *x.res, h.fmtAck(a))
				}
				if x.res.Success && it.Status != "completed" {
					if f, ok := nackAt[it.Part]; !ok || it.Offset < f {
						nackAt[it.Part] = it.Offset
					}
					if !x.res.LeaseReleased {
						r.add("ack", "a nack did not release its lease: %s", h.fmtAck(a))
					}
				}
			}
			acksOf[k] = append(acksOf[k], x)
			if p := popOf[a.LeaseID]; p != nil && it.Status == "completed" && (x.res == nil || x.res.Success && !x.res.Noop) {
				for _, m := range p.Msgs {
					if m.Part == it.Part && m.Offset < it.Offset {
						implicitOf[ckKey{m.Part, m.Offset}] = append(implicitOf[ckKey{m.Part, m.Offset}], x)
					}
				}
			}
		}
		// A nack clamps the call's commit below it: no completed item at
		// or past it on its partition succeeds, in any order of the items.
		for i, it := range a.Items {
			if f, ok := nackAt[it.Part]; ok && a.known() && it.Status == "completed" && it.Offset >= f && a.Results[i].Success && !a.Results[i].Noop {
				r.add("completed past a nack", "%s offset %d committed in the call that nacked offset %d: %s", it.Part, it.Offset, f, h.fmtAck(a))
			}
		}
	}

	// 1. Nothing acknowledged is lost, and offsets have no gaps: every
	// offset below the high watermark was delivered, each acknowledged
	// push where its answer said, and nothing at or past the end.
	for k, tx := range pushedAt {
		if len(deliveries[k]) == 0 {
			r.add("lost", "acknowledged push %s at %s offset %d was never delivered", tx, k.part, k.off)
		} else if txAt[k] != tx {
			r.add("lost", "acknowledged push %s at %s offset %d, but that offset delivered %s", tx, k.part, k.off, txAt[k])
		}
	}
	for _, part := range slices.Sorted(maps.Keys(hwm)) {
		for off := int64(0); off < hwm[part]; off++ {
			if len(deliveries[ckKey{part, off}]) == 0 {
				r.add("gap", "%s offset %d (high watermark %d) was never delivered", part, off, hwm[part])
			}
		}
	}
	for k := range deliveries {
		if k.off >= hwm[k.part] {
			r.add("gap", "%s offset %d delivered, past the high watermark %d", k.part, k.off, hwm[k.part])
		}
	}

	// 2. Each message settled exactly once, and never delivered or acked
	// again after a successful ack was answered. A completed ack answered
	// noop settled nothing (the message was committed); any other
	// successful completed ack settled it, and only one may. A message
	// settled by no answered ack, explicit or implicit, must have one
	// whose outcome is unknown. settleBy is the earliest invoke of an ack
	// attempt that may have settled the message (answered success, or
	// unknown), for check 3; settled the earliest completion of one that
	// did.
	settleBy := map[ckKey]time.Time{}
	settled := map[ckKey]*ckAck{}
	keys := map[ckKey]bool{}
	for k := range acksOf {
		keys[k] = true
	}
	for k := range implicitOf {
		keys[k] = true
	}
	for k := range keys {
		var done *ckAck
		var maybe bool
		mark := func(x acked) {
			if s, ok := settleBy[k]; !ok || x.a.Invoke.Before(s) {
				settleBy[k] = x.a.Invoke
			}
			if x.res == nil {
				maybe = true
			} else if d := settled[k]; d == nil || x.a.Complete.Before(d.Complete) {
				settled[k] = x.a
			}
		}
		for _, x := range acksOf[k] {
			if x.item.Status != "completed" || x.res != nil && (!x.res.Success || x.res.Noop) {
				continue
			}
			mark(x)
			if x.res != nil && done != nil {
				r.add("acked twice", "%s offset %d: %s, then %s", k.part, k.off, h.fmtAck(done), h.fmtAck(x.a))
			} else if x.res != nil {
				done = x.a
			}
		}
		for _, x := range implicitOf[k] {
			mark(x)
		}
		first := settled[k]
		if first == nil {
			if !maybe && k.off < hwm[k.part] {
				r.add("never settled", "%s offset %d was never acked completed: %d attempts", k.part, k.off, len(acksOf[k]))
			}
			continue
		}
		for _, x := range acksOf[k] {
			if x.a == first || x.res == nil || !x.res.Success || x.res.Noop || !x.a.Invoke.After(first.Complete) {
				continue
			}
			r.add("acked after settled", "%s offset %d: %s after %s", k.part, k.off, h.fmtAck(x.a), h.fmtAck(first))
		}
		for _, d := range deliveries[k] {
			if d.pop.Invoke.After(first.Complete) {
				r.add("delivered after ack", "%s offset %d: %s after %s", k.part, k.off, h.fmtPop(d.pop), h.fmtAck(first))
			}
		}
	}
	for _, part := range slices.Sorted(maps.Keys(hwm)) {
		for off := int64(0); off < hwm[part]; off++ {
			if k := (ckKey{part, off}); len(deliveries[k]) > 0 && len(acksOf[k]) == 0 && len(implicitOf[k]) == 0 {
				r.add("never settled", "%s offset %d was delivered %d times and never acked", part, off, len(deliveries[k]))
			}
		}
	}

	// 2b. A nack is never skipped: after an answered nack (failed, retry)
	// of a message, what settles it is an ack under a lease whose pop
	// delivered it again, a pop that completed after the nack was invoked;
	// never the nacking lease itself nor one older.
	for k, list := range acksOf {
		for _, n := range list {
			if n.item.Status == "completed" || n.res == nil || !n.res.Success {
				continue
			}
			check := func(x acked, how string) {
				if x.res == nil || !x.res.Success || x.res.Noop || !x.a.Invoke.After(n.a.Complete) {
					return
				}
				p := popOf[x.a.LeaseID]
				if p == nil || !p.Complete.After(n.a.Invoke) {
					r.add("nack skipped", "%s offset %d nacked by %s, then settled %s by %s, under a lease that did not deliver it again", k.part, k.off, h.fmtAck(n.a), how, h.fmtAck(x.a))
				}
			}
			for _, x := range acksOf[k] {
				if x.item.Status == "completed" {
					check(x, "explicitly")
				}
			}
			for _, x := range implicitOf[k] {
				check(x, "by a later offset's commit")
			}
		}
	}

	// 3. Order with no skips: a pop delivers a partition from the group's
	// cursor on and passes only settled offsets. So each offset below a
	// pop's first one on a partition, and each between two it delivered,
	// was settled before the pop: an ack attempt that may have settled it
	// was invoked before the pop completed.
	for _, p := range h.pops {
		if p.Code != 200 {
			continue
		}
		got := map[string][]int64{}
		for _, m := range p.Msgs {
			got[m.Part] = append(got[m.Part], m.Offset)
		}
		for part, offs := range got {
			for off, j := int64(0), 0; off < offs[len(offs)-1]; off++ {
				if off == offs[j] {
					j++
					continue
				}
				s, ok := settleBy[ckKey{part, off}]
				if !ok || !s.Before(p.Complete) {
					when := "never"
					if ok {
						when = "first at " + h.at(s)
					}
					r.add("skip", "a pop passed %s offset %d, unsettled (settled %s): %s", part, off, when, h.fmtPop(p))
					break
				}
			}
		}
	}

	// 4. Delivery attempts count deliveries: two deliveries of a message
	// have different attempts, and one that completed before another was
	// invoked has the smaller.
	for k, ds := range deliveries {
		for i := range ds {
			if ds[i].m.Attempt < 1 {
				r.add("attempt", "%s offset %d delivered with deliveryAttempt %d", k.part, k.off, ds[i].m.Attempt)
			}
			for j := range ds {
				a, b := ds[i], ds[j]
				if i != j && (a.m.Attempt == b.m.Attempt && i < j || a.pop.Complete.Before(b.pop.Invoke) && a.m.Attempt >= b.m.Attempt) {
					r.add("attempt", "%s offset %d: %s then %s", k.part, k.off, h.fmtPop(a.pop), h.fmtPop(b.pop))
				}
			}
		}
	}

	// 5. Leases are exclusive in real time.
	//
	// For lease A on partition p, the broker holds p from A's stamp sA
	// until sA + L + skew (or a successful extension's stamp + L + skew),
	// unless an ack releases it earlier. A later pop B claims p only at a
	// stamp sB past that hold, or after the releasing ack's stamp. With
	// invoke ≤ stamp ≤ completion:
	//
	//	B completes at or after A.invoke + L + skew (A.end below), or an
	//	ack that may have released A was invoked before B completed
	//	(A.released < B.complete); and A.invoke < B.complete (sA < sB).
	//
	// Which of two leases came first is not known from real time when
	// their pops overlap, so a pair violates exclusivity when neither
	// order satisfies that. The skew margin is part of the bound: all
	// nodes share this machine's clock, so the broker must hold a lease
	// that much past its end; a violation that remains without it is a
	// true overlap of two leases in real time, reported as such.
	leases := map[string][]*ckLeaseOn{}
	byLease := map[string]map[string]*ckLeaseOn{}
	for _, p := range h.pops {
		if p.Code != 200 {
			continue
		}
		byLease[p.LeaseID] = map[string]*ckLeaseOn{}
		for _, part := range p.parts() {
			l := &ckLeaseOn{pop: p, end: p.Invoke.Add(p.Lease + ckSkew)}
			leases[part] = append(leases[part], l)
			byLease[p.LeaseID][part] = l
		}
	}
	for _, e := range h.exts {
		ls := byLease[e.LeaseID]
		// Count an extension only when it renewed every partition the
		// lease claimed: then it renewed this one. Leaving one out only
		// makes end earlier, which finds fewer violations.
		if !e.Success || e.Renewed != len(ls) {
			continue
		}
		for _, l := range ls {
			if end := e.Invoke.Add(time.Duration(e.Seconds)*time.Second + ckSkew); end.After(l.end) {
				l.end, l.ext = end, e
			}
		}
	}
	for _, a := range h.acks {
		for i, it := range a.Items {
			l := byLease[a.LeaseID][it.Part]
			if l == nil || a.known() && !a.Results[i].LeaseReleased {
				continue
			}
			if l.released.IsZero() || a.Invoke.Before(l.released) {
				l.released = a.Invoke
			}
		}
	}
	precedes := func(a, b *ckLeaseOn, skew time.Duration) bool {
		if !a.pop.Invoke.Before(b.pop.Complete) {
			return false
		}
		return !b.pop.Complete.Before(a.end.Add(skew-ckSkew)) || !a.released.IsZero() && a.released.Before(b.pop.Complete)
	}
	describe := func(l *ckLeaseOn) string {
		s := h.fmtPop(l.pop) + fmt.Sprintf(" held until ≥ %s", h.at(l.end))
		if l.ext != nil {
			s += fmt.Sprintf(" (extended at [%s, %s])", h.at(l.ext.Invoke), h.at(l.ext.Complete))
		}
		if !l.released.IsZero() {
			s += " released by an ack invoked at " + h.at(l.released)
		}
		return s
	}
	var nLeases int
	for part, ls := range leases {
		nLeases += len(ls)
		sort.Slice(ls, func(i, j int) bool { return ls[i].pop.Invoke.Before(ls[j].pop.Invoke) })
		for i, a := range ls {
			for _, b := range ls[i+1:] {
				if precedes(a, b, ckSkew) || precedes(b, a, ckSkew) {
					continue
				}
				kind := "leases overlap within the skew margin"
				if !precedes(a, b, 0) && !precedes(b, a, 0) {
					kind = "leases overlap in real time"
				}
				r.add(kind, "%s:\n\t%s\n\t%s", part, describe(a), describe(b))
			}
		}
	}

	// 6. Fencing: once a pop B that began after pop A completed has taken
	// partition p, no ack under A succeeds on p: B's stamp is past A's,
	// so A no longer held p, and an ack invoked after B completed applied
	// after B.
	for part, ls := range leases {
		for _, a := range ls {
			var after time.Time
			for _, b := range ls {
				if b != a && a.pop.Complete.Before(b.pop.Invoke) && (after.IsZero() || b.pop.Complete.Before(after)) {
					after = b.pop.Complete
				}
			}
			if after.IsZero() {
				continue
			}
			for _, x := range h.acks {
				if x.LeaseID != a.pop.LeaseID || !x.known() || !x.Invoke.After(after) {
					continue
				}
				for i, it := range x.Items {
					if it.Part == part && x.Results[i].Success && !x.Results[i].Noop {
						r.add("fencing", "an ack under a lease another pop took over succeeded on %s: %s; %s", part, h.fmtAck(x), describe(a))
					}
				}
			}
		}
	}

	var extOK, extAttempts int
	for _, e := range h.exts {
		extAttempts++
		if e.Success {
			extOK++
		}
	}
	var total int64
	for _, v := range hwm {
		total += v
	}
	summary = append(summary,
		fmt.Sprintf("pushes: %d attempts, %d answered 201 (%d acknowledged transactions), %d outcome unknown; %d messages in the log %v",
			pushAttempts, pushCalls, len(ackedTx), pushUnknown, total, hwm),
		fmt.Sprintf("pops: %d answered 200 (%d leases on partitions), %d answered 204, %d outcome unknown; %d deliveries, %d redeliveries (deliveryAttempt > 1)",
			ok200, nLeases, ok204, popUnknown, nMsgs, redelivered),
		fmt.Sprintf("acks: %d attempts, %d outcome unknown; %d items answered: %d completed, %d noop, %d failed, %d retry, %d refused; %d extensions (%d renewed); %d leases left to expire, %d acks sent late, %d offset commits",
			ackAttempts, ackUnknown, ackItems, ackOK, ackNoop, ackFailed, ackRetry, ackRefused, extAttempts, extOK, h.expired, h.slow, h.commits))
	return r, summary
}
