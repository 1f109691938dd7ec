// Package storefmt holds the byte layouts of a shard's store that the
// state machine's storage (package raftlog) and the queue log (package
// raftlog/queuelog) both read: the queue log's keys, its partition meta,
// its stored record and the record pointer that stands for a record kept
// in a segment. raftlog keeps records in segments, streams them in
// snapshots, upgrades older stores and collects segments by these
// layouts; queuelog writes and reads them. They live here, below both,
// because the core may not import the queue log that imports it.
//
// Every layout is part of the store's format: no byte of it changes
// meaning once written (see queuelog's doc for the queue log's own
// invariants, raftlog's for the store's).
package storefmt

import (
	"errors"

	"github.com/queen-mq/queen-go/raftlog/wire"
)

// ErrStorage is raftlog.ErrStorage (defined here, so that what this
// package decodes wraps the very error the core exports): wrapped by
// errors of the state machine's store.
var ErrStorage = errors.New("raftlog: storage")

// decoder reads a stored value; its failures are replaced by ErrStorage
// errors before they leave the package.
func decoder(b []byte) wire.Decoder { return wire.NewDecoder(b, ErrStorage) }
