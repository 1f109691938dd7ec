package raftlog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Fail-stop on corruption. A node whose stored data fails a checksum must
// never serve it, nor go on applying over it: its peers hold the same
// state, and the node is rebuilt from them under a new replica id
// (ReplaceReplica). Every finding, by whichever reader made it, goes
// through Host.corrupt once: the marker file is written first, then
// Config.OnCorrupt is told. The marker makes every later start refuse at
// once with the same finding (NewHost, VerifyStore), until the operator
// moves the data directory aside.
//
// The sources: Pebble's DataCorruption events and corruption errors of
// its background work (the state machine's store, sm.go), a record whose
// segment bytes fail the pointer's checksum (segments.go), dragonboat's
// own panics over its raft log store when they name a corruption
// (logger.go), and VerifyStore at boot (verify.go).

// ErrCorrupt is what every *CorruptError wraps: stored data failed a
// check. The node must be rebuilt from its peers; retrying cannot help.
var ErrCorrupt = errors.New("raftlog: stored data corrupted")

// MarkerName is the file, in the data directory, that records a finding.
const MarkerName = "CORRUPT"

// CorruptError is a finding: the file that failed a check, and how.
type CorruptError struct {
	// Path is the file that failed (or the store's directory when the
	// reader did not say which file).
	Path string
	// Detail says what failed: "block checksum mismatch", "invalid chunk
	// at offset 4096 followed by valid chunks", ...
	Detail string
	// Marked is true when the finding was read back from the marker of
	// an earlier run rather than made now.
	Marked bool
}

func (e *CorruptError) Error() string {
	s := "data corrupted: " + e.Path + ": " + e.Detail
	if e.Marked {
		s += " (found by an earlier run: " + MarkerName + " marker)"
	}
	return s
}

// Unwrap makes a finding both ErrCorrupt and ErrStorage: a caller that
// maps storage errors (to a 500) maps it as before.
func (e *CorruptError) Unwrap() []error { return []error{ErrCorrupt, ErrStorage} }

// markerLine is the marker file's content: one line, path then detail.
func (e *CorruptError) markerLine() string {
	return strings.ReplaceAll(e.Path, "\t", " ") + "\t" + strings.ReplaceAll(e.Detail, "\n", " ") + "\n"
}

// ReadMarker returns the finding an earlier run left in dataDir, or nil
// when there is none.
func ReadMarker(dataDir string) (*CorruptError, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, MarkerName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("raftlog: read the corruption marker: %w", err)
	}
	path, detail, _ := strings.Cut(strings.TrimSpace(string(b)), "\t")
	if detail == "" {
		detail = "(the marker names no detail)"
	}
	return &CorruptError{Path: path, Detail: detail, Marked: true}, nil
}

// WriteMarker records e in dataDir, durably: a new file renamed into
// place and the directory synced. An existing marker is kept (the first
// finding is the one that counts).
func WriteMarker(dataDir string, e *CorruptError) error {
	final := filepath.Join(dataDir, MarkerName)
	if _, err := os.Stat(final); err == nil {
		return nil
	}
	tmp := final + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("raftlog: write the corruption marker: %w", err)
	}
	_, err = f.WriteString(e.markerLine())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, final)
	}
	if err == nil {
		err = syncDir(dataDir)
	}
	if err != nil {
		return fmt.Errorf("raftlog: write the corruption marker: %w", err)
	}
	return nil
}

// corrupt handles a finding: the marker first, then Config.OnCorrupt
// (which, in the broker, prints the FATAL line and exits). Only the first
// finding of a host is handled; later ones return at once. From then on
// the host's reads answer the finding (stateMachine.Lookup).
func (h *Host) corrupt(e *CorruptError) {
	if !h.corrupted.CompareAndSwap(nil, e) {
		return
	}
	if err := WriteMarker(h.cfg.DataDir, e); err != nil {
		h.log.Error("raftlog: corruption marker not written", "err", err)
	}
	if h.cfg.OnCorrupt != nil {
		h.cfg.OnCorrupt(e) // it says so itself: one line
		return
	}
	h.log.Error("raftlog: "+e.Error(), "path", e.Path)
}

// Corrupted returns the host's finding, nil while there is none.
func (h *Host) Corrupted() *CorruptError { return h.corrupted.Load() }
