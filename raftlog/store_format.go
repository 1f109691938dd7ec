package raftlog

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"

	"github.com/queen-mq/queen-go/raftlog/wire"

	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"

	"slices"
)

// formatKey holds the store's format: which layout of keys it holds. It
// only grows; a store of a newer format than this code knows is refused.
//
//	1  (no formatKey) 'P' keys held the partition meta, 'C' keys the name
//	2  'P' keys hold the partition's uid, 'M' keys its meta, 'C' keys
//	   uid and name (internal/storefmt/keys.go)
//	3  every record lives in the segments, its 'R' key a pointer
//	   (record_ptr.go); a binary that knows only 2 refuses the store
var formatKey = []byte{0x00, 'f'}

// storeFormat is the format this code writes.
const storeFormat = 3

// upgradeStore brings the store to storeFormat. Format 1 to 2 is one
// batch: a crash midway leaves the old format, which the next open
// upgrades again. 2 to 3 moves the records into segs (moveRecords). It
// runs when the store opens and after a snapshot replaced the state (a
// snapshot of an older node holds the older format).
func upgradeStore(db *pebble.DB, segs *segments) error {
	format, err := readFormat(db)
	if err != nil || format == storeFormat {
		return err
	}
	if format > storeFormat {
		return fmt.Errorf("%w: the store is of format %d, newer than this broker's %d", ErrStorage, format, storeFormat)
	}
	if format < 2 {
		if err := upgradeToFormat2(db); err != nil {
			return err
		}
	}
	return moveRecords(db, segs)
}

func upgradeToFormat2(db *pebble.DB) error {
	b := db.NewBatch()
	defer b.Close()
	if err := upgradeFormat1(db, b); err != nil {
		return err
	}
	if err := b.Set(formatKey, binary.AppendUvarint(nil, 2), nil); err != nil {
		return fmt.Errorf("%w: %w", ErrStorage, err)
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("%w: upgrade the store: %w", ErrStorage, err)
	}
	return nil
}

func readFormat(r pebble.Reader) (uint64, error) {
	v, closer, err := r.Get(formatKey)
	if errors.Is(err, pebble.ErrNotFound) {
		return 1, nil
	}
	if err != nil {
		return 0, fmt.Errorf("%w: read the store's format: %w", ErrStorage, err)
	}
	defer closer.Close()
	f, n := binary.Uvarint(v)
	if n <= 0 || n != len(v) {
		return 0, fmt.Errorf("%w: store format %x", ErrStorage, v)
	}
	return f, nil
}

// upgradeFormat1 rewrites format 1's partition keys into b: each 'P' key's
// meta moves to the 'M' key of its uid and the 'P' key keeps the uid; each
// 'C' key's name gets the partition's uid in front of it. It reads db,
// which b has not changed yet.
func upgradeFormat1(db *pebble.DB, b *pebble.Batch) error {
	uids := map[string]uint64{} // 'P' key → uid; looked up, never iterated
	err := scanPrefix(db, storefmt.PrefixPartition, func(k, v []byte) error {
		m, err := storefmt.DecodePartitionMeta(v)
		if err != nil {
			return err
		}
		uids[string(k)] = m.UID
		if err := b.Set(storefmt.MetaKey(m.UID), v, nil); err != nil {
			return err
		}
		return b.Set(k, storefmt.UIDValue(m.UID), nil)
	})
	if err != nil {
		return err
	}
	return scanPrefix(db, storefmt.PrefixCreated, func(k, v []byte) error {
		d := newDecoder(k[1:])
		tenant, queue := string(d.Bytes()), string(d.Bytes())
		if d.Err != nil || len(d.B) != 8 {
			return fmt.Errorf("%w: created key %x", ErrStorage, k)
		}
		uid, ok := uids[string(storefmt.PartitionKey(tenant, queue, string(v)))]
		if !ok {
			return fmt.Errorf("%w: partition %s/%s is created but has no meta", ErrStorage, queue, v)
		}
		return b.Set(k, storefmt.CreatedValue(uid, string(v)), nil)
	})
}

// scanPrefix calls fn for each key of db that starts with prefix.
func scanPrefix(db *pebble.DB, prefix byte, fn func(k, v []byte) error) error {
	it, err := db.NewIter(&pebble.IterOptions{LowerBound: []byte{prefix}, UpperBound: wire.PrefixEnd([]byte{prefix})})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStorage, err)
	}
	defer it.Close()
	for it.First(); it.Valid(); it.Next() {
		if err := fn(it.Key(), it.Value()); err != nil {
			return fmt.Errorf("%w: upgrade: %w", ErrStorage, err)
		}
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("%w: %w", ErrStorage, err)
	}
	return nil
}

// StoreUpgrader is an Applier that keeps derived state of its own (an
// index, a count) that a store written before it existed lacks. When the
// store opens, and after a snapshot replaced it, UpgradeStore runs once
// for each such applier, in op kind order, through a Txn over the whole
// store, before any entry applies; it must be idempotent and cheap when
// nothing is to be done (a marker key of its own says so).
type StoreUpgrader interface {
	UpgradeStore(tx *Txn) error
}

// upgradeFamilies runs the appliers' UpgradeStore, each in one synced
// batch.
func (s *stateMachine) upgradeFamilies() error {
	kinds := make([]OpKind, 0, len(s.appliers))
	for k := range s.appliers {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	done := map[StoreUpgrader]bool{}
	for _, k := range kinds {
		u, ok := s.appliers[k].(StoreUpgrader)
		if !ok || done[u] {
			continue
		}
		done[u] = true
		b := s.db.NewIndexedBatch()
		var tx Txn
		tx.reset(b, nil, nil)
		tx.segs = s.segs
		err := u.UpgradeStore(&tx)
		if err == nil {
			err = tx.flush()
		}
		if err == nil {
			err = s.segs.write() // records the upgrade wrote, before their pointers commit
		}
		if err == nil && !b.Empty() {
			// With the segments' new length, so that Open never cuts them.
			err = b.Set(segKey, segValue(s.segs.position()), nil)
		}
		if err == nil && !b.Empty() {
			err = b.Commit(pebble.NoSync)
		}
		b.Close()
		if err != nil {
			return fmt.Errorf("%w: upgrade the store for op kind %d: %w", ErrStorage, k, err)
		}
	}
	return nil
}
