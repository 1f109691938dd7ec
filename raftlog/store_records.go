package raftlog

import (
	"encoding/binary"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
)

// moveRecords is the upgrade from format 2 to 3: every record a store
// kept in Pebble is appended to segs and its 'R' key becomes a pointer,
// so that a partition's records take segments in offset order (what
// collect relies on). Batches of moveBatch records each carry the
// segments' new length; a crash midway leaves some records moved, all
// of them durable with their bytes (flushBegin), and the next open moves
// the rest. The format is set last, with a flush.
func moveRecords(db *pebble.DB, segs *segments) error {
	it, err := db.NewIter(&pebble.IterOptions{LowerBound: []byte{storefmt.PrefixRecord}, UpperBound: []byte{storefmt.PrefixRecord + 1}})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStorage, err)
	}
	defer it.Close()
	b := db.NewBatch()
	defer func() { b.Close() }()
	commit := func() error {
		if err := segs.write(); err != nil {
			return err
		}
		if err := b.Set(segKey, segValue(segs.position()), nil); err != nil {
			return err
		}
		if err := b.Commit(pebble.NoSync); err != nil {
			return fmt.Errorf("%w: move records into segments: %w", ErrStorage, err)
		}
		b.Close()
		b = db.NewBatch()
		return nil
	}
	const moveBatch = 4096
	n := 0
	for it.First(); it.Valid(); it.Next() {
		k, v := it.Key(), it.Value()
		if !storefmt.IsRecordKey(k) || len(v) == 0 || v[0] == storefmt.RecordInSegment {
			continue
		}
		ptr, err := segs.appendRecord(v)
		if err != nil {
			return err
		}
		if err := b.Set(k, ptr, nil); err != nil {
			return fmt.Errorf("%w: %w", ErrStorage, err)
		}
		if n++; n%moveBatch == 0 {
			if err := commit(); err != nil {
				return err
			}
		}
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("%w: %w", ErrStorage, err)
	}
	if err := b.Set(formatKey, binary.AppendUvarint(nil, storeFormat), nil); err != nil {
		return fmt.Errorf("%w: %w", ErrStorage, err)
	}
	if err := commit(); err != nil {
		return err
	}
	if err := db.Flush(); err != nil {
		return fmt.Errorf("%w: flush: %w", ErrStorage, err)
	}
	return nil
}
