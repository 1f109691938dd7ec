package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// lkCall is one attempt of a lock operation or of a guarded transaction, as
// the client that made it saw it. A retry is a new attempt with the same
// body. Known is false when no answer came (a 503, a timeout, a lost
// connection): the attempt may or may not have applied, and may even
// apply after the client gave up on it.
type lkCall struct {
	Client, Node     int
	Op               string // acquire, renew, release or txn
	Lock, Owner      string // the owner is one per acquisition: retries of its acquire share it
	TTL              int    // acquire, renew: ttlSeconds
	Token            uint64 // renew, release: the token sent; txn: the guard's expect
	TxID             string // txn: the transactionId of its one push
	Intent           string // txn: "" when the client believes it holds the token, else why it expects a refusal
	Attempt          int
	Invoke, Complete time.Time
	Known            bool   // an answer came: what the attempt did is known
	OK               bool   // acquired, renewed, released, committed
	Already          bool   // acquire: the owner held the permit before the call
	Got              uint64 // acquire, renew: the token answered
	Reason           string // a refusal's reason: held, lost, kv_precondition, duplicate
	Err              string
}

// lkHistory is every client's record of a run.
type lkHistory struct {
	mu    sync.Mutex
	t0    time.Time
	calls []*lkCall
}

func (h *lkHistory) add(c *lkCall) {
	h.mu.Lock()
	h.calls = append(h.calls, c)
	h.mu.Unlock()
}

// committed counts the transactions answered committed.
func (h *lkHistory) committed() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.calls {
		if c.Op == "txn" && c.OK {
			n++
		}
	}
	return n
}

func (h *lkHistory) fmt(c *lkCall) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s c%d n%d try %d owner %s [%s, %s]", c.Op, c.Lock, c.Client, c.Node, c.Attempt, c.Owner, secs(h.t0, c.Invoke), secs(h.t0, c.Complete))
	switch c.Op {
	case "acquire":
		fmt.Fprintf(&b, " ttl %ds", c.TTL)
	case "renew":
		fmt.Fprintf(&b, " token %d ttl %ds", c.Token, c.TTL)
	case "release":
		fmt.Fprintf(&b, " token %d", c.Token)
	case "txn":
		fmt.Fprintf(&b, " %s guard %d", c.TxID, c.Token)
		if c.Intent != "" {
			fmt.Fprintf(&b, " (stale on purpose: %s)", c.Intent)
		}
	}
	switch {
	case !c.Known:
		fmt.Fprintf(&b, " → unknown %.100s", c.Err)
	case c.OK && c.Got != 0:
		fmt.Fprintf(&b, " → token %d", c.Got)
		if c.Already {
			b.WriteString(" (already)")
		}
	case c.OK:
		b.WriteString(" → ok")
	default:
		fmt.Fprintf(&b, " → refused %s", c.Reason)
	}
	return b.String()
}

// lkPayload is what a guarded transaction pushes.
type lkPayload struct {
	Lock  string `json:"lock"`
	Owner string `json:"owner"`
	Token uint64 `json:"token"`
	TxID  string `json:"tx"`
}

// lkToken is one token a lock answered (to an acquire or a renew), and
// what the history bounds of its life.
type lkToken struct {
	lock, owner string
	token       uint64
	from        *lkCall // the first answer that carried it
	// lower is at or before the stamp at which the permit's row took the
	// token: the invoke of the call that answered it, or for an answer
	// "already", the first invoke of an acquire by the owner.
	lower time.Time
	// believed is how long the holder may count on the token: lower + the
	// lifetime. The row expires at its stamp + the lifetime, no earlier.
	believed time.Time
	// deadBy is when the token is no longer the lock's at the latest: an
	// answered renew or release of it, an answered later token of the lock,
	// or its expiry (the stamp is at or before the first answer, so the
	// row expired by from.Complete + lifetime; + skew for the bound).
	deadBy  time.Time
	deadWhy string
	// handed is the first invoke of a renew or release of the token, of
	// any outcome: from then on the holder no longer counts on it.
	handed time.Time
}

type lkKey struct {
	lock  string
	token uint64
}

// check verifies a history and the records the guarded transactions left
// (by lock, in log order) against the guarantees of locks: "One acquire
// wins, a later holder has a higher token, and a transaction guarded by a
// lock commits only while the token is still the lock's."
//
// The facts it rests on, all in real time on the one clock every process
// of this machine reads:
//   - An entry's stamp is the clock of the node that prepared it, read after
//     the call arrived, and it applied before the call was answered: a
//     call's stamp lies in [invoke, complete]. An attempt of unknown outcome
//     may apply at any time after its invoke.
//   - The entries apply in one order, and a permit's row versions (its
//     tokens) increase in that order, never reused.
//   - A row acquired or renewed at stamp s with lifetime L lives until s + L
//     unless renewed or released: its holder may count on it from the
//     answer until invoke + L (for an answer "already", the owner's first
//     acquire invoke + L), and no longer.
//
// Checks, each a kind of violation:
//   - holders overlap: two owners counted on one lock at once for longer
//     than skew (any overlap within skew is a note: the bound allows it,
//     though one clock means none should happen).
//   - token order: a grant answered before another was invoked has the
//     lower token; a renew answers a higher token than it renewed; two
//     owners never get one token; in a lock's log, no committed record
//     carries a lower token than a record before it.
//   - stale commit: a transaction committed (in the log, or answered so)
//     though every attempt of it was invoked after its token was dead.
//   - refused while live, lost while live: a guard, renew or release of a
//     token refused before the token could have ended.
//   - commit outcome: a record twice, a committed answer with no record, a
//     record of a transaction every attempt of which was refused, a record
//     that no transaction of the history pushed or that disagrees with it.
//
// It returns the violations, the notes, and a summary of the history.
func (h *lkHistory) check(records map[string][]fetchRecord, skew time.Duration) (v, notes violations, summary string) {
	v, notes = violations{}, violations{}
	calls := slices.Clone(h.calls)
	slices.SortStableFunc(calls, func(a, b *lkCall) int { return a.Invoke.Compare(b.Invoke) })

	firstAcquire := map[string]time.Time{} // owner → first acquire invoke
	firstRelease := map[string]time.Time{} // owner → first release invoke
	for _, c := range calls {
		if c.Op == "acquire" {
			if _, ok := firstAcquire[c.Owner]; !ok {
				firstAcquire[c.Owner] = c.Invoke
			}
		}
		if c.Op == "release" {
			if _, ok := firstRelease[c.Owner]; !ok {
				firstRelease[c.Owner] = c.Invoke
			}
		}
	}
	lowerOf := func(c *lkCall) time.Time {
		if c.Op == "acquire" && c.Already {
			return firstAcquire[c.Owner]
		}
		return c.Invoke
	}

	// Tokens and grants.
	tokens := map[lkKey]*lkToken{}
	byLock := map[string][]*lkToken{}
	var grants []*lkCall
	for _, c := range calls {
		if !c.Known || !c.OK || (c.Op != "acquire" && c.Op != "renew") {
			continue
		}
		if c.Got == 0 {
			v.add("answer", "a grant without a token: %s", h.fmt(c))
			continue
		}
		if c.Op == "renew" {
			if c.Got <= c.Token {
				v.add("token order", "a renew answered token %d for token %d: %s", c.Got, c.Token, h.fmt(c))
			}
			if tokens[lkKey{c.Lock, c.Token}] == nil {
				v.add("answer", "a renew of a token no grant answered: %s", h.fmt(c))
			}
		}
		grants = append(grants, c)
		k := lkKey{c.Lock, c.Got}
		lower := lowerOf(c)
		if tk := tokens[k]; tk != nil {
			if tk.owner != c.Owner {
				v.add("token order", "two owners got token %d of %s: %s and %s", c.Got, c.Lock, h.fmt(tk.from), h.fmt(c))
				continue
			}
			if lower.Before(tk.lower) {
				tk.lower, tk.believed = lower, lower.Add(time.Duration(c.TTL)*time.Second)
			}
			if end := c.Complete.Add(time.Duration(c.TTL)*time.Second + skew); end.Before(tk.deadBy) {
				tk.deadBy = end // the row took the token before this answer too
			}
			continue
		}
		tk := &lkToken{lock: c.Lock, owner: c.Owner, token: c.Got, from: c, lower: lower, believed: lower.Add(time.Duration(c.TTL) * time.Second)}
		tk.deadBy, tk.deadWhy = c.Complete.Add(time.Duration(c.TTL)*time.Second+skew), "its lifetime ended (first answer + ttl + skew)"
		tokens[k] = tk
		byLock[c.Lock] = append(byLock[c.Lock], tk)
	}
	dies := func(tk *lkToken, at time.Time, why string) {
		if at.Before(tk.deadBy) {
			tk.deadBy, tk.deadWhy = at, why
		}
	}
	for _, c := range calls {
		if c.Op != "renew" && c.Op != "release" {
			continue
		}
		tk := tokens[lkKey{c.Lock, c.Token}]
		if tk == nil {
			continue
		}
		if tk.handed.IsZero() || c.Invoke.Before(tk.handed) {
			tk.handed = c.Invoke
		}
		if c.Known && c.OK {
			dies(tk, c.Complete, c.Op+" answered: "+h.fmt(c))
		}
	}
	for _, ts := range byLock {
		for _, a := range ts {
			for _, b := range ts {
				if b.token > a.token {
					dies(a, b.from.Complete, "a later token answered: "+h.fmt(b.from))
				}
			}
		}
	}
	// laterInvoked is the first invoke of a grant of a higher token of the
	// lock: a refusal after it is no violation of this check (if the token
	// ended early, the overlap check reports it).
	laterInvoked := func(tk *lkToken) time.Time {
		var at time.Time
		for _, b := range byLock[tk.lock] {
			if b.token > tk.token && (at.IsZero() || b.lower.Before(at)) {
				at = b.lower
			}
		}
		return at
	}
	liveUntil := func(tk *lkToken, before time.Time) time.Time {
		live := tk.believed
		if !before.IsZero() && before.Before(live) {
			live = before
		}
		if l := laterInvoked(tk); !l.IsZero() && l.Before(live) {
			live = l
		}
		return live
	}

	// Renews and releases refused while the token was live.
	for _, c := range calls {
		if (c.Op != "renew" && c.Op != "release") || !c.Known || c.OK {
			continue
		}
		tk := tokens[lkKey{c.Lock, c.Token}]
		if tk == nil {
			continue
		}
		var before time.Time // the first invoke of another renew or release of the token that may have applied first
		for _, o := range calls {
			if o != c && (o.Op == "renew" || o.Op == "release") && o.Lock == c.Lock && o.Token == c.Token && o.Invoke.Before(c.Complete) {
				before = o.Invoke
				break
			}
		}
		if c.Complete.Before(liveUntil(tk, before)) {
			v.add("lost while live", "%s, yet token %d was the lock's until at least %s (granted by %s)", h.fmt(c), c.Token, secs(h.t0, liveUntil(tk, before)), h.fmt(tk.from))
		}
	}

	// Guarded transactions: outcome against the log, and commits of stale
	// tokens.
	type txn struct {
		attempts []*lkCall
		recs     []fetchRecord
	}
	txns := map[string]*txn{}
	var txOrder []string
	for _, c := range calls {
		if c.Op != "txn" {
			continue
		}
		x := txns[c.TxID]
		if x == nil {
			x = &txn{}
			txns[c.TxID] = x
			txOrder = append(txOrder, c.TxID)
		}
		x.attempts = append(x.attempts, c)
	}
	var nRecords int
	for lock, recs := range records {
		var top *lkPayload
		for _, r := range recs {
			if strings.HasPrefix(r.TransactionID, "seed-") {
				continue
			}
			nRecords++
			var p lkPayload
			if err := json.Unmarshal(r.Payload, &p); err != nil {
				v.add("commit outcome", "%s offset %d holds %s: %v", lock, r.Offset, r.Payload, err)
				continue
			}
			x := txns[r.TransactionID]
			if x == nil {
				v.add("commit outcome", "%s offset %d holds %s, which no transaction of the history pushed", lock, r.Offset, r.Payload)
				continue
			}
			x.recs = append(x.recs, r)
			a := x.attempts[0]
			if p.Lock != lock || a.Lock != lock || p.Token != a.Token || p.Owner != a.Owner || p.TxID != r.TransactionID {
				v.add("commit outcome", "%s offset %d holds %s, pushed by %s", lock, r.Offset, r.Payload, h.fmt(a))
			}
			if top != nil && p.Token < top.Token {
				v.add("token order", "%s offset %d commits token %d after a record of token %d (%s then %s)", lock, r.Offset, p.Token, top.Token, top.TxID, p.TxID)
			}
			if top == nil || p.Token > top.Token {
				top = &p
			}
		}
	}
	var nTxns, nCommitted, nRefused, nUnknownTx int
	intents := map[string][2]int{} // intent → committed, not
	for _, id := range txOrder {
		x := txns[id]
		nTxns++
		first := x.attempts[0]
		var ok, unknown bool
		for _, a := range x.attempts {
			switch {
			case !a.Known:
				unknown = true
			case a.OK:
				ok = true
			case a.Reason == "duplicate":
				if !ok && !unknown {
					v.add("answer", "the first answered attempt of %s says its push is a duplicate: %s", id, h.fmt(a))
				}
			case a.Reason != "kv_precondition":
				v.add("answer", "a guarded transaction refused for %q: %s", a.Reason, h.fmt(a))
			}
		}
		switch {
		case len(x.recs) > 1:
			v.add("commit outcome", "%s is in the log %d times", id, len(x.recs))
		case ok && len(x.recs) == 0:
			v.add("commit outcome", "%s was answered committed but is not in the log: %s", id, h.fmt(first))
		case len(x.recs) == 0 && slices.ContainsFunc(x.attempts, func(a *lkCall) bool { return a.Reason == "duplicate" }):
			v.add("commit outcome", "a retry of %s was answered pushed already, but it is not in the log: %s", id, h.fmt(first))
		case !ok && !unknown && len(x.recs) == 1 && !slices.ContainsFunc(x.attempts, func(a *lkCall) bool { return a.Reason == "duplicate" }):
			v.add("commit outcome", "every attempt of %s was refused, yet it is in the log at offset %d: %s", id, x.recs[0].Offset, h.fmt(first))
		}
		committed := ok || len(x.recs) > 0
		if committed {
			nCommitted++
		} else if unknown {
			nUnknownTx++
		} else {
			nRefused++
		}
		if first.Intent != "" {
			n := intents[first.Intent]
			if committed {
				n[0]++
			} else {
				n[1]++
			}
			intents[first.Intent] = n
		}
		tk := tokens[lkKey{first.Lock, first.Token}]
		if tk == nil {
			if committed {
				v.add("stale commit", "%s committed with token %d, which no grant answered: %s", id, first.Token, h.fmt(first))
			}
			continue
		}
		if committed && first.Invoke.After(tk.deadBy) {
			v.add("stale commit", "%s committed though its token %d was dead by %s (%s); its first attempt: %s", id, first.Token, secs(h.t0, tk.deadBy), tk.deadWhy, h.fmt(first))
		}
		for _, a := range x.attempts {
			if a.Known && !a.OK && a.Reason == "kv_precondition" && a.Complete.Before(liveUntil(tk, tk.handed)) {
				v.add("refused while live", "%s, yet token %d was the lock's until at least %s (granted by %s)", h.fmt(a), a.Token, secs(h.t0, liveUntil(tk, tk.handed)), h.fmt(tk.from))
			}
		}
	}

	// Holders: no two owners count on one lock at once. A token's span is
	// from its answer until believed, cut at the owner's first release.
	type span struct {
		tk         *lkToken
		start, end time.Time
	}
	var nSpans int
	var maxOverlap time.Duration
	for lock, ts := range byLock {
		var spans []span
		for _, tk := range ts {
			s := span{tk, tk.from.Complete, tk.believed}
			if r, ok := firstRelease[tk.owner]; ok && r.Before(s.end) {
				s.end = r
			}
			if s.end.After(s.start) {
				spans = append(spans, s)
			}
		}
		nSpans += len(spans)
		slices.SortFunc(spans, func(a, b span) int { return a.start.Compare(b.start) })
		for i, a := range spans {
			for _, b := range spans[i+1:] {
				if !b.start.Before(a.end) {
					break
				}
				if a.tk.owner == b.tk.owner {
					continue
				}
				end := a.end
				if b.end.Before(end) {
					end = b.end
				}
				ov := end.Sub(b.start)
				maxOverlap = max(maxOverlap, ov)
				kind, to := "holders overlap", v
				if ov <= skew {
					kind, to = "holders overlap within the skew bound", notes
				}
				to.add(kind, "%s: %v in real time:\n\t%s counted on until %s\n\t%s counted on until %s",
					lock, ov, h.fmt(a.tk.from), secs(h.t0, a.end), h.fmt(b.tk.from), secs(h.t0, b.end))
			}
		}
	}

	// Grants in real-time order have increasing tokens.
	for i, x := range grants {
		for _, y := range grants[i+1:] {
			for _, p := range [][2]*lkCall{{x, y}, {y, x}} {
				a, b := p[0], p[1]
				if a.Lock != b.Lock || !a.Complete.Before(lowerOf(b)) {
					continue
				}
				if a.Got < b.Got || a.Got == b.Got && a.Owner == b.Owner && b.Op == "acquire" && b.Already {
					continue
				}
				v.add("token order", "%s was answered before %s was sent, with a token not below it", h.fmt(a), h.fmt(b))
			}
		}
	}

	var acq, held, renews, releases int
	var unknown unknownTally
	for _, c := range calls {
		if !c.Known {
			unknown.add(c.Err, c.Complete.Sub(c.Invoke))
		}
		switch {
		case c.Op == "acquire":
			acq++
			if c.Known && !c.OK {
				held++
			}
		case c.Op == "renew" && c.Known && c.OK:
			renews++
		case c.Op == "release" && c.Known && c.OK:
			releases++
		}
	}
	var in []string
	for k, n := range intents {
		in = append(in, fmt.Sprintf("%s %d refused/%d committed", k, n[1], n[0]))
	}
	slices.Sort(in)
	summary = fmt.Sprintf("%d calls (of unknown outcome: %v): %d acquire attempts (%d answered held); %d tokens granted on %d locks, %d renews, %d releases answered; "+
		"%d transactions: %d committed, %d refused, %d unknown and not in the log; %d records; stale on purpose: %s; greatest overlap of two holders %v",
		len(calls), &unknown, acq, held, len(tokens), len(byLock), renews, releases, nTxns, nCommitted, nRefused, nUnknownTx, nRecords, strings.Join(in, ", "), maxOverlap)
	return v, notes, summary
}
