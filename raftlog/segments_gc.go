package raftlog

import (
	"encoding/binary"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
)

// collect removes the segments below every partition's first live record:
// no live record points into them, and since records take segments in
// offset order and never move, none ever will again. It runs in Sync,
// after the flush, so the state it reads is durable; under the write lock,
// so no Lookup holds a pointer into what it removes; and not while a
// snapshot save streams an older state.
func (s *stateMachine) collect() error {
	if s.saving.Load() > 0 {
		return nil
	}
	low, err := s.lowestLiveSegment()
	if err != nil {
		return err
	}
	ids, err := s.segs.list()
	if err != nil || len(ids) == 0 || ids[0] >= low {
		return err // nothing to remove: no need to stop the Lookups
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.saving.Load() > 0 {
		return nil
	}
	n, err := s.segs.removeBelow(low)
	if n > 0 {
		s.log.Debug("segments removed", "count", n, "below", low)
	}
	return err
}

// lowestLiveSegment is the lowest segment a partition's first live record
// points into; the active segment when none does.
func (s *stateMachine) lowestLiveSegment() (uint64, error) {
	low, _ := s.segs.position()
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{storefmt.PrefixMeta}, UpperBound: []byte{storefmt.PrefixMeta + 1}})
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrStorage, err)
	}
	defer it.Close()
	get := pebbleSource{s.db}.Get
	for it.First(); it.Valid(); it.Next() {
		if len(it.Key()) != 9 {
			continue
		}
		m, err := storefmt.LoadMeta(get, binary.BigEndian.Uint64(it.Key()[1:]))
		if err != nil {
			return 0, err
		}
		if m.LogStart >= m.NextOffset {
			continue
		}
		v, ok, err := get(storefmt.RecordKey(m.UID, m.LogStart))
		if err != nil || !ok || len(v) == 0 || v[0] != storefmt.RecordInSegment {
			if err == nil && !ok {
				err = fmt.Errorf("%w: partition %d has no record at its log start %d", ErrStorage, m.UID, m.LogStart)
			}
			if err != nil {
				return 0, err
			}
			continue // a record written before segments
		}
		p, _, _, err := storefmt.DecodePtr(v)
		if err != nil {
			return 0, err
		}
		low = min(low, p.Seg)
	}
	return low, it.Error()
}
