// Package lake reads and checks the S3 lake of one Queen queue: what the
// operator tool queen-lake runs, and what end-to-end tests in other
// modules call directly.
//
// # What it owns
//
//   - List: the queue's committed windows, from their manifests under
//     <prefix>/_queen/tenant=<t>/queue=<q>/windows/, and WriteList to print
//     them (k, tStart, tEnd, records, bytes, objects, lost ranges, a total).
//   - Verify: every check below, into a Report of Problems (each naming its
//     Check) and Notes; the error is kept for a run that could not be made
//     (bad Config, a listing that fails, a broker that does not answer).
//   - Store: the two reads the checks need (List, Get), over S3 by
//     NewS3Store: s3store for Get, the SDK's ListObjectsV2 for List.
//
// It only reads: it writes nothing to the bucket and, with a broker, uses
// its read API alone (POST /api/v1/partitions/changed and /api/v1/fetch),
// which takes no lease and moves no cursor.
//
// # The checks of Verify
//
// Lake alone:
//
//   - manifest: every key under windows/ is a manifest key of the queue, it
//     decodes (lakeformat.DecodeManifest, which also checks the manifest's
//     own sums), and its k, tenant and queue are its key's.
//   - object: every object a manifest names has the data key of the
//     window, format and layout (lakeformat's Keys.Parse rebuilds it, so
//     dt= and hour= are checked too); exists; has the manifest's size and
//     sha256; decodes (JSONL by the manifest's codec, Parquet with its
//     footer's tenant and queue) to exactly the manifest's record count;
//     every record is stamped in [tStart, tEnd); records are strictly
//     sorted by partition then offset; a per-partition object holds its
//     partition only, from firstOffset to lastOffset. The manifest's
//     partitions, minTs and maxTs match the records; a merged window has
//     one object.
//   - sequence: windows are k = 1..n with no gap. overlap: tStart(k) >=
//     tEnd(k-1); a gap in time is fine (the sink skips empty stretches).
//   - duplicate: no (partition, offset) in two windows. offsets: within a
//     partition, offsets rise from one window to the next.
//   - lost: no lost range covers a record the lake holds or another lost
//     range.
//   - orphan: every data key under <prefix>/tenant=<t>/queue=<q>/ is named
//     by a manifest. Keys are deterministic, so an upload a crash cut short
//     and the next owner rewrote is the same, named key; an orphan is a
//     stray key. Data keys of windows past the last manifest are a commit
//     in flight: a note.
//
// With a broker, over every partition it lists (all pages) and every
// record it holds (fetch, paged by offset), stamps rising with offsets:
//
//   - missing: a broker record stamped in [first tStart, last tEnd) that
//     the lake lacks, or stamped before the first window but at or after
//     the sink's start point (its start document in the broker's KV:
//     the sink owed it). Records stamped before both are a note: a sink
//     started with start=latest never read them.
//   - mismatch: the lake's record at an offset differs from the broker's
//     in ts, transactionId or payload. Payloads compare as the JSONL line
//     renders them, so JSONL is compared by exact text (line breaks as
//     spaces, empty as null); a Parquet payload may also be JSON-equal
//     (equal once compacted).
//   - extra: a lake record the broker never held: at or above the broker's
//     log start but not in its log, or in a partition it does not list.
//     One below the log start is retention, a note.
//   - lost: an offset below the broker's log start that the lake should
//     hold (between two offsets the lake accounts for, by a record or a
//     lost range, or anywhere below the log start once the broker's first
//     record is stamped before the last tEnd) must be in the lake or in a
//     manifest's lost range.
//
// Problems are reported in runs where they come in runs (a range of
// offsets, the records of an object), and at most Config.MaxProblems are
// kept.
//
// # Usage
//
//	r, err := lake.Verify(ctx, lake.Config{Endpoint: "http://127.0.0.1:9000", Bucket: "lake",
//		PathStyle: true, AccessKey: ak, SecretKey: sk, Queue: "orders", Broker: "http://127.0.0.1:6632"})
//	if err != nil { ... } // could not run
//	if !r.OK() { r.WriteTo(os.Stderr) }
package lake
