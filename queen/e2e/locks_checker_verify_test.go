package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"
)

// lkSample is a small history that keeps every guarantee, on lock lk:
// A takes token 5, pushes a/0 and releases; B takes 7, pushes b/0, renews
// to 9, pushes b/2 and releases; C's acquire and its transaction each have
// an attempt of unknown outcome before the answered retry (already, then
// duplicate); D takes 13 and lets it expire, and its late guard is
// refused. Times are milliseconds after t0.
func lkSample() (*lkHistory, map[string][]fetchRecord) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := &lkHistory{t0: t0}
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	add := func(c lkCall, from, to int) {
		c.Lock, c.Invoke, c.Complete = "lk", at(from), at(to)
		h.calls = append(h.calls, &c)
	}
	ok := func(c lkCall) lkCall { c.Known, c.OK = true, true; return c }
	no := func(c lkCall, why string) lkCall { c.Known, c.Reason = true, why; return c }

	add(ok(lkCall{Op: "acquire", Owner: "a", TTL: 2, Got: 5}), 0, 10)
	add(ok(lkCall{Op: "txn", Owner: "a", Token: 5, TxID: "a/0"}), 20, 30)
	add(ok(lkCall{Op: "release", Owner: "a", Token: 5}), 1000, 1010)

	add(ok(lkCall{Op: "acquire", Owner: "b", TTL: 2, Got: 7}), 1100, 1110)
	add(ok(lkCall{Op: "txn", Owner: "b", Token: 7, TxID: "b/0"}), 1120, 1130)
	add(ok(lkCall{Op: "renew", Owner: "b", TTL: 2, Token: 7, Got: 9}), 1140, 1150)
	add(ok(lkCall{Op: "txn", Owner: "b", Token: 9, TxID: "b/2"}), 1160, 1170)
	add(ok(lkCall{Op: "release", Owner: "b", Token: 9}), 2000, 2010)

	add(lkCall{Op: "acquire", Owner: "c", TTL: 10, Err: "503 timeout"}, 2100, 7100)
	add(ok(lkCall{Op: "acquire", Owner: "c", TTL: 10, Got: 11, Already: true, Attempt: 1}), 7150, 7160)
	add(lkCall{Op: "txn", Owner: "c", Token: 11, TxID: "c/0", Err: "EOF"}, 7200, 12200)
	add(no(lkCall{Op: "txn", Owner: "c", Token: 11, TxID: "c/0", Attempt: 1}, "duplicate"), 12250, 12260)
	add(ok(lkCall{Op: "release", Owner: "c", Token: 11}), 12300, 12310)

	add(ok(lkCall{Op: "acquire", Owner: "d", TTL: 1, Got: 13}), 13000, 13010)
	add(no(lkCall{Op: "txn", Owner: "d", Token: 13, TxID: "d/0", Intent: "expired"}, "kv_precondition"), 14200, 14210)
	add(no(lkCall{Op: "release", Owner: "d", Token: 13}, "lost"), 14300, 14310)

	recs := []fetchRecord{{TransactionID: "seed-lk", Payload: json.RawMessage(`{"seed":true}`)}}
	for _, r := range []struct {
		owner, tx string
		token     uint64
	}{{"a", "a/0", 5}, {"b", "b/0", 7}, {"b", "b/2", 9}, {"c", "c/0", 11}} {
		recs = append(recs, lkRecordOf("lk", r.owner, r.tx, r.token))
	}
	for i := range recs {
		recs[i].Offset = int64(i)
	}
	return h, map[string][]fetchRecord{"lk": recs}
}

func lkRecordOf(lock, owner, tx string, token uint64) fetchRecord {
	b, _ := json.Marshal(lkPayload{Lock: lock, Owner: owner, Token: token, TxID: tx})
	return fetchRecord{TransactionID: tx, Payload: b}
}

// lkFind returns the sample's call of op by owner (the n-th such).
func lkFind(h *lkHistory, op, owner string, n int) *lkCall {
	for _, c := range h.calls {
		if c.Op == op && c.Owner == owner {
			if n == 0 {
				return c
			}
			n--
		}
	}
	panic(fmt.Sprintf("no %s of %s", op, owner))
}

func lkMove(c *lkCall, from, to int) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.Invoke, c.Complete = t0.Add(time.Duration(from)*time.Millisecond), t0.Add(time.Duration(to)*time.Millisecond)
}

// TestLockCheckerCatchesBadHistories: the checker passes the sample and
// finds each violation planted in a copy of it, and tolerates what
// unknown outcomes allow.
func TestLockCheckerCatchesBadHistories(t *testing.T) {
	h, recs := lkSample()
	if v, notes, sum := h.check(recs, lkSkew); v.total() != 0 || notes.total() != 0 {
		t.Fatalf("the sample is a good history, yet: %v %v (%s)", v, notes, sum)
	}
	for _, tc := range []struct {
		name   string
		doctor func(h *lkHistory, recs map[string][]fetchRecord)
		want   string // the kind of violation ("" none)
		note   string // the kind of note expected
	}{
		{"B acquires while A holds", func(h *lkHistory, _ map[string][]fetchRecord) {
			lkMove(lkFind(h, "acquire", "b", 0), 500, 510)
		}, "holders overlap", ""},
		{"B acquires 40 ms before A's lifetime ends, within the bound", func(h *lkHistory, _ map[string][]fetchRecord) {
			lkMove(lkFind(h, "acquire", "b", 0), 950, 960)
		}, "", "holders overlap within the skew bound"},
		{"two acquires answered at once", func(h *lkHistory, _ map[string][]fetchRecord) {
			d := lkFind(h, "acquire", "d", 0)
			lkMove(d, 5, 12)
			d.TTL = 1
		}, "holders overlap", ""},
		{"a later holder gets a lower token", func(h *lkHistory, _ map[string][]fetchRecord) {
			lkFind(h, "acquire", "d", 0).Got = 4
		}, "token order", ""},
		{"a renew answers a lower token", func(h *lkHistory, _ map[string][]fetchRecord) {
			lkFind(h, "renew", "b", 0).Got = 6
		}, "token order", ""},
		{"two owners get one token", func(h *lkHistory, _ map[string][]fetchRecord) {
			lkFind(h, "acquire", "d", 0).Got = 11
		}, "token order", ""},
		{"the log commits a lower token after a higher", func(_ *lkHistory, recs map[string][]fetchRecord) {
			r := recs["lk"]
			r[2], r[3] = r[3], r[2]
		}, "token order", ""},
		{"a guard commits after its release was answered", func(h *lkHistory, recs map[string][]fetchRecord) {
			c := *lkFind(h, "txn", "a", 0)
			c.TxID, c.Intent = "a/3", "released"
			lkMove(&c, 1020, 1030)
			h.calls = append(h.calls, &c)
			r := recs["lk"]
			recs["lk"] = slices.Insert(r, 2, lkRecordOf("lk", "a", "a/3", 5))
		}, "stale commit", ""},
		{"a guard with the token a renew replaced commits", func(h *lkHistory, _ map[string][]fetchRecord) {
			lkMove(lkFind(h, "txn", "b", 0), 1155, 1158) // after the renew's answer, still before b/2
		}, "stale commit", ""},
		{"a guard commits after the lifetime", func(h *lkHistory, recs map[string][]fetchRecord) {
			d := lkFind(h, "txn", "d", 0)
			d.OK, d.Reason = true, ""
			recs["lk"] = append(recs["lk"], lkRecordOf("lk", "d", "d/0", 13))
		}, "stale commit", ""},
		{"a refused guard is in the log", func(_ *lkHistory, recs map[string][]fetchRecord) {
			recs["lk"] = append(recs["lk"], lkRecordOf("lk", "d", "d/0", 13))
		}, "commit outcome", ""},
		{"an answered commit is not in the log", func(_ *lkHistory, recs map[string][]fetchRecord) {
			recs["lk"] = slices.Delete(recs["lk"], 1, 2)
		}, "commit outcome", ""},
		{"a retry answered duplicate, but nothing is in the log", func(_ *lkHistory, recs map[string][]fetchRecord) {
			recs["lk"] = recs["lk"][:4]
		}, "commit outcome", ""},
		{"a record twice", func(_ *lkHistory, recs map[string][]fetchRecord) {
			r := recs["lk"]
			recs["lk"] = slices.Insert(r, 3, r[2])
		}, "commit outcome", ""},
		{"a record no transaction pushed", func(_ *lkHistory, recs map[string][]fetchRecord) {
			recs["lk"] = append(recs["lk"], lkRecordOf("lk", "z", "z/0", 20))
		}, "commit outcome", ""},
		{"a live guard refused", func(h *lkHistory, recs map[string][]fetchRecord) {
			b := lkFind(h, "txn", "b", 0)
			b.OK, b.Reason = false, "kv_precondition"
			recs["lk"] = slices.Delete(recs["lk"], 2, 3)
		}, "refused while live", ""},
		{"a live permit's release answered lost", func(h *lkHistory, _ map[string][]fetchRecord) {
			r := lkFind(h, "release", "b", 0)
			r.OK, r.Reason = false, "lost"
		}, "lost while live", ""},
		{"tolerated: a commit whose only attempt has no answer", func(h *lkHistory, _ map[string][]fetchRecord) {
			a := lkFind(h, "txn", "a", 0)
			a.Known, a.OK = false, false
		}, "", ""},
		{"tolerated: an unknown-outcome commit that did not apply", func(h *lkHistory, recs map[string][]fetchRecord) {
			a := lkFind(h, "txn", "a", 0)
			a.Known, a.OK = false, false
			recs["lk"] = slices.Delete(recs["lk"], 1, 2)
		}, "", ""},
		{"tolerated: a release lost after an attempt of unknown outcome", func(h *lkHistory, _ map[string][]fetchRecord) {
			r := *lkFind(h, "release", "b", 0)
			r.Known, r.OK = false, false
			h.calls = append(h.calls, &r)
			lkMove(&r, 1990, 1995)
			second := lkFind(h, "release", "b", 0)
			second.OK, second.Reason, second.Attempt = false, "lost", 1
		}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, recs := lkSample()
			tc.doctor(h, recs)
			for i := range recs["lk"] {
				recs["lk"][i].Offset = int64(i)
			}
			v, notes, _ := h.check(recs, lkSkew)
			v.wantVerdict(t, notes, tc.want, tc.note)
		})
	}
}
