// Package testkit is the root of the helpers that our modules' tests and
// test tools share, so that a helper is written once instead of copied into
// each module (the modules may not import each other freely: DESIGN.md's
// module table).
//
// # What it owns
//
//   - syncbuf: Buffer, a bytes.Buffer safe for concurrent Write and String,
//     for a logger or a child process that writes from other goroutines
//     while the test reads.
//   - deps: Check, the forbidden-imports test of a module (go list -deps
//     -test, a check that the list is real, the banned prefixes).
//   - freeport: a port on 127.0.0.1 that was free a moment ago and that no
//     earlier call of this process was given.
//   - script: Parse and Run, the data-driven testdata/scripts of the
//     state machines whose modules do not require cockroachdb/datadriven.
//
// # Invariants
//
//   - Standard library only, and nothing else of ours: any module may import
//     testkit without bringing a dependency along.
//   - For test code and test tools only (_test.go files, test packages such
//     as s3sink/s3test and raftlog/raftlogtest, test programs such as
//     compat-gen): no package a user imports or a production binary builds
//     depends on it. lakeformat, a standalone library, does not require it.
//   - A helper keeps the exact messages of the copies it replaced, so that
//     a test that calls it fails as it did before.
package testkit
