// Package lakeformat turns the records of a Queen queue into the objects of
// its S3 lake, byte for byte the same on every run and every machine, and
// reads them back.
//
// # What it owns
//
//   - Record: partition, offset, transaction id, ts (µs since the epoch, UTC)
//     and the payload bytes as stored.
//   - Encoder: one object, streamed record by record, as JSONL (zstd, gzip or
//     none) or Parquet (zstd or snappy, schema queen_record, row groups of at
//     most 100,000 rows, footer queen.queue and queen.tenant).
//   - WindowWriter and EncodeWindow: a window's records cut into objects by
//     layout (merged: one object; per-partition: one per partition), each
//     with its key, size, record count, ts bounds and SHA-256.
//   - Keys: the data, manifest and checkpoint keys under a prefix, names
//     percent-encoded (EscapeName), and Parse to read any of them back.
//   - Manifest and Checkpoint: the _queen/ sidecars, encoded and decoded.
//   - Decode, DecodeJSONL, DecodeParquet, ParseLine: objects back into
//     records, strictly, for verification and tests.
//
// lakeformat logs nothing and imports nothing of the broker: no AWS SDK, no
// dragonboat, no chi, no other Queen module (a test enforces it), so any Go
// program can write or check a lake with it.
//
// # Invariants
//
// Determinism. The same records and Options give the same bytes, whatever
// the machine, GOMAXPROCS, goroutine scheduling or how many encoders run at
// once. Nothing in an object depends on a clock, a map's order or the
// library's version. This is what makes the sink exactly once: a window
// rebuilt after a crash, on any node, is the same object under the same key.
// It holds because the settings are pinned (compress.go, parquet.go): zstd
// only through klauspost's streaming encoder, never flushed mid-stream;
// gzip only through klauspost's gzip with an empty header; Parquet through
// arrow-go's low-level column writers with dictionary encoding on the
// partition column alone and a row group closed before that dictionary
// could fall back to PLAIN (the fallback's encoding_stats come out in map
// order), and a created_by (CreatedBy) that never changes. The golden files
// in testdata/golden pin the bytes: a dependency upgrade that changes them
// fails the tests, on purpose, because objects already in buckets were
// written with the old bytes.
//
// Order. An object's records are sorted by partition name (bytewise), then
// offset; the Encoder refuses a record out of that order (ErrOutOfOrder). A
// window's records lie in [TStart, TEnd).
//
// Payloads. A payload is written as stored when it is valid JSON in valid
// UTF-8, with each raw line break written as a space in JSONL (valid JSON has
// line breaks only between tokens, so the value is unchanged); as null when
// it is empty; otherwise as a JSON string of its bytes, each invalid UTF-8
// byte read as U+FFFD. A payload is never parsed and printed again, so 42.00
// stays 42.00. Parquet keeps line breaks and stores the same JSON text in
// the payload column, null when empty. In JSONL a payload of the JSON text
// null and an empty payload look the same.
//
// Keys. No tenant, queue or partition name can climb out of its prefix:
// every byte outside A-Z a-z 0-9 . _ - is percent-encoded, so a name holds
// no '/', and "." or ".." can only appear after "tenant=", "queue=" or
// inside a file name.
//
// # Usage
//
//	keys, _ := lakeformat.NewKeys("queen")
//	w := lakeformat.Window{Tenant: "00000000-0000-0000-0000-000000000001", Queue: "orders",
//		K: 1, TStart: 1791007200000000, TEnd: 1791009458377855}
//	o := lakeformat.Options{Format: lakeformat.JSONL, Codec: lakeformat.Zstd}
//	ww, err := lakeformat.NewWindowWriter(keys, w, lakeformat.AlignHour, lakeformat.Merged, o,
//		func(obj *lakeformat.Object) error {
//			return upload(obj.Key, obj.Body) // each object as soon as it is finished
//		})
//	for _, r := range sortedRecords { // by partition, then offset
//		if err := ww.Add(&r); err != nil { ... }
//		if ww.Size() >= target { ... } // the uncompressed size so far
//	}
//	err = ww.Close()
package lakeformat
