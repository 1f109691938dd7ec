// Package locks is the broker's locks and semaphores (API.md §6) as a
// family of the replicated state machine: POST /api/v1/locks applies one
// call of acquire, renew, release and get operations (kind OpLocks), each
// turned into KV ops of the same entry through raftlog.Txn.Apply.
//
// # What it owns
//
// Nothing but the turning. A permit is one kvstore row in the namespace
// queen-locks, key "<name>#<slot>", value {"owner":…,"since":…}, with the
// permit's lifetime as its TTL: acquire is a putIfAbsent, renew a put with
// expect, release a delete with expect, get a getPrefix of "<name>#". The
// token is the row's version; the guard a holder carries into a
// transaction or a KV call is a required check of the row at the token.
//
// # Shape
//
// The family has the shape queen/internal/family gives every family: an
// op is a Call (ops.go), encoded with family.Encoder and read back with
// family.Decode and Check; Call.Apply applies it on the call's state of
// the entry (family.Op, through family.Applier, which Appliers registers
// under OpLocks); Locks.Do refuses what Check refuses before reading or
// proposing (family.Call), as apply checks again.
//
// # Invariants
//
//   - The op codec is strict (family.Decoder): a call that decodes passes
//     Check and encodes back to the same bytes, one that does not is
//     refused (FuzzDecodeCall holds it to that).
//   - One acquire wins: an acquire reads the lock's rows and takes the
//     lowest free slot below its limit in one entry, so two acquires of
//     one slot are ordered by the log and the second finds it taken.
//   - A later holder has a higher token: tokens are KV versions, which
//     one shard-wide counter hands out and never reuses, across deletes,
//     expiry, restarts and leader changes. A renew rewrites the row, so
//     it answers a new token and the old one stops passing the guard.
//   - A guarded transaction commits only while the token is the row's:
//     the guard is judged in the transaction's own entry.
//   - Lifetimes run on the broker clock (entry stamps), as every KV TTL.
//     A holder's own belief that it holds the permit ends sent-time +
//     lifetime on its clock; the row expires at the acquire's stamp +
//     lifetime, so two holders never overlap in real time while the
//     nodes' clocks agree within QUEEN_RAFT_MAX_CLOCK_SKEW_MS.
//   - The same owner re-acquiring gets the permit it holds (already:
//     true, the same token): a retry after a lost answer is safe.
//   - Apply is deterministic: it reads the op, the entry's stamp and the
//     rows; the owner a caller did not give is minted by the proposer.
//
// # Decisions the contract left open
//
//   - renew and release name the slot (0 when absent: a lock); a renew
//     with an owner that is not the row's is lost.
//   - "contended" is never answered: the slot search and the take are
//     one entry, so no acquire loses a race it could see.
//   - A call that would write nothing (gets, an acquire of a held lock,
//     a lost renew, a release of a row that was never there) is answered
//     from a linearizable read and proposes nothing: waiters polling a held
//     lock cost the log no entries. (A release of an expired row the
//     sweep has not deleted yet deletes it, so it is an entry.)
//   - A holder's since, renewedAt and expiresAt render as the KV renders
//     its rows' times (2026-09-22T10:15:30.1234+00:00): a permit is a row.
//
// # Usage
//
//	shard, _ := host.StartShard(id, appliers) // kvstore's, locks' and the others'
//	l := &locks.Locks{Shard: shard}
//	got, _ := l.Do(ctx, locks.Call{Tenant: t, Ops: []locks.Op{{Kind: locks.KindAcquire,
//		Name: "daily-report", Owner: "worker-1", Limit: 1, TTLSeconds: 30}}})
//	if *got[0].Acquired {
//		// carry got[0].Guard in the transaction's kv[]; renew before the TTL
//	}
package locks
