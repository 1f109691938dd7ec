package raftlog

import (
	"fmt"

	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
)

// resolveRecord decodes an 'R' value: a stored record as it is, a pointer
// through segs (nil: a pointer is a storage error).
func resolveRecord(segs *segments, v []byte) (storefmt.StoredRecord, error) {
	if len(v) == 0 || v[0] != storefmt.RecordInSegment {
		return storefmt.DecodeRecord(v)
	}
	p, _, _, err := storefmt.DecodePtr(v)
	if err != nil {
		return storefmt.StoredRecord{}, err
	}
	if segs == nil {
		return storefmt.StoredRecord{}, fmt.Errorf("%w: a record pointer with no segments to read", ErrStorage)
	}
	b, err := segs.read(p)
	if err != nil {
		return storefmt.StoredRecord{}, err
	}
	return storefmt.DecodeRecord(b)
}
