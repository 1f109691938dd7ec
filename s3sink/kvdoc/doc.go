// Package kvdoc names the S3 sink's KV documents and reads the ones the
// rest of the broker needs, so that a document has one owner even where
// another package reads it: the broker's retention hold reads a queue's
// commit pointer, the lake's verifier its start point (SINK-CONFIG.md §3).
//
// # Invariants
//
//   - Every document lives in Namespace of the queue's tenant, under
//     "s3:<sink>:<queue>:<what>", the queue percent-encoded as an object
//     key's names are (lakeformat.EscapeName): Key builds every one.
//   - DecodeCommitted is the one reader of a commit pointer; the engine
//     that writes it reads it back through it too.
//
// It imports lakeformat and nothing else of ours, so that a tool can name
// the sink's rows without the engine.
//
// # Usage
//
//	row := kv.Get(ctx, tenant, kvdoc.Namespace, kvdoc.CommittedKey("default", "orders"))
//	k, tEnd, legacy, err := kvdoc.DecodeCommitted(row.Value)
package kvdoc
