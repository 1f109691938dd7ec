// Package family holds the mechanics every state-machine family of the
// broker (consume, locks, timers, traces, streams) shares, so that each
// family keeps only what is its own: its ops, its state and its reads.
//
// # What it owns
//
//   - The op and row codec (codec.go): Encoder writes the fields of an
//     encoding in order, Decoder reads them back strictly (raftlog/wire's
//     varints and length-prefixed strings, plus versions, flags, ids,
//     bounded counts and the check that nothing trails), failing with the
//     family's own ErrCorrupt; DecodeOp reads an op's version and tag and
//     leaves the op of each tag, and its check, to the family (OpCodec).
//   - The applier (applier.go): a family's raftlog.Applier and
//     raftlog.StorageGrower from its decoder, the family's state of an
//     Entry, and its ops, each of which applies itself (Op).
//   - The proposer's side (propose.go): a call refused by the family's
//     check wraps raftlog.ErrRejected and proposes nothing, an empty call
//     answers nothing (Call); any other is one op, whose answer the
//     family decodes (Propose).
//   - The scans apply and reads share (scan.go): the keys of an index up
//     to a limit (Keys: what is due, what expired), decoded rows (Rows)
//     and a page of them up to a limit (Page), a row that does not decode
//     ending the scan with its error.
//
// # Invariants
//
//   - One encoding per value: Decoder refuses padded varints, flags other
//     than 0 and 1, counts the bytes left cannot hold and trailing bytes,
//     so anything a family decodes encodes back to the same bytes (the
//     families' fuzz targets, familytest.FuzzOps, hold them to it).
//   - Nothing here chooses bytes: an Encoder appends exactly the fields it
//     is given, in the order given, so a family's stored and proposed bytes
//     are its own codec's.
//   - Apply decodes before it applies and refuses what does not decode or
//     check: a follower trusts nothing of an entry.
package family
