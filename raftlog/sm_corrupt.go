package raftlog

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// watchCorruption routes the store's corruption reports to the host
// (corrupt.go) instead of Pebble's default, a Fatalf that panics in
// whichever goroutine read the block: a read that meets a block failing
// its checksum reports it (DataCorruption, called synchronously in the
// read path, which then fails), and so does a flush or compaction that
// meets one (BackgroundError).
func (s *stateMachine) watchCorruption(o *pebble.Options) *pebble.Options {
	o.EventListener.DataCorruption = func(info pebble.DataCorruptionInfo) {
		detail := "block checksum mismatch"
		if info.Details != nil {
			detail = info.Details.Error()
		}
		s.corrupted(info.Path, detail)
	}
	o.EventListener.BackgroundError = func(err error) {
		if pebble.IsCorruptionError(err) {
			s.corrupted(s.dir, err.Error())
			return
		}
		if s.log != nil {
			s.log.Error("raftlog: store background error", "dir", s.dir, "err", err)
		}
	}
	return o
}

// openError is an error of pebble.Open: a corruption is a finding (the
// store's MANIFEST or a table it read as it opened failed a check).
func (s *stateMachine) openError(err error) error {
	if pebble.IsCorruptionError(err) {
		e := &CorruptError{Path: s.dir, Detail: err.Error()}
		s.corrupted(e.Path, e.Detail)
		return e
	}
	return fmt.Errorf("%w: open %s: %w", ErrStorage, s.dir, err)
}

// corrupted makes a finding: from now on the store serves no read, and
// the host is told (it writes the marker and stops the node).
func (s *stateMachine) corrupted(path, detail string) {
	e := &CorruptError{Path: path, Detail: detail}
	if !s.failed.CompareAndSwap(nil, e) {
		return
	}
	if s.onCorrupt != nil {
		s.onCorrupt(e)
	} else if s.log != nil {
		s.log.Error("raftlog: "+e.Error(), "path", path)
	}
}

// finding returns the store's finding in place of err when err comes
// from it (a read that met a block failing its checksum), making one
// from err if Pebble reported none; any other err as it is.
func (s *stateMachine) finding(err error) error {
	var e *CorruptError
	if errors.As(err, &e) {
		return e
	}
	if pebble.IsCorruptionError(err) {
		s.corrupted(s.dir, err.Error())
	}
	if e := s.failed.Load(); e != nil {
		return e
	}
	return err
}
