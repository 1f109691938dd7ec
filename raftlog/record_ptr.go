package raftlog

import (
	"fmt"

	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
)

// RecordBytes returns the stored record an 'R' value (a key of
// storefmt.PrefixRecord) stands for: the value itself when the store
// holds the record, or the bytes its pointer points at in the shard's
// segments. The queue log reads its records through it.
func (v *View) RecordBytes(val []byte) ([]byte, error) {
	if len(val) == 0 || val[0] != storefmt.RecordInSegment {
		return val, nil
	}
	p, _, _, err := storefmt.DecodePtr(val)
	if err != nil {
		return nil, err
	}
	if v.segs == nil {
		return nil, fmt.Errorf("%w: a record pointer with no segments to read", ErrStorage)
	}
	return v.segs.read(p)
}

// appendRecord appends rec, a stored record, to the segments and returns
// the pointer that stands for it under its 'R' key in the store.
func (s *segments) appendRecord(rec []byte) ([]byte, error) {
	r, err := storefmt.DecodeRecord(rec)
	if err != nil {
		return nil, err
	}
	p, err := s.append(rec)
	if err != nil {
		return nil, err
	}
	return storefmt.EncodePtr(p, r.Stamp, r.TxID), nil
}
