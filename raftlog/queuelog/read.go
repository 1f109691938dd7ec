package queuelog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// Read errors of the queue log.
var (
	// ErrUnknownPartition: the tenant has no such queue, or the queue no
	// such partition.
	ErrUnknownPartition = errors.New("raftlog: unknown queue or partition")
	// ErrOffsetOutOfRange: the offset is below the partition's log start
	// (retention deleted it) or above its high watermark.
	ErrOffsetOutOfRange = errors.New("raftlog: offset out of range")
)

// Record is a record as the queue log reads it back.
type Record struct {
	Offset int64
	// Ts is the stamp of the entry that pushed it (µs, the broker clock):
	// the record's ts from the push to the lake's JSONL line.
	Ts            int64
	MessageID     [16]byte
	TransactionID string
	// TraceID is the producer's trace id (a UUID), zero when it sent none.
	TraceID [16]byte
	// ProducerSub is the subject of the credential that pushed it, ""
	// when none (PushItem.ProducerSub).
	ProducerSub string
	Payload     []byte
}

// Batch is what ReadRecords answers.
type Batch struct {
	Records []Record
	// HighWatermark is the offset the partition's next record will get.
	HighWatermark int64
	// LogStart is the partition's first offset not deleted by retention.
	LogStart int64
}

// ReadLimits bound one ReadRecords call. The first record is returned even
// when it alone passes MaxBytes.
type ReadLimits struct {
	MaxRecords int // 0: no bound
	MaxBytes   int // payload bytes; 0: no bound
}

// lookupPartition reads a partition's meta by its names; the error wraps
// ErrUnknownPartition when it does not exist.
func lookupPartition(v *raftlog.View, tenant, queue, partition string) (storefmt.PartitionMeta, error) {
	p, ok, err := loadPartition(v.Get, tenant, queue, partition)
	if err == nil && !ok {
		err = fmt.Errorf("%w: %s/%s", ErrUnknownPartition, queue, partition)
	}
	return p, err
}

// loadPartition reads a partition's meta by its names: the uid its 'P' key
// holds, then the 'M' key of that uid. ok is false when it does not exist.
func loadPartition(get func([]byte) ([]byte, bool, error), tenant, queue, partition string) (storefmt.PartitionMeta, bool, error) {
	b, ok, err := get(storefmt.PartitionKey(tenant, queue, partition))
	if err != nil || !ok {
		return storefmt.PartitionMeta{}, false, err
	}
	uid, err := storefmt.DecodeUID(b)
	if err != nil {
		return storefmt.PartitionMeta{}, false, err
	}
	p, err := storefmt.LoadMeta(get, uid)
	return p, err == nil, err
}

// readRecord decodes an 'R' value, reading a pointer's bytes from the
// segments.
func readRecord(v *raftlog.View, val []byte) (storefmt.StoredRecord, error) {
	b, err := v.RecordBytes(val)
	if err != nil {
		return storefmt.StoredRecord{}, err
	}
	return storefmt.DecodeRecord(b)
}

// TransactionOffset is the offset the dedup index holds for transaction
// id txid on the partition whose UID is uid (PartitionInfo.UID): the
// latest record pushed there with that id and deduplication on. ok is
// false when the index has none: never pushed there, pushed with
// deduplication off (dedupWindowSeconds 0, or no transactionId), or swept
// out of the window. It reads one key, never the records.
func TransactionOffset(v *raftlog.View, uid uint64, txid string) (off int64, ok bool, err error) {
	b, ok, err := v.Get(storefmt.DedupKey(uid, txid))
	if err != nil || !ok {
		return 0, false, err
	}
	d := newDecoder(b)
	off = d.Varint()
	if d.Err != nil {
		return 0, false, fmt.Errorf("%w: dedup entry of partition %d: %w", raftlog.ErrStorage, uid, d.Err)
	}
	return off, true, nil
}

// ReadRecords reads a partition's records from offset from on.
func ReadRecords(v *raftlog.View, tenant, queue, partition string, from int64, lim ReadLimits) (Batch, error) {
	p, err := lookupPartition(v, tenant, queue, partition)
	if err != nil {
		return Batch{}, err
	}
	b := Batch{HighWatermark: p.NextOffset, LogStart: p.LogStart}
	if from < p.LogStart || from > p.NextOffset {
		return b, fmt.Errorf("%w: offset %d of %s/%s, which holds %d..%d", ErrOffsetOutOfRange, from, queue, partition, p.LogStart, p.NextOffset)
	}
	bytes := 0
	var derr error
	err = v.Scan(storefmt.RecordKey(p.UID, from), storefmt.RecordKey(p.UID, p.NextOffset), func(k, val []byte) bool {
		r, err := readRecord(v, val)
		if err != nil {
			derr = err
			return false
		}
		if len(b.Records) > 0 && lim.MaxBytes > 0 && bytes+len(r.Payload) > lim.MaxBytes {
			return false
		}
		bytes += len(r.Payload)
		r.Payload = append([]byte(nil), r.Payload...)
		b.Records = append(b.Records, Record{Offset: int64(binary.BigEndian.Uint64(k[9:])), Ts: r.Stamp,
			MessageID: r.MsgID, TransactionID: r.TxID, TraceID: r.TraceID, ProducerSub: r.ProducerSub, Payload: r.Payload})
		return lim.MaxRecords <= 0 || len(b.Records) < lim.MaxRecords
	})
	if err == nil {
		err = derr
	}
	return b, err
}

// OffsetAt is what OffsetForTime answers.
type OffsetAt struct {
	// Found is false when no record at or after the time exists (yet).
	Found         bool
	Offset, Stamp int64
	HighWatermark int64
	LogStart      int64
}

// OffsetForTime finds the first record of a partition stamped at or after
// ts. Stamps never decrease along a partition, so it searches by halves.
func OffsetForTime(v *raftlog.View, tenant, queue, partition string, ts int64) (OffsetAt, error) {
	p, err := lookupPartition(v, tenant, queue, partition)
	if err != nil {
		return OffsetAt{}, err
	}
	a := OffsetAt{HighWatermark: p.NextOffset, LogStart: p.LogStart}
	lo, hi := p.LogStart, p.NextOffset // the answer is in [lo, hi]; hi means none
	for lo < hi {
		mid := lo + (hi-lo)/2
		val, ok, err := v.Get(storefmt.RecordKey(p.UID, mid))
		if err != nil {
			return a, err
		}
		if !ok {
			return a, fmt.Errorf("%w: record %d of %s/%s missing", raftlog.ErrStorage, mid, queue, partition)
		}
		stamp, err := storefmt.RecordStamp(val)
		if err != nil {
			return a, err
		}
		if stamp >= ts {
			hi = mid
			a.Stamp = stamp
		} else {
			lo = mid + 1
		}
	}
	if lo < p.NextOffset {
		a.Found, a.Offset = true, lo
		if val, ok, err := v.Get(storefmt.RecordKey(p.UID, lo)); err == nil && ok {
			a.Stamp, err = storefmt.RecordStamp(val)
			return a, err
		}
	}
	return a, nil
}

// PartitionInfo describes one partition of a queue.
type PartitionInfo struct {
	Name string
	// ID is the UUID of the partition's incarnation.
	ID [16]byte
	// LastOffset is the offset of the last record, -1 when none.
	LastOffset int64
	LogStart   int64
	// LastWrite is the stamp of the last push to it.
	LastWrite int64
	// Seq is its place in the queue's creation order, from 1: the cursor.
	Seq uint64
	// UID is its shard-wide numeric id, never reused: what the HTTP API
	// calls partitionId.
	UID uint64
	// Created is the stamp of the push that created it.
	Created int64
	// DedupFrom is the first offset whose dedup entry may still live
	// (DedupSweepOp moves it).
	DedupFrom int64
}

// Partition describes one partition; the error wraps ErrUnknownPartition
// when the queue has no such partition.
func Partition(v *raftlog.View, tenant, queue, partition string) (PartitionInfo, error) {
	p, err := lookupPartition(v, tenant, queue, partition)
	if err != nil {
		return PartitionInfo{}, err
	}
	return partitionInfo(p, partition), nil
}

// partitionInfo describes the partition named name whose meta is p.
func partitionInfo(p storefmt.PartitionMeta, name string) PartitionInfo {
	return PartitionInfo{Name: name, ID: p.ID, LastOffset: p.NextOffset - 1, LogStart: p.LogStart,
		LastWrite: p.LastWrite, Seq: p.Seq, UID: p.UID, Created: p.Created, DedupFrom: max(p.DedupFrom, p.LogStart)}
}

// PartitionsChanged lists a queue's partitions last written at or after
// since (math.MinInt64: all), in creation order, after the one whose Seq is
// after, up to limit (at least 1). next is the Seq to pass as after for the
// next page, 0 when there is none.
func PartitionsChanged(v *raftlog.View, tenant, queue string, since int64, after uint64, limit int) (parts []PartitionInfo, next uint64, err error) {
	if _, ok, err := getQueue(v.Get, tenant, queue); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("%w: queue %s", ErrUnknownPartition, queue)
		}
		return nil, 0, err
	}
	limit = max(limit, 1)
	var scanErr error
	prefix := storefmt.QueuePrefix(storefmt.PrefixCreated, tenant, queue)
	err = v.Scan(storefmt.CreatedKey(tenant, queue, after+1), wire.PrefixEnd(prefix), func(k, val []byte) bool {
		seq := binary.BigEndian.Uint64(k[len(k)-8:])
		if len(parts) == limit {
			next = seq - 1
			return false
		}
		uid, name, err := storefmt.DecodeCreated(val)
		var p storefmt.PartitionMeta
		if err == nil {
			p, err = storefmt.LoadMeta(v.Get, uid)
		}
		if err != nil {
			scanErr = err
			return false
		}
		if p.LastWrite >= since {
			parts = append(parts, partitionInfo(p, name))
		}
		return true
	})
	if err == nil {
		err = scanErr
	}
	return parts, next, err
}

// EachPartition calls fn for a queue's partitions in creation order, from
// the one after Seq after (0: the first), until fn returns false or an
// error, which it returns. A queue that does not exist has no partitions.
// fn runs between pages of the scan, so it may read and write freely.
func EachPartition(v *raftlog.View, tenant, queue string, after uint64, fn func(PartitionInfo) (more bool, err error)) error {
	for {
		parts, next, err := PartitionsChanged(v, tenant, queue, math.MinInt64, after, 256)
		if errors.Is(err, ErrUnknownPartition) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, p := range parts {
			if more, err := fn(p); err != nil || !more {
				return err
			}
		}
		if next == 0 {
			return nil
		}
		after = next
	}
}

// QueueInfo describes one queue.
type QueueInfo struct {
	Name       string
	Created    int64
	Partitions uint64
	// Options is the stored options, a JSON object.
	Options []byte
}

// Queue reads one queue's description; ok is false when it does not exist.
func Queue(v *raftlog.View, tenant, queue string) (QueueInfo, bool, error) {
	q, ok, err := getQueue(v.Get, tenant, queue)
	if err != nil || !ok {
		return QueueInfo{}, false, err
	}
	return QueueInfo{Name: queue, Created: q.Created, Partitions: q.Partitions, Options: q.Options}, true, nil
}

// Queues lists a tenant's queues by name.
func Queues(v *raftlog.View, tenant string) ([]QueueInfo, error) {
	prefix := appendName([]byte{storefmt.PrefixQueue}, tenant)
	var out []QueueInfo
	var derr error
	err := v.Scan(prefix, wire.PrefixEnd(prefix), func(k, val []byte) bool {
		d := newDecoder(k[len(prefix):])
		name := string(d.Bytes())
		q, err := storefmt.DecodeQueueMeta(val)
		if err != nil {
			derr = err
			return false
		}
		out = append(out, QueueInfo{Name: name, Created: q.Created, Partitions: q.Partitions, Options: append([]byte(nil), q.Options...)})
		return true
	})
	if err == nil {
		err = derr
	}
	// Keys order names by length first (they are length-prefixed).
	slices.SortFunc(out, func(a, b QueueInfo) int { return strings.Compare(a.Name, b.Name) })
	return out, err
}

// TenantQueue names one queue of one tenant.
type TenantQueue struct {
	Tenant string
	QueueInfo
}

// AllQueues lists every tenant's queues, by tenant then name bytes.
func AllQueues(v *raftlog.View) ([]TenantQueue, error) {
	prefix := []byte{storefmt.PrefixQueue}
	var out []TenantQueue
	var derr error
	err := v.Scan(prefix, wire.PrefixEnd(prefix), func(k, val []byte) bool {
		d := newDecoder(k[1:])
		tenant, name := string(d.Bytes()), string(d.Bytes())
		q, err := storefmt.DecodeQueueMeta(val)
		if err != nil || d.Err != nil {
			derr = fmt.Errorf("%w: queue key", raftlog.ErrStorage)
			return false
		}
		out = append(out, TenantQueue{Tenant: tenant, QueueInfo: QueueInfo{Name: name, Created: q.Created,
			Partitions: q.Partitions, Options: append([]byte(nil), q.Options...)}})
		return true
	})
	if err == nil {
		err = derr
	}
	return out, err
}
