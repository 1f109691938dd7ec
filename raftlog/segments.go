package raftlog

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"

	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The record store: the queue log's record bytes live in segment files of
// their own, appended in apply order, and Pebble keeps for each record a
// small pointer to them ('R' keys, storefmt.Ptr) beside the indexes and
// metadata. A record is written once on a node: appended to a segment,
// never rewritten by a compaction.
//
//	<dir>/segments/<id, 16 hex digits>.seg   record bytes, back to back
//
// Segment ids grow by one; the highest is the active segment, the only
// one appended to, and a new one starts when an entry's record would take
// the active one past its size limit. Every other file is immutable.
//
// Crash safety (Pebble runs without its WAL; sm.go): a Pebble state
// becomes durable only when a memtable is flushed, and every flush first
// fsyncs the active segment (flushBegin), so a durable pointer always
// points at durable bytes. The applied index's batch also records the
// active segment and its length (segKey): on Open, the active segment is
// cut back to that length and later segments are removed, since the
// entries that wrote them are replayed from the raft log, and write the
// same bytes again.
//
// A segment below every partition's first live record holds no live
// record (a partition's records take segments in offset order): Sync
// removes it once the state that says so is durable (collect).

// segmentBytes is the size past which a new segment starts.
const segmentBytes = 64 << 20

// segKey holds the active segment's id and length, written with the
// applied index. Node-local: a snapshot neither carries nor compares it.
var segKey = []byte{0x00, 's'}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// segments is one state machine's segment files. append is called by
// Update only; read by any goroutine.
type segments struct {
	dir   string
	limit int64

	mu     sync.Mutex
	files  map[uint64]*os.File // open handles, the active one's for writing too
	active uint64
	size   int64 // the active segment's length, pending bytes included
	// pending are the bytes appended since the last write, at the active
	// segment's offset size-len(pending): Update writes them with one
	// call before it commits (write).
	pending []byte
	// onCorrupt is told of a record whose bytes fail their pointer's
	// checksum, or are missing (nil: not told).
	onCorrupt func(path, detail string)
}

func segmentName(id uint64) string { return fmt.Sprintf("%016x.seg", id) }

// openSegments opens dir's segments as the store's segKey left them:
// active (its length end) is cut back to end, and higher ones removed.
func openSegments(dir string, limit int64, active uint64, end int64) (*segments, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStorage, err)
	}
	s := &segments{dir: dir, limit: limit, files: map[uint64]*os.File{}, active: active}
	ids, err := s.list()
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if id > active {
			if err := os.Remove(filepath.Join(dir, segmentName(id))); err != nil {
				return nil, fmt.Errorf("%w: %w", ErrStorage, err)
			}
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, segmentName(active)), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStorage, err)
	}
	st, err := f.Stat()
	if err == nil && st.Size() < end {
		err = fmt.Errorf("segment %d holds %d bytes, the store says %d", active, st.Size(), end)
	}
	if err == nil {
		err = f.Truncate(end)
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %w", ErrStorage, err)
	}
	s.files[active], s.size = f, end
	return s, nil
}

// list returns the ids of dir's segment files, in order.
func (s *segments) list() ([]uint64, error) {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrStorage, err)
	}
	var ids []uint64
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".seg")
		if !ok || len(name) != 16 {
			continue
		}
		if id, err := strconv.ParseUint(name, 16, 64); err == nil {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// position is the active segment and its length, for segKey.
func (s *segments) position() (uint64, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active, s.size
}

func segValue(active uint64, end int64) []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(make([]byte, 0, 16), active), uint64(end))
}

// readSegKey reads segKey: the active segment and its length (0, 0 in a
// store that has none yet).
func readSegKey(get func([]byte) ([]byte, bool, error)) (uint64, int64, error) {
	v, ok, err := get(segKey)
	if err != nil || !ok {
		return 0, 0, err
	}
	if len(v) != 16 {
		return 0, 0, fmt.Errorf("%w: segment position of %d bytes", ErrStorage, len(v))
	}
	return binary.BigEndian.Uint64(v), int64(binary.BigEndian.Uint64(v[8:])), nil
}

// append adds b at the end of the active segment, starting a new one
// first when b would take it past the limit. The bytes are pending until
// write; read serves them meanwhile.
// REQUIRES: only Update (and RecoverFromSnapshot) call it: one writer.
func (s *segments) append(b []byte) (storefmt.Ptr, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.size > 0 && s.size+int64(len(b)) > s.limit {
		if err := s.rollLocked(); err != nil {
			return storefmt.Ptr{}, err
		}
	}
	p := storefmt.Ptr{Seg: s.active, Pos: s.size, N: len(b), CRC: crc32.Checksum(b, castagnoli)}
	s.pending = append(s.pending, b...)
	s.size += int64(len(b))
	return p, nil
}

// write writes the pending bytes to the active segment.
func (s *segments) write() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeLocked()
}

func (s *segments) writeLocked() error {
	if len(s.pending) == 0 {
		return nil
	}
	at := s.size - int64(len(s.pending))
	if _, err := s.files[s.active].WriteAt(s.pending, at); err != nil {
		return fmt.Errorf("%w: append to segment %d: %w", ErrStorage, s.active, err)
	}
	s.pending = s.pending[:0]
	return nil
}

// rollLocked makes the active segment durable and starts the next one.
func (s *segments) rollLocked() error {
	if err := s.writeLocked(); err != nil {
		return err
	}
	if err := s.files[s.active].Sync(); err != nil {
		return fmt.Errorf("%w: sync segment %d: %w", ErrStorage, s.active, err)
	}
	next := s.active + 1
	f, err := os.OpenFile(filepath.Join(s.dir, segmentName(next)), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStorage, err)
	}
	if err := syncDir(s.dir); err != nil {
		f.Close()
		return fmt.Errorf("%w: %w", ErrStorage, err)
	}
	s.files[next], s.active, s.size = f, next, 0
	return nil
}

// read returns the bytes p points at, checked against p's checksum.
func (s *segments) read(p storefmt.Ptr) ([]byte, error) {
	if b, ok := s.readPending(p); ok {
		return b, nil
	}
	f, err := s.handle(p.Seg)
	if err != nil {
		return nil, err
	}
	b := make([]byte, p.N)
	if _, err := f.ReadAt(b, p.Pos); err != nil {
		if errors.Is(err, io.EOF) {
			// The store points past the file's end: bytes it made
			// durable are gone.
			return nil, s.corrupt(p, fmt.Sprintf("record of %d bytes at %d past the end of the file", p.N, p.Pos))
		}
		return nil, fmt.Errorf("%w: read segment %d at %d: %w", ErrStorage, p.Seg, p.Pos, err)
	}
	if crc32.Checksum(b, castagnoli) != p.CRC {
		return nil, s.corrupt(p, fmt.Sprintf("record of %d bytes at %d: checksum mismatch", p.N, p.Pos))
	}
	return b, nil
}

// corrupt reports a record whose bytes failed, and returns the finding.
func (s *segments) corrupt(p storefmt.Ptr, detail string) error {
	path := filepath.Join(s.dir, segmentName(p.Seg))
	if s.onCorrupt != nil {
		s.onCorrupt(path, detail)
	}
	return &CorruptError{Path: path, Detail: detail}
}

// readPending serves p from the pending bytes (an entry reading a record
// an earlier entry of its Update appended); ok is false when p is written.
func (s *segments) readPending(p storefmt.Ptr) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := s.size - int64(len(s.pending))
	if p.Seg != s.active || p.Pos < start || p.Pos+int64(p.N) > s.size {
		return nil, false
	}
	off := p.Pos - start
	return append([]byte(nil), s.pending[off:off+int64(p.N)]...), true
}

func (s *segments) handle(id uint64) (*os.File, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.files[id]; f != nil {
		return f, nil
	}
	f, err := os.Open(filepath.Join(s.dir, segmentName(id)))
	if err != nil {
		return nil, fmt.Errorf("%w: segment %d: %w", ErrStorage, id, err)
	}
	s.files[id] = f
	return f, nil
}

// sync makes the active segment durable (every other one is already):
// what is written, not what is pending.
func (s *segments) sync() error {
	s.mu.Lock()
	f, id := s.files[s.active], s.active
	s.mu.Unlock()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("%w: sync segment %d: %w", ErrStorage, id, err)
	}
	return nil
}

// removeBelow removes the segments below id, never the active one.
// REQUIRES: no reader holds a pointer into them (the caller excludes
// Lookups and snapshot saves) and the state that frees them is durable.
func (s *segments) removeBelow(id uint64) (int, error) {
	ids, err := s.list()
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, old := range ids {
		if old >= id || old >= s.active {
			break
		}
		if f := s.files[old]; f != nil {
			f.Close()
			delete(s.files, old)
		}
		if err := os.Remove(filepath.Join(s.dir, segmentName(old))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, fmt.Errorf("%w: %w", ErrStorage, err)
		}
		n++
	}
	return n, nil
}

func (s *segments) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var first error
	for id, f := range s.files {
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
		delete(s.files, id)
	}
	return first
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
