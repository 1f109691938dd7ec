// Package wire is the codec of the official 2.x client's binary bodies:
// the binary push (QPB1, POST /api/v1/push with Content-Type
// application/x-queen-push), the binary transaction (QTB1, POST
// /api/v1/transaction) and the framed pop answer (QPF1, a pop with
// frames=true). The layouts are the ones queen-mq 2.6.0 documents in
// queen/http/push_binary.py and queen/http/pop_frames.py; this is our
// own code for them, fuzzed both ways (fuzz_test.go).
//
// # What it owns
//
//   - Decoder.Push and Decoder.Transaction: a body to its groups of
//     messages, with every length checked against what is left of the
//     body and every zstd frame bounded by the decoder's byte budget.
//     They check structure only; the caller checks names, transaction ids
//     and that each payload is one JSON document (httpd does).
//   - AppendPush and AppendTransaction: the same bodies the client sends,
//     for our load tool (queen-bench) and tests.
//   - AppendPop and DecodePop: the framed pop answer.
//
// # The layouts (all integers little-endian)
//
//	push:   "QPB1" | u8 flags | [u32 raw_len, flag 1] | body
//	body:   u32 groups | per group: u16 len, queue | u16 len, partition | u32 n
//	        | n x ([u16 len, transactionId, flag 4] | u32 len, payload)
//	flag 8: per group: u16 len, queue | u16 len, partition | u32 n | u32 z_len | z
//	z:      one zstd frame of n frames: u32 body_len | u8 0 | u8[16] message id
//	        | u16 len, transactionId | payload
//	txn:    "QTB1" | u8 flags | u32 len, head (JSON) | u32 groups | groups as flag 8
//	pop:    "QPF1" | u8 1 | u32 len, JSON object | u16 queue | u16 leaseId
//	        | u16 consumerGroup | u32 claims | claims (see AppendPop)
//
// Push flags: 1 the body is one zstd frame of raw_len bytes, 2 answer the
// counts only, 4 every item carries its transaction id ("" = the broker
// mints one), 8 the groups are framed as above, each message with an id
// the client minted (a version-7 UUID). Transaction flags: 2 the counts.
// An unknown flag bit is refused: it would change how the rest reads.
//
// # Invariants
//
//   - A decoded payload, queue, partition or transaction id is exactly
//     its bytes on the wire (after zstd): nothing is trimmed or replaced.
//   - No input makes a decoder allocate more than a small multiple of
//     the decoder's budget plus the body's length: counts are checked
//     against the bytes left before anything is sized by them, and every
//     decompressed byte counts against the budget.
//   - AppendPush then Push (and AppendPop then DecodePop) give back what
//     went in (fuzz_test.go).
//
// # Usage
//
//	d := wire.NewDecoder(32 << 20)
//	p, err := d.Push(body) // *wire.Error names the place; ErrTooLarge past the budget
//	for _, g := range p.Groups {
//		for _, m := range g.Messages {
//			_ = m.Payload // check it, then store it as it is
//		}
//	}
package wire
