package queuelog

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

func applyConfigure(tx *raftlog.Txn, at raftlog.ApplyInfo, op *ConfigureOp) ([]byte, error) {
	if err := checkNames(op.Tenant, op.Queue, ""); err != nil {
		return nil, fmt.Errorf("raftlog: configure: %w", err)
	}
	var patch map[string]json.RawMessage
	if err := json.Unmarshal(op.Options, &patch); err != nil || patch == nil {
		return nil, fmt.Errorf("raftlog: configure %s: options are not a JSON object", op.Queue)
	}
	// The proposer checked the options; a follower checks them again, so
	// that no option outside its range is ever stored.
	if _, err := contract.NormalizeOptions(patch); err != nil {
		return nil, fmt.Errorf("raftlog: configure %s: %w", op.Queue, err)
	}
	q, ok, err := getQueue(tx.Get, op.Tenant, op.Queue)
	if err != nil {
		return nil, err
	}
	if !ok {
		q = storefmt.QueueMeta{Created: at.Stamp, Options: []byte("{}")}
	}
	stored := map[string]json.RawMessage{}
	if !op.Replace {
		if err := json.Unmarshal(q.Options, &stored); err != nil {
			return nil, fmt.Errorf("%w: queue %s options", raftlog.ErrStorage, op.Queue)
		}
	}
	for k, v := range patch {
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			delete(stored, k)
		} else {
			stored[k] = v
		}
	}
	// encoding/json writes map keys sorted: the same bytes on every node.
	if q.Options, err = json.Marshal(stored); err != nil {
		return nil, fmt.Errorf("raftlog: configure %s: %w", op.Queue, err)
	}
	tx.Set(storefmt.QueueKey(op.Tenant, op.Queue), q.Encode())
	return q.Options, nil
}

func applyTrim(tx *raftlog.Txn, at raftlog.ApplyInfo, op *TrimOp) ([]byte, error) {
	if err := checkNames(op.Tenant, op.Queue, op.Partition); err != nil {
		return nil, fmt.Errorf("raftlog: trim: %w", err)
	}
	var uids []uint64
	add := func(v []byte) bool {
		uid, err := storefmt.DecodeUID(v)
		if err == nil {
			uids = append(uids, uid)
		}
		return err == nil
	}
	var err error
	if op.Partition != "" {
		v, ok, gerr := tx.Get(storefmt.PartitionKey(op.Tenant, op.Queue, op.Partition))
		if err = gerr; err == nil && ok && !add(v) {
			err = fmt.Errorf("%w: partition uid", raftlog.ErrStorage)
		}
	} else {
		prefix := storefmt.QueuePrefix(storefmt.PrefixPartition, op.Tenant, op.Queue)
		bad := false
		err = tx.Scan(prefix, wire.PrefixEnd(prefix), func(_, v []byte) bool { bad = !add(v); return !bad })
		if err == nil && bad {
			err = fmt.Errorf("%w: partition uid", raftlog.ErrStorage)
		}
	}
	if err != nil {
		return nil, err
	}
	var deleted uint64
	for _, uid := range uids {
		n, err := trimPartition(tx, at, uid, op.Before)
		if err != nil {
			return nil, err
		}
		deleted += n
	}
	return binary.AppendUvarint(nil, deleted), nil
}

// trimPartition deletes the records of partition uid stamped before
// before, and their dedup entries, and moves its log start past them.
func trimPartition(tx *raftlog.Txn, at raftlog.ApplyInfo, uid uint64, before int64) (uint64, error) {
	p, err := storefmt.LoadMeta(tx.Get, uid)
	if err != nil {
		return 0, err
	}
	start := p.LogStart
	var dedups [][]byte
	var bad error
	err = tx.Scan(storefmt.RecordKey(p.UID, start), storefmt.RecordKey(p.UID, p.NextOffset), func(k, v []byte) bool {
		stamp, txid, derr := storefmt.RecordHead(v)
		if derr != nil || stamp >= before {
			bad = derr
			return false
		}
		off := int64(binary.BigEndian.Uint64(k[9:]))
		if off >= p.DedupFrom { // below it, no entry is left
			dedups = append(dedups, storefmt.DedupKey(p.UID, txid))
		}
		p.LogStart = off + 1
		return true
	})
	if err == nil {
		err = bad
	}
	if err != nil || p.LogStart == start {
		return 0, err
	}
	tx.DeleteRange(storefmt.RecordKey(p.UID, start), storefmt.RecordKey(p.UID, p.LogStart))
	p.DedupFrom = max(p.DedupFrom, p.LogStart)
	for _, dk := range dedups {
		dv, ok, err := tx.Get(dk)
		if err != nil {
			return 0, err
		}
		if off, n := binary.Varint(dv); ok && n > 0 && off < p.LogStart {
			tx.Delete(dk)
		}
	}
	tx.Set(storefmt.MetaKey(p.UID), p.Encode())
	tx.Notify(watchKey(at.Shard, p.UID))
	return uint64(p.LogStart - start), nil
}

// checkNames checks a tenant, a queue and (when not "") a partition
// against the contract: a follower applying an entry trusts nothing its
// proposer checked.
func checkNames(tenant, queue, partition string) error {
	if err := contract.Tenant.Check("tenant", tenant); err != nil {
		return err
	}
	if err := contract.Queue.Check("queue", queue); err != nil {
		return err
	}
	if partition != "" {
		return contract.Partition.Check("partition", partition)
	}
	return nil
}

// retained counts the records a queue holds (not deleted by retention):
// what maxSize bounds. It reads every partition's meta, so only a push to
// a queue with maxSize pays for it.
func retained(v *raftlog.View, tenant, queue string) (int64, error) {
	var n int64
	err := EachPartition(v, tenant, queue, 0, func(p PartitionInfo) (bool, error) {
		n += p.LastOffset + 1 - p.LogStart
		return true, nil
	})
	return n, err
}

// applyDedupSweep deletes the dedup entries of a partition's records that
// are out of the queue's dedup window at the entry's stamp, walking the
// records from DedupFrom in offset (so stamp) order, at most op.Limit of
// them. An entry is deleted only while it is still the record's: a later
// push of the same transactionId, out of the window, owns it then.
func applyDedupSweep(tx *raftlog.Txn, at raftlog.ApplyInfo, op *DedupSweepOp) ([]byte, error) {
	if err := checkNames(op.Tenant, op.Queue, op.Partition); err != nil {
		return nil, fmt.Errorf("raftlog: dedup sweep: %w", err)
	}
	q, ok, err := getQueue(tx.Get, op.Tenant, op.Queue)
	if err != nil || !ok {
		return binary.AppendUvarint(nil, 0), err
	}
	p, ok, err := loadPartition(tx.Get, op.Tenant, op.Queue, op.Partition)
	if err != nil || !ok {
		return binary.AppendUvarint(nil, 0), err
	}
	cutoff := contract.SubSat(at.Stamp, contract.Micros(contract.ParseQueueOptions(q.Options).DedupWindowSeconds))
	from := max(p.DedupFrom, p.LogStart)
	type done struct {
		key []byte
		off int64
	}
	var walked []done
	next, limit := from, max(op.Limit, 1)
	var bad error
	err = tx.Scan(storefmt.RecordKey(p.UID, from), storefmt.RecordKey(p.UID, p.NextOffset), func(k, v []byte) bool {
		stamp, txid, derr := storefmt.RecordHead(v)
		if derr != nil {
			bad = derr
			return false
		}
		if stamp >= cutoff || len(walked) == limit {
			return false
		}
		off := int64(binary.BigEndian.Uint64(k[9:]))
		walked = append(walked, done{storefmt.DedupKey(p.UID, txid), off})
		next = off + 1
		return true
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		return nil, err
	}
	var deleted uint64
	for _, w := range walked {
		dv, ok, err := tx.Get(w.key)
		if err != nil {
			return nil, err
		}
		if off, n := binary.Varint(dv); ok && n > 0 && off == w.off {
			tx.Delete(w.key)
			deleted++
		}
	}
	if next != p.DedupFrom {
		p.DedupFrom = next
		tx.Set(storefmt.MetaKey(p.UID), p.Encode())
	}
	return binary.AppendUvarint(nil, deleted), nil
}
