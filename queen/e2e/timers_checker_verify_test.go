package e2e

import (
	"slices"
	"testing"
	"time"
)

var tmT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func tmAt(ms int) time.Time { return tmT0.Add(time.Duration(ms) * time.Millisecond) }

// tmSample is a small history that keeps every guarantee, on queue q
// (times in milliseconds after t0): s1 fires after its delay; s2 is
// cancelled before it fires; s3 fires, then a cancel answers absent; s4
// and s5 have schedules of unknown outcome, and only s4 applied (and
// fired); s6's first cancel went unanswered, so it may never fire; s7
// fires at once and a racing cancel answers absent after it.
func tmSample() (*tmHistory, map[tmPart][]fetchRecord) {
	h := &tmHistory{t0: tmT0}
	sched := func(txn, part string, delay, from, to, deliverAt int, known bool) {
		s := &tmSchedule{Queue: "q", Partition: part, Key: "k/" + txn, Txn: txn, DelayMs: int64(delay), Payload: `{"txn":"` + txn + `"}`,
			Invoke: tmAt(from), Complete: tmAt(to), Known: known}
		if known {
			s.Status, s.AnsTxn, s.DeliverAt = "scheduled", txn, tmAt(deliverAt)
		}
		h.scheds = append(h.scheds, s)
	}
	cancel := func(txn string, attempt, from, to int, status string) {
		c := &tmCancel{Queue: "q", Key: "k/" + txn, Txn: txn, Via: "delete", Attempt: attempt, Invoke: tmAt(from), Complete: tmAt(to), Known: status != "", Status: status}
		if status == "cancelled" {
			c.AnsTxn = txn
		}
		h.cancels = append(h.cancels, c)
	}
	sched("s1", "Default", 500, 0, 10, 505, true)
	sched("s2", "Default", 1000, 20, 30, 1025, true)
	cancel("s2", 0, 300, 310, "cancelled")
	sched("s3", "p-1", 200, 40, 50, 245, true)
	cancel("s3", 0, 400, 410, "absent")
	sched("s4", "Default", 300, 60, 5060, 0, false)
	sched("s5", "Default", 0, 70, 5070, 0, false)
	sched("s6", "Default", 2000, 80, 90, 2085, true)
	cancel("s6", 0, 500, 5500, "")
	cancel("s6", 1, 5550, 5560, "absent")
	sched("s7", "Default", 0, 100, 110, 105, true)
	cancel("s7", 0, 105, 115, "absent")

	rec := func(txn string, ts int) fetchRecord {
		return fetchRecord{TransactionID: txn, Payload: []byte(`{"txn":"` + txn + `"}`), Ts: tmAt(ts).Format(time.RFC3339Nano)}
	}
	seed := fetchRecord{TransactionID: "seed-x", Payload: []byte(`{"seed":true}`), Ts: tmAt(-1000).Format(time.RFC3339Nano)}
	return h, map[tmPart][]fetchRecord{
		{"q", "Default"}: {seed, rec("s7", 108), rec("s4", 400), rec("s1", 560)},
		{"q", "p-1"}:     {seed, rec("s3", 300)},
	}
}

func tmFindRec(recs map[tmPart][]fetchRecord, txn string) (tmPart, int) {
	for p, rs := range recs {
		for i, r := range rs {
			if r.TransactionID == txn {
				return p, i
			}
		}
	}
	panic("no record of " + txn)
}

func tmFindSched(h *tmHistory, txn string) *tmSchedule {
	for _, s := range h.scheds {
		if s.Txn == txn {
			return s
		}
	}
	panic("no schedule of " + txn)
}

// TestTimerCheckerCatchesBadHistories: the checker passes the sample and
// finds each violation planted in a copy of it, and tolerates what
// unknown outcomes allow.
func TestTimerCheckerCatchesBadHistories(t *testing.T) {
	h, recs := tmSample()
	if v, notes, sum := h.check(recs, tmSkew); v.total() != 0 || notes.total() != 0 {
		t.Fatalf("the sample is a good history, yet: %v %v (%s)", v, notes, sum)
	}
	stamp := func(recs map[tmPart][]fetchRecord, txn string, ms int) {
		p, i := tmFindRec(recs, txn)
		recs[p][i].Ts = tmAt(ms).Format(time.RFC3339Nano)
	}
	// drop takes txn's record out of recs and returns it.
	drop := func(recs map[tmPart][]fetchRecord, txn string) fetchRecord {
		p, i := tmFindRec(recs, txn)
		r := recs[p][i]
		recs[p] = slices.Delete(recs[p], i, i+1)
		return r
	}
	// fire adds a fire of timer txn, with its payload, to partition
	// Default, stamped at ms.
	fire := func(recs map[tmPart][]fetchRecord, txn string, ms int) {
		p := tmPart{"q", "Default"}
		recs[p] = append(recs[p], fetchRecord{TransactionID: txn, Payload: []byte(`{"txn":"` + txn + `"}`), Ts: tmAt(ms).Format(time.RFC3339Nano)})
	}
	for _, tc := range []struct {
		name   string
		doctor func(h *tmHistory, recs map[tmPart][]fetchRecord)
		want   string
		note   string
	}{
		{"a timer fires twice", func(_ *tmHistory, recs map[tmPart][]fetchRecord) {
			p, i := tmFindRec(recs, "s1")
			recs[p] = append(recs[p], recs[p][i])
		}, "fired twice", ""},
		{"a timer fires twice, in two partitions", func(_ *tmHistory, recs map[tmPart][]fetchRecord) {
			p, i := tmFindRec(recs, "s1")
			recs[tmPart{"q", "p-1"}] = append(recs[tmPart{"q", "p-1"}], recs[p][i])
		}, "fired twice", ""},
		{"a cancelled timer fires", func(_ *tmHistory, recs map[tmPart][]fetchRecord) {
			fire(recs, "s2", 1100)
		}, "fired after cancel", ""},
		{"a fire before its deliverAt", func(_ *tmHistory, recs map[tmPart][]fetchRecord) {
			stamp(recs, "s1", 504)
		}, "early", ""},
		{"a fire of an unknown schedule before its delay", func(_ *tmHistory, recs map[tmPart][]fetchRecord) {
			stamp(recs, "s4", 150)
		}, "early", ""},
		{"a fire of an unknown schedule before its delay, within the bound", func(_ *tmHistory, recs map[tmPart][]fetchRecord) {
			stamp(recs, "s4", 300)
		}, "", "fired before invoke + delay, within the skew bound"},
		{"a deliverAt answered before the delay", func(h *tmHistory, _ map[tmPart][]fetchRecord) {
			tmFindSched(h, "s1").DeliverAt = tmAt(300)
		}, "early", ""},
		{"a cancel answers absent before the fire", func(_ *tmHistory, recs map[tmPart][]fetchRecord) {
			stamp(recs, "s3", 420)
		}, "absent but pending", ""},
		{"a cancel answers absent, and the timer never fires", func(_ *tmHistory, recs map[tmPart][]fetchRecord) {
			drop(recs, "s3")
		}, "absent but pending", ""},
		{"a timer never fires", func(_ *tmHistory, recs map[tmPart][]fetchRecord) {
			drop(recs, "s1")
		}, "never fired", ""},
		{"a record no schedule made", func(_ *tmHistory, recs map[tmPart][]fetchRecord) {
			p := tmPart{"q", "Default"}
			recs[p] = append(recs[p], fetchRecord{TransactionID: "zz", Payload: []byte(`{}`), Ts: tmAt(900).Format(time.RFC3339Nano)})
		}, "phantom", ""},
		{"a fire into another partition", func(_ *tmHistory, recs map[tmPart][]fetchRecord) {
			r := drop(recs, "s1")
			recs[tmPart{"q", "p-1"}] = append(recs[tmPart{"q", "p-1"}], r)
		}, "phantom", ""},
		{"a fire with other bytes", func(_ *tmHistory, recs map[tmPart][]fetchRecord) {
			p, i := tmFindRec(recs, "s1")
			recs[p][i].Payload = []byte(`{"txn":"s1","x":1}`)
		}, "phantom", ""},
		{"a cancel answers the txn of another timer", func(h *tmHistory, _ map[tmPart][]fetchRecord) {
			h.cancels[0].AnsTxn = "s9"
		}, "answer", ""},
		{"a new timer answered rescheduled", func(h *tmHistory, _ map[tmPart][]fetchRecord) {
			tmFindSched(h, "s1").Status = "rescheduled"
		}, "answer", ""},
		{"tolerated: a timer fires after a cancel of unknown outcome", func(_ *tmHistory, recs map[tmPart][]fetchRecord) {
			fire(recs, "s6", 2100)
		}, "", ""},
		{"tolerated: an unknown schedule that never applied", func(_ *tmHistory, recs map[tmPart][]fetchRecord) {
			drop(recs, "s4")
		}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, recs := tmSample()
			tc.doctor(h, recs)
			for _, rs := range recs {
				for i := range rs {
					rs[i].Offset = int64(i)
				}
			}
			v, notes, _ := h.check(recs, tmSkew)
			v.wantVerdict(t, notes, tc.want, tc.note)
		})
	}
}
