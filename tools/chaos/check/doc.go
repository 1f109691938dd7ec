// Package check holds the history checkers of the fault campaign: pure
// functions over what a workload recorded while faults were injected
// (pushes and their answers, KV ops with their times) and over what the
// nodes serve once the faults have healed. They start no process and talk
// to nothing; each returns the Anomalies it found, none for a good
// history, and Summary counts them by kind.
//
// # The invariants
//
// CheckLog, the queue log: every acked push is in every node's log, at the
// offset it was answered (a duplicate answer carries the original's
// offset); a TxnID is at one offset of its partition only; a partition's
// offsets are contiguous from its first; all nodes serve the same record
// at an offset; every record was pushed, with the payload pushed. An
// unacked push may be in the log or not, but at most once; a refused push
// (every attempt answered 507 storage_full: a definite refusal) is in no
// log.
//
//	lost       an acked push in no log, or missing on a node
//	moved      an acked push served at another offset than answered
//	duplicate  one TxnID at two offsets of a partition
//	gap        a partition's offsets not contiguous from the first
//	diverged   two nodes (or one node twice) serve different records at one offset
//	phantom    a record whose TxnID no push sent
//	corrupt    a record whose payload is not the pushed payload of its TxnID
//	refused    a record of a TxnID whose every push was refused
//
// A finding on several nodes is one Anomaly naming them all, so a bug of
// the replicated state machine shows once and a node's own loss shows as
// that node's.
//
// CheckKV, the KV store: each key's history is linearizable as a register,
// initially absent (porcupine, the Knossos algorithm). A put that got no
// answer may take effect at any time after its call, or never, so it is
// given an infinite return; a get that got no answer tells nothing and is
// dropped; a refused op (507 storage_full) did not happen and is dropped
// too, so a get that reads a refused put's value is nonlinearizable.
// Kinds: nonlinearizable, undecided (the key's check ran out of
// CheckKVTimeout), invalid (an op the checker cannot read).
//
// CheckCounter: answered incrs return distinct values; the final value
// counts every answered incr and at most the unknown ones besides.
// CheckPutIfAbsent: exactly one attempt wins (or none is known to, and one
// of the unknown may have) and the final value is the winner's.
// CheckLosersSaw: each lost attempt was told the final value (loser-saw).
// CheckSame: every node read the same final value (diverged).
//
// CheckTxn, transactions: on every node each transaction's effects all
// present once or all absent, all present for a committed one. Kinds:
// partial, lost, duplicate, phantom, diverged.
//
// CheckConsume, a consumer group: every record answered stored delivered,
// none delivered by a pop called after its ack was answered, none settled
// twice, no two leases of a partition held at once past a skew bound.
// Kinds: undelivered, redelivered, acked-twice, lease-overlap.
//
// CheckLock, locks: no two holders at once past a skew bound, tokens
// rising from one holder to the next, guarded writes applied in token
// order. Kinds: lock-overlap, token-order, guard.
//
// CheckTimers, timers: each fired at most once, not before its delay (by
// its answered deliverAt, and in real time within a skew bound), never
// after a cancel answered cancelled, every one answered scheduled and not
// cancelled fired on every node. Kinds: fired-twice, early,
// cancelled-fired, unfired, diverged, phantom.
//
// # Usage
//
//	var as []check.Anomaly
//	as = append(as, check.CheckLog(pushes, map[string][]check.Record{
//		"n1": logOf(n1), "n2": logOf(n2), "n3": logOf(n3),
//	})...)
//	as = append(as, check.CheckKV(kvOps)...)
//	as = append(as, check.CheckCounter(incrValues, incrUnknown, finalRead)...)
//	if len(as) > 0 {
//		t.Errorf("%s", check.Summary(as)) // "2 anomalies: lost 1, moved 1"
//		for _, a := range as {
//			t.Log(a)
//		}
//	}
package check
