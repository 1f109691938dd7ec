// Package syncbuf holds Buffer, a bytes.Buffer that several goroutines may
// write while another reads it: a logger's handler, a child process's
// stdout and stderr copied by os/exec, a ticker writing its progress.
//
// It is a helper for our tests and test tools only (see package testkit).
//
// Invariants: every method holds the buffer's lock for its whole call, so a
// Write is never seen in part by String, and writes from several goroutines
// are kept whole, each after the other.
package syncbuf
