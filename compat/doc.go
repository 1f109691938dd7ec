// Package compat is the compatibility lane: proof, on every CI run, that
// DuckDB, Spark, ClickHouse (chDB), Polars, PyArrow and pandas read the lake
// the S3 sink writes "with nothing in front of them".
//
// The package itself holds no code; the lane is three parts:
//
//   - cmd/compat-gen (Go) boots one real queen node and versitygw (through
//     s3sink/s3test/versitygw, the one launcher of it), pushes a
//     fixed data set over HTTP (three queues of twelve partitions, one named
//     "eu west/1" and one "zürich"; payloads with 42.00, nested objects,
//     unicode, pretty-printed JSON with LF and CRLF, null, a JSON string with
//     escapes) on both sides of a midnight of the node's clock
//     (QUEEN_RAFT_CLOCK_OFFSET_MS puts it 20 s before one), to two tenants in
//     the same rounds: the default one, and a control-plane tenant (a fixed
//     broker tenant of a cluster made through /api/cp, pushed to with
//     x-queen-tenant). It then restarts the node with the embedded sink once
//     per lake: for the default tenant, by the environment's sink (QUEEN_S3_*),
//     JSONL (zstd, gzip, none) and Parquet (zstd, snappy), merged and
//     per-partition, aligned on the hour and the day, 20 lakes; for the
//     control-plane tenant, by its cluster's sink PUT through
//     /api/cp/clusters/:slug/s3 on a node with no QUEEN_S3_QUEUES, one JSONL
//     and one Parquet lake (ids cp-...). Each lake lies under a prefix named
//     after it. It checks each lake with lakeformat's decoders against its
//     tenant's records (a lake wrong there is the sink's fault and stops the
//     lane) and writes lakes.json (each lake names its tenant and that
//     tenant's expectations) and each tenant's expected*.jsonl.
//   - readers/*.py, one per engine, read every lake through the S3 API
//     where the engine can, glob tenant=*/queue=*/dt=*/hour=*/* with Hive
//     partitioning (so _queen/ is never read), and check what they read
//     with readers/_checks.py: every record once, names and types, the Hive
//     columns, pruning on dt, the payload (byte for byte, or as JSON where
//     the engine re-renders it), a JSON path.
//   - run.py serves the lakes with versitygw, runs each reader in a process
//     of its own (handing it each lake with a cfg of that lake's tenant and
//     records), renders MATRIX.md and exits 1 when a cell is a fail.
//     test_lane.py shows that a reader that disagrees with the data fails.
//
// Invariants: the lakes are written by the real sink, never by lakeformat
// directly; a reader never reads _queen/; a fail is never rendered as a
// pass (a pass whose engine needed a workaround carries a caveat).
//
// Run it with
//
//	make compat
//
// which installs the engines into .cache/compat-venv and Spark's s3a jars
// into .cache/compat-jars, and rewrites compat/MATRIX.md.
package compat
