package raftlog

import (
	"context"
	"fmt"
	"os"

	oldsstable "github.com/cockroachdb/pebble/sstable"
	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// checkTable reads every block of a table of a shard's store (Pebble v2)
// against its checksum.
func checkTable(path string) (err error) {
	f, err := vfs.Default.Open(path)
	if err != nil {
		return fmt.Errorf("raftlog: verify: %w", err)
	}
	defer catchPanic(path, &err)
	rd, err := sstable.NewSimpleReadable(f)
	if err != nil {
		f.Close()
		return fmt.Errorf("raftlog: verify: %w", err)
	}
	o := &pebble.Options{Logger: quietPebble{}}
	o.EnsureDefaults()
	r, err := sstable.NewReader(context.Background(), rd, o.MakeReaderOptions())
	if err != nil {
		rd.Close()
		return tableFinding(path, err)
	}
	return validateBlocks(path, r)
}

// checkOldTable reads every block of a table of the raft log store (the
// old Pebble dragonboat runs) against its checksum, with that Pebble's
// own reader.
func checkOldTable(path string) (err error) {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("raftlog: verify: %w", err)
	}
	defer catchPanic(path, &err)
	r, err := oldsstable.NewReader(f, oldsstable.ReaderOptions{})
	if err != nil {
		f.Close()
		return tableFinding(path, err)
	}
	return validateBlocks(path, r)
}

// validateBlocks checks every block of r, a table reader of either
// Pebble, against its checksum, and closes r.
func validateBlocks(path string, r interface {
	ValidateBlockChecksums() error
	Close() error
}) error {
	defer r.Close()
	if err := r.ValidateBlockChecksums(); err != nil {
		return tableFinding(path, err)
	}
	return nil
}

// tableFinding is the finding of a table that failed to open or check.
func tableFinding(path string, err error) *CorruptError {
	return &CorruptError{Path: path, Detail: "table: " + err.Error()}
}

// catchPanic turns a reader's panic over malformed bytes into a finding.
func catchPanic(path string, err *error) {
	if r := recover(); r != nil {
		*err = &CorruptError{Path: path, Detail: fmt.Sprintf("table: the reader failed: %v", r)}
	}
}
