package raftlog

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
)

// verifySegments checks the segments of every shard's store under smDir
// (VerifyStore says what): each store is opened read-only, as it will
// open, and walked from each partition's last record back while its
// records lie in the active segment.
func verifySegments(smDir string, st *VerifyStats) error {
	ents, err := os.ReadDir(smDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("raftlog: verify: %w", err)
	}
	for _, e := range ents {
		segDir := filepath.Join(smDir, e.Name()+".segments")
		if !e.IsDir() || strings.HasSuffix(e.Name(), ".segments") {
			continue
		}
		if _, err := os.Stat(segDir); err != nil {
			continue // a store without segments
		}
		if err := verifyShardSegments(filepath.Join(smDir, e.Name()), segDir, st); err != nil {
			return err
		}
	}
	return nil
}

func verifyShardSegments(dir, segDir string, st *VerifyStats) (err error) {
	var found *CorruptError
	o := pebbleOptions(func() {})
	o.ReadOnly = true
	o.EventListener.DataCorruption = func(info pebble.DataCorruptionInfo) {
		if found == nil {
			found = &CorruptError{Path: info.Path, Detail: "table: block checksum mismatch"}
		}
	}
	db, err := pebble.Open(dir, o)
	if err != nil {
		if pebble.IsCorruptionError(err) {
			return &CorruptError{Path: dir, Detail: err.Error()}
		}
		return fmt.Errorf("raftlog: verify: open %s: %w", dir, err)
	}
	defer db.Close()
	defer func() {
		if found != nil {
			err = found
		}
	}()
	active, end, err := readSegKey(pebbleSource{db}.Get)
	if err != nil {
		return fmt.Errorf("raftlog: verify: %s: %w", dir, err)
	}
	activePath := filepath.Join(segDir, segmentName(active))
	seg, err := os.ReadFile(activePath)
	if errors.Is(err, fs.ErrNotExist) && end == 0 {
		return nil // a store that never wrote a record
	}
	if err != nil {
		return fmt.Errorf("raftlog: verify: %w", err)
	}
	if int64(len(seg)) < end {
		return &CorruptError{Path: activePath, Detail: fmt.Sprintf("segment: %d bytes, the store says %d are durable", len(seg), end)}
	}
	st.SegmentBytes += end
	it, err := db.NewIter(&pebble.IterOptions{LowerBound: []byte{storefmt.PrefixRecord}, UpperBound: []byte{storefmt.PrefixRecord + 1}})
	if err != nil {
		return fmt.Errorf("raftlog: verify: %w", err)
	}
	defer it.Close()
	sizes := map[uint64]int64{} // older segments' sizes (0: missing)
	for valid := it.Last(); valid; {
		k, v := it.Key(), it.Value()
		if len(k) != 17 || len(v) == 0 || v[0] != storefmt.RecordInSegment {
			valid = it.SeekLT(bytes.Clone(k[:min(len(k), 9)])) // a record kept in the store: the partition's older ones are too
			continue
		}
		p, _, _, err := storefmt.DecodePtr(v)
		if err != nil {
			return &CorruptError{Path: dir, Detail: fmt.Sprintf("record key %x: %v", k, err)}
		}
		if p.Seg == active {
			if p.Pos+int64(p.N) > end || crc32.Checksum(seg[p.Pos:p.Pos+int64(p.N)], castagnoli) != p.CRC {
				return &CorruptError{Path: activePath, Detail: fmt.Sprintf("segment: record of %d bytes at %d: checksum mismatch", p.N, p.Pos)}
			}
			st.Records++
			valid = it.Prev()
			continue
		}
		// The partition's newest record before the active segment: its
		// file must hold it; the older records are checked as read.
		size, ok := sizes[p.Seg]
		path := filepath.Join(segDir, segmentName(p.Seg))
		if !ok {
			if fi, err := os.Stat(path); err == nil {
				size = fi.Size()
			}
			sizes[p.Seg] = size
		}
		if size < p.Pos+int64(p.N) {
			return &CorruptError{Path: path, Detail: fmt.Sprintf("segment: a record of %d bytes at %d is past the file's end (%d bytes)", p.N, p.Pos, size)}
		}
		valid = it.SeekLT(bytes.Clone(k[:9]))
	}
	if err := it.Error(); err != nil {
		if pebble.IsCorruptionError(err) && found == nil {
			return &CorruptError{Path: dir, Detail: err.Error()}
		}
		return fmt.Errorf("raftlog: verify: %w", err)
	}
	return nil
}
