package raftlog

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/cockroachdb/pebble/v2"
)

// ErrClosed is returned by a shard or host used after it was stopped.
var ErrClosed = errors.New("raftlog: closed")

// View is a consistent read of one shard's applied state: one point in the
// log, the state after the entry stamped Stamp(). Inside apply, Txn.View
// gives one over the entry's own state so far.
type View struct {
	src   source
	stamp int64
	// segs reads the records 'R' pointers point at (nil: none to read).
	segs *segments
}

// source is what a View reads: a Pebble snapshot, or an entry's Txn.
type source interface {
	Get(key []byte) (val []byte, ok bool, err error)
	Scan(lower, upper []byte, fn func(key, val []byte) bool) error
}

// Stamp returns the stamp of the last entry the view includes: the shard's
// safeTime at the view.
func (v *View) Stamp() int64 { return v.stamp }

// Get returns the value of key, or ok false when it has none. The value is
// the caller's to keep.
func (v *View) Get(key []byte) (val []byte, ok bool, err error) { return v.src.Get(key) }

// Scan calls fn for each key in [lower, upper) in key order until fn
// returns false. fn must not keep key or val.
func (v *View) Scan(lower, upper []byte, fn func(key, val []byte) bool) error {
	return v.src.Scan(lower, upper, fn)
}

// pebbleSource reads a Pebble reader (a snapshot).
type pebbleSource struct{ r pebble.Reader }

func (p pebbleSource) Get(key []byte) (val []byte, ok bool, err error) {
	b, closer, err := p.r.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("%w: get: %w", ErrStorage, err)
	}
	b = slices.Clone(b)
	return b, true, closer.Close()
}

func (p pebbleSource) Scan(lower, upper []byte, fn func(key, val []byte) bool) error {
	it, err := p.r.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return fmt.Errorf("%w: scan: %w", ErrStorage, err)
	}
	defer it.Close()
	for it.First(); it.Valid(); it.Next() {
		if !fn(it.Key(), it.Value()) {
			break
		}
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("%w: scan: %w", ErrStorage, err)
	}
	return nil
}

type byteReader struct{ *bufio.Reader }

func newByteReader(r io.Reader) byteReader { return byteReader{bufio.NewReaderSize(r, 256<<10)} }

// chunk reads one uvarint-length-prefixed chunk; the end mark reads as empty.
func (b byteReader) chunk() ([]byte, error) {
	n, err := binary.ReadUvarint(b.Reader)
	if err != nil {
		return nil, fmt.Errorf("%w: snapshot: %w", ErrCorruptEntry, err)
	}
	if n > 1<<30 {
		return nil, fmt.Errorf("%w: snapshot chunk of %d bytes", ErrCorruptEntry, n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(b.Reader, buf); err != nil {
		return nil, fmt.Errorf("%w: snapshot: %w", ErrCorruptEntry, err)
	}
	return buf, nil
}
