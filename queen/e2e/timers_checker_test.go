package e2e

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// tmSchedule is one timer of one schedule call (a call of several timers
// gives one each, with the call's times). Schedules are sent once: Known
// is false when no answer came, and the timer may or may not exist, or
// come to exist later.
type tmSchedule struct {
	Client, Node               int
	Queue, Partition, Key, Txn string // Partition as the record will carry it
	DelayMs                    int64
	Payload                    string // the JSON the timer carries
	Invoke, Complete           time.Time
	Known                      bool
	Status, AnsTxn             string
	DeliverAt                  time.Time
	Err                        string
}

// tmCancel is one attempt of a cancel (DELETE, or an op cancel of POST
// /api/v1/timers). Known is false when no answer came: it may have
// removed the timer.
type tmCancel struct {
	Client, Node     int
	Queue, Key, Txn  string // Txn is the timer's, for the history (a cancel does not send it)
	Via              string // delete or post
	Attempt          int
	Invoke, Complete time.Time
	Known            bool
	Status, AnsTxn   string
	Err              string
}

// tmHistory is every client's record of a run.
type tmHistory struct {
	mu      sync.Mutex
	t0      time.Time
	scheds  []*tmSchedule
	cancels []*tmCancel
}

func (h *tmHistory) fmtSched(s *tmSchedule) string {
	out := fmt.Sprintf("schedule %s/%s key %s txn %s delay %dms c%d n%d [%s, %s]", s.Queue, s.Partition, s.Key, s.Txn, s.DelayMs, s.Client, s.Node, secs(h.t0, s.Invoke), secs(h.t0, s.Complete))
	if !s.Known {
		return out + " → unknown " + s.Err
	}
	return out + fmt.Sprintf(" → %s deliverAt %s", s.Status, secs(h.t0, s.DeliverAt))
}

func (h *tmHistory) fmtCancel(c *tmCancel) string {
	out := fmt.Sprintf("cancel (%s) %s key %s c%d n%d try %d [%s, %s]", c.Via, c.Queue, c.Key, c.Client, c.Node, c.Attempt, secs(h.t0, c.Invoke), secs(h.t0, c.Complete))
	if !c.Known {
		return out + " → unknown " + c.Err
	}
	return out + " → " + c.Status
}

type tmPart struct{ queue, partition string }

// check verifies a history and every record of the timers' partitions
// (read after the cluster healed and no timer was left pending) against
// the guarantees of timers: "A timer fires at most once, never after a
// cancel that reported removing it, and never before its delay."
//
// The facts it rests on, in real time on the one clock every process of
// this machine reads: a call's entry is stamped in [invoke, complete] of
// the attempt that applied it; a schedule's deliverAt is its stamp + the
// delay; a fire is one entry that pushes the record (ts = its stamp, at or
// before the record exists) and deletes the timer, so a fire and a cancel
// are ordered by the log, and whichever comes first wins.
//
// Checks, each a kind of violation:
//   - fired twice: a txn is in the log more than once.
//   - fired after cancel: a record of a timer a cancel answered cancelled.
//   - early: a record whose ts is before the deliverAt its schedule
//     answered, or before the schedule's invoke + delay − skew (a ts before
//     invoke + delay only is a note); a deliverAt answered that early.
//   - absent but pending: a cancel answered absent (and no other attempt
//     of it could have removed the timer), yet the timer fired only after
//     that answer, or never.
//   - never fired: a timer answered scheduled, that no cancel answered
//     cancelled nor may have removed, is not in the log.
//   - phantom, answer: a record no schedule made, or in another partition
//     or with other bytes than it; an answer of the wrong shape.
func (h *tmHistory) check(records map[tmPart][]fetchRecord, skew time.Duration) (v, notes violations, summary string) {
	v, notes = violations{}, violations{}
	byTxn := map[string]*tmSchedule{}
	for _, s := range h.scheds {
		if o := byTxn[s.Txn]; o != nil {
			v.add("answer", "the history schedules txn %s twice: %s and %s", s.Txn, h.fmtSched(o), h.fmtSched(s))
		}
		byTxn[s.Txn] = s
		if !s.Known {
			continue
		}
		if s.Status != "scheduled" || s.AnsTxn != s.Txn {
			v.add("answer", "a new timer answered %s txn %q: %s", s.Status, s.AnsTxn, h.fmtSched(s))
		}
		delay := time.Duration(s.DelayMs) * time.Millisecond
		switch {
		case s.DeliverAt.Before(s.Invoke.Add(delay - skew)):
			v.add("early", "deliverAt is %v before invoke + delay: %s", s.Invoke.Add(delay).Sub(s.DeliverAt), h.fmtSched(s))
		case s.DeliverAt.Before(s.Invoke.Add(delay)):
			notes.add("deliverAt before invoke + delay, within the skew bound", "%v: %s", s.Invoke.Add(delay).Sub(s.DeliverAt), h.fmtSched(s))
		case s.DeliverAt.After(s.Complete.Add(delay + skew)):
			v.add("answer", "deliverAt is %v after complete + delay: %s", s.DeliverAt.Sub(s.Complete.Add(delay)), h.fmtSched(s))
		}
	}
	cancelsOf := map[string][]*tmCancel{}
	for _, c := range h.cancels {
		cancelsOf[c.Txn] = append(cancelsOf[c.Txn], c)
		if !c.Known {
			continue
		}
		switch {
		case c.Status == "cancelled" && c.AnsTxn != c.Txn:
			v.add("answer", "a cancel of txn %s answered the txn of another timer, %q: %s", c.Txn, c.AnsTxn, h.fmtCancel(c))
		case c.Status != "cancelled" && c.Status != "absent":
			v.add("answer", "a cancel answered %q: %s", c.Status, h.fmtCancel(c))
		}
	}

	// The records.
	type fired struct {
		part tmPart
		rec  fetchRecord
		ts   time.Time
	}
	firedOf := map[string][]fired{}
	var lags []time.Duration
	var nRecords int
	for part, recs := range records {
		for _, r := range recs {
			if strings.HasPrefix(r.TransactionID, "seed-") {
				continue
			}
			nRecords++
			ts, err := parseStamp(r.Ts)
			if err != nil {
				v.add("answer", "%v offset %d has ts %q: %v", part, r.Offset, r.Ts, err)
				continue
			}
			firedOf[r.TransactionID] = append(firedOf[r.TransactionID], fired{part, r, ts})
			s := byTxn[r.TransactionID]
			if s == nil {
				v.add("phantom", "%s/%s offset %d holds txn %s, which no schedule made", part.queue, part.partition, r.Offset, r.TransactionID)
				continue
			}
			if part.queue != s.Queue || part.partition != s.Partition || string(r.Payload) != s.Payload {
				v.add("phantom", "%s/%s offset %d holds %s %s, scheduled as %s with %s", part.queue, part.partition, r.Offset, r.TransactionID, r.Payload, h.fmtSched(s), s.Payload)
			}
			delay := time.Duration(s.DelayMs) * time.Millisecond
			switch {
			case s.Known && ts.Before(s.DeliverAt):
				v.add("early", "fired at %s, %v before its deliverAt: %s", secs(h.t0, ts), s.DeliverAt.Sub(ts), h.fmtSched(s))
			case ts.Before(s.Invoke.Add(delay - skew)):
				v.add("early", "fired at %s, %v before invoke + delay: %s", secs(h.t0, ts), s.Invoke.Add(delay).Sub(ts), h.fmtSched(s))
			case ts.Before(s.Invoke.Add(delay)):
				notes.add("fired before invoke + delay, within the skew bound", "%v: %s", s.Invoke.Add(delay).Sub(ts), h.fmtSched(s))
			}
			if s.Known {
				lags = append(lags, ts.Sub(s.DeliverAt))
			}
		}
	}

	var nKnown, nUnknown, nCancelled, nAbsent, nCancelUnknown, nMustFire, nFired int
	txns := make([]string, 0, len(byTxn))
	for txn := range byTxn {
		txns = append(txns, txn)
	}
	slices.Sort(txns)
	for _, txn := range txns {
		s := byTxn[txn]
		fs := firedOf[txn]
		if len(fs) > 0 {
			nFired++
		}
		if len(fs) > 1 {
			var where []string
			for _, f := range fs {
				where = append(where, fmt.Sprintf("%s/%s offset %d ts %s", f.part.queue, f.part.partition, f.rec.Offset, secs(h.t0, f.ts)))
			}
			v.add("fired twice", "%s is in the log %d times (%s): %s", txn, len(fs), strings.Join(where, ", "), h.fmtSched(s))
		}
		if s.Known {
			nKnown++
		} else {
			nUnknown++
		}
		var cancelled *tmCancel
		mayHaveRemoved := false
		for _, c := range cancelsOf[txn] {
			switch {
			case !c.Known:
				nCancelUnknown++
				mayHaveRemoved = true
			case c.Status == "cancelled":
				nCancelled++
				cancelled, mayHaveRemoved = c, true
			default:
				nAbsent++
			}
		}
		if cancelled != nil && len(fs) > 0 {
			v.add("fired after cancel", "%s fired at %s (%s/%s offset %d), though %s; %s", txn, secs(h.t0, fs[0].ts), fs[0].part.queue, fs[0].part.partition, fs[0].rec.Offset, h.fmtCancel(cancelled), h.fmtSched(s))
		}
		// An answered absent: no other attempt could have removed the timer
		// before it, so the fire came first.
		for _, c := range cancelsOf[txn] {
			if !s.Known || !c.Known || c.Status != "absent" || c.Invoke.Before(s.Complete) {
				continue
			}
			if slices.ContainsFunc(cancelsOf[txn], func(o *tmCancel) bool {
				return o != c && (!o.Known || o.Status == "cancelled") && o.Invoke.Before(c.Complete)
			}) {
				continue
			}
			switch {
			case len(fs) == 0:
				v.add("absent but pending", "%s, yet the timer never fired: %s", h.fmtCancel(c), h.fmtSched(s))
			case !fs[0].ts.Before(c.Complete):
				v.add("absent but pending", "%s, yet the timer fired only at %s: %s", h.fmtCancel(c), secs(h.t0, fs[0].ts), h.fmtSched(s))
			}
		}
		if s.Known && !mayHaveRemoved {
			nMustFire++
			if len(fs) == 0 {
				v.add("never fired", "%s is not in the log", h.fmtSched(s))
			}
		}
	}

	var stamps []time.Time
	for _, fs := range firedOf {
		for _, f := range fs {
			stamps = append(stamps, f.ts)
		}
	}
	slices.SortFunc(stamps, time.Time.Compare)
	var gap time.Duration
	var gapAt time.Time
	for i := 1; i < len(stamps); i++ {
		if d := stamps[i].Sub(stamps[i-1]); d > gap {
			gap, gapAt = d, stamps[i-1]
		}
	}
	var unknown unknownTally
	for _, s := range h.scheds {
		if !s.Known {
			unknown.add(s.Err, s.Complete.Sub(s.Invoke))
		}
	}
	for _, c := range h.cancels {
		if !c.Known {
			unknown.add(c.Err, c.Complete.Sub(c.Invoke))
		}
	}
	slices.Sort(lags)
	pct := func(p float64) time.Duration {
		if len(lags) == 0 {
			return 0
		}
		return lags[int(p*float64(len(lags)-1))].Round(time.Millisecond)
	}
	summary = fmt.Sprintf("%d timers scheduled (%d answered, %d of unknown outcome), %d cancel attempts: %d answered cancelled, %d absent, %d unknown; "+
		"%d had to fire, %d fired, %d records; fire after deliverAt p50 %v p99 %v max %v; the longest pause between fires %v, from %s; calls of unknown outcome: %v",
		len(byTxn), nKnown, nUnknown, len(h.cancels), nCancelled, nAbsent, nCancelUnknown, nMustFire, nFired, nRecords, pct(0.5), pct(0.99), pct(1),
		gap.Round(time.Millisecond), secs(h.t0, gapAt), &unknown)
	return v, notes, summary
}

// mustFire lists, by partition, the txns of the timers that have to fire:
// answered scheduled, and no cancel answered cancelled or went unanswered.
func (h *tmHistory) mustFire() map[tmPart][]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	spared := map[string]bool{}
	for _, c := range h.cancels {
		if !c.Known || c.Status == "cancelled" {
			spared[c.Txn] = true
		}
	}
	out := map[tmPart][]string{}
	for _, s := range h.scheds {
		if s.Known && !spared[s.Txn] {
			k := tmPart{s.Queue, s.Partition}
			out[k] = append(out[k], s.Txn)
		}
	}
	return out
}
