// Package freeport finds a TCP port on 127.0.0.1 for a server a test or a
// test tool is about to start: a raft host, an HTTP listener, a child
// process given its address on the command line.
//
// It is a helper for our tests and test tools only (see package testkit).
//
// A port is found by listening on 127.0.0.1:0 and closing the listener, so
// it was free a moment ago; something else may take it before the caller
// binds it. The kernel may hand a released port out again at once (CI saw
// one node's raft and HTTP ports be one), so the package remembers the
// ports it gave.
//
// Invariant: within one process, Port, Addr and Take never return the same
// port twice.
package freeport
