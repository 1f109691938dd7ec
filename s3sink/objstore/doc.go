// Package objstore is the bucket as the sink uses it: the Store interface
// and its error classes, in a leaf package so that a store (such as
// s3store) implements it, and a tool builds one, without importing the
// sink's engine. The engine names the same types s3sink.ObjectStore,
// s3sink.ErrNotFound and s3sink.ErrAccessDenied.
//
// Invariant: the error values are the engine's own (s3sink.ErrNotFound is
// ErrNotFound), so an error a store wraps with them is branched on by the
// engine with errors.Is, whichever package built it.
package objstore
