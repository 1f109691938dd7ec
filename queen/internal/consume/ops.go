package consume

import (
	"encoding/binary"
	"fmt"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// OpConsume is the raftlog op kind of the consuming family: one pop, ack
// call or lease extension per op.
const OpConsume raftlog.OpKind = 512

// The op's first byte after the version says which it is.
const (
	kindPop    byte = 1
	kindAck    byte = 2
	kindExtend byte = 3
	kindTxn    byte = 4
	kindSeek   byte = 5
	kindDelete byte = 6
	kindReplay byte = 7
	kindPurge  byte = 8
)

// Where a group that never read a partition starts (PopOp.Mode).
const (
	ModeNew byte = 0 // at the first record stamped at or after the group's first pop
	ModeAll byte = 1 // at the partition's first record
)

// The statuses of an AckItem.
const (
	StatusCompleted byte = 0
	StatusFailed    byte = 1
	StatusRetry     byte = 2
	StatusDLQ       byte = 3
)

// PopOp leases messages of one queue to one consumer of a group.
type PopOp struct {
	Tenant, Queue, Group string
	// Partition "" pops any partition of the queue, visiting them in
	// creation order from the one whose Seq is Start (wrapping around), so
	// that proposers that choose Start at random spread their consumers.
	Partition string
	Start     uint64
	// Batch bounds the messages of the call, MaxPartitions the partitions
	// it leases (one lease id).
	Batch, MaxPartitions int
	// LeaseMicros is the lease's length; 0 means the queue's leaseTime.
	LeaseMicros int64
	// SkewMicros is the clock-skew margin (QUEEN_RAFT_MAX_CLOCK_SKEW_MS)
	// the partition stays held past the lease's end.
	SkewMicros int64
	// LeaseID is the lease's id, chosen by the proposer.
	LeaseID string
	// AutoAck settles the messages as they are delivered: no lease.
	AutoAck bool
	// Mode and From are the subscription of a group's first pop.
	Mode byte
	From int64
	// Conflate asks for conflation (API.md §2): per partition only the
	// newest message is delivered, those behind it retired. The group's
	// first pop stores it as the group's policy, which later pops follow
	// whatever they ask (PopResult.Conflict says when they differ).
	Conflate bool
}

// AckItem settles one message, named by its partition's id and its
// transaction id, in a group. LeaseID "" is not fenced.
type AckItem struct {
	TransactionID string
	PartitionUID  uint64
	Group         string
	LeaseID       string
	Status        byte
	Error         string
}

// AckOp settles messages of one tenant; its items are independent.
type AckOp struct {
	Tenant     string
	SkewMicros int64
	Items      []AckItem
}

// TxnOp is the consuming part of a transaction: leases that must still
// hold their partitions and acks that must all succeed, or the whole entry
// (with its pushes and KV ops) rolls back (DecodeTxnRollback).
type TxnOp struct {
	Tenant         string
	SkewMicros     int64
	RequiredLeases []string
	Acks           []AckItem
	// Release frees each partition an ack's lease still holds once the
	// acks are applied (a stream cycle's release_lease): the messages the
	// acks did not settle are delivered again at once. Without it a lease
	// is released only when its last message settles.
	Release bool
	// Counts, when set, has one count per ack (as many as Acks): a count
	// above 0 makes its (completed) ack settle what a stream worker
	// consumed, exactly the messages its lease holds on the partition up
	// to the named one in the streaming SDK's order (the record's stamp in
	// whole milliseconds, then the message id's text), not the offsets
	// below it (consumed).
	Counts []int
}

// SeekOp moves a group's cursor on a queue's partitions (Partition "":
// all of them) to the end of each, or to its first record stamped at or
// after To; it releases the group's leases there and forgets what it knew
// of offsets past the old cursor.
type SeekOp struct {
	Tenant, Queue, Group, Partition string
	ToEnd                           bool
	To                              int64
}

// DeleteOp forgets a consumer group on a queue (Queue "": on every queue):
// its subscription, cursors and leases. Its dead letters stay. With
// KeepSubscription (deleteMetadata=false) the subscription stays: the
// group starts again where it subscribed.
type DeleteOp struct {
	Tenant, Queue, Group string
	KeepSubscription     bool
}

// ReplayOp takes dead letter ID out of the DLQ; the same command pushes its
// copy (the op before it is raftlog's push). A letter already gone rolls
// the entry back (DecodeTxnRollback's form, index -1).
type ReplayOp struct {
	Tenant, ID string
}

// PurgeOp deletes a queue's dead letters, of one group or (Group "") all.
type PurgeOp struct {
	Tenant, Queue, Group string
}

// ExtendOp moves a live lease's end to Micros after the entry's stamp
// (Micros 0: the lease's own length, as its pop set it).
type ExtendOp struct {
	Tenant, LeaseID string
	Micros          int64
	SkewMicros      int64
}

const opVersion = 1

// Op encodes p as an op of a command.
func (p *PopOp) Op() raftlog.Op {
	b := []byte{opVersion, kindPop}
	for _, s := range []string{p.Tenant, p.Queue, p.Group, p.Partition, p.LeaseID} {
		b = wire.AppendString(b, s)
	}
	b = binary.AppendUvarint(b, p.Start)
	b = binary.AppendUvarint(b, uint64(p.Batch))
	b = binary.AppendUvarint(b, uint64(p.MaxPartitions))
	b = binary.AppendVarint(b, p.LeaseMicros)
	b = binary.AppendVarint(b, p.SkewMicros)
	b = append(b, boolByte(p.AutoAck), p.Mode)
	b = binary.AppendVarint(b, p.From)
	if p.Conflate { // absent in the ops of older brokers
		b = append(b, 1)
	}
	return raftlog.Op{Kind: OpConsume, Data: b}
}

// Op encodes a as an op of a command.
func (a *AckOp) Op() raftlog.Op {
	b := []byte{opVersion, kindAck}
	b = wire.AppendString(b, a.Tenant)
	b = binary.AppendVarint(b, a.SkewMicros)
	return raftlog.Op{Kind: OpConsume, Data: appendAckItems(b, a.Items)}
}

func appendAckItems(b []byte, items []AckItem) []byte {
	b = binary.AppendUvarint(b, uint64(len(items)))
	for _, it := range items {
		b = wire.AppendString(b, it.TransactionID)
		b = binary.AppendUvarint(b, it.PartitionUID)
		b = wire.AppendString(b, it.Group)
		b = wire.AppendString(b, it.LeaseID)
		b = append(b, it.Status)
		b = wire.AppendString(b, it.Error)
	}
	return b
}

func decodeAckItems(d *wire.Decoder) []AckItem {
	var out []AckItem
	n := d.Count(6)
	for range n {
		it := AckItem{TransactionID: str(d), PartitionUID: d.Uvarint(), Group: str(d), LeaseID: str(d), Status: d.Byte(), Error: str(d)}
		if d.Err == nil && it.Status > StatusDLQ {
			d.Fail("ack status")
		}
		out = append(out, it)
	}
	return out
}

// Op encodes o as an op of a command.
func (o *SeekOp) Op() raftlog.Op {
	b := []byte{opVersion, kindSeek}
	for _, x := range []string{o.Tenant, o.Queue, o.Group, o.Partition} {
		b = wire.AppendString(b, x)
	}
	b = append(b, boolByte(o.ToEnd))
	return raftlog.Op{Kind: OpConsume, Data: binary.AppendVarint(b, o.To)}
}

// Op encodes o as an op of a command.
func (o *DeleteOp) Op() raftlog.Op {
	b := []byte{opVersion, kindDelete}
	for _, x := range []string{o.Tenant, o.Queue, o.Group} {
		b = wire.AppendString(b, x)
	}
	if o.KeepSubscription { // absent in the ops of older brokers
		b = append(b, 1)
	}
	return raftlog.Op{Kind: OpConsume, Data: b}
}

// Op encodes o as an op of a command.
func (o *ReplayOp) Op() raftlog.Op {
	b := wire.AppendString([]byte{opVersion, kindReplay}, o.Tenant)
	return raftlog.Op{Kind: OpConsume, Data: wire.AppendString(b, o.ID)}
}

// Op encodes o as an op of a command.
func (o *PurgeOp) Op() raftlog.Op {
	b := []byte{opVersion, kindPurge}
	for _, x := range []string{o.Tenant, o.Queue, o.Group} {
		b = wire.AppendString(b, x)
	}
	return raftlog.Op{Kind: OpConsume, Data: b}
}

// Op encodes t as an op of a command.
func (t *TxnOp) Op() raftlog.Op {
	b := []byte{opVersion, kindTxn}
	b = wire.AppendString(b, t.Tenant)
	b = binary.AppendVarint(b, t.SkewMicros)
	b = binary.AppendUvarint(b, uint64(len(t.RequiredLeases)))
	for _, l := range t.RequiredLeases {
		b = wire.AppendString(b, l)
	}
	b = appendAckItems(b, t.Acks)
	var flags byte // absent in the ops of older brokers
	if t.Release {
		flags |= 1
	}
	if t.Counts != nil {
		flags |= 2
	}
	if flags != 0 {
		b = append(b, flags)
	}
	if t.Counts != nil {
		for _, n := range t.Counts {
			b = binary.AppendUvarint(b, uint64(max(n, 0)))
		}
	}
	return raftlog.Op{Kind: OpConsume, Data: b}
}

// Op encodes e as an op of a command.
func (e *ExtendOp) Op() raftlog.Op {
	b := []byte{opVersion, kindExtend}
	b = wire.AppendString(b, e.Tenant)
	b = wire.AppendString(b, e.LeaseID)
	b = binary.AppendVarint(b, e.Micros)
	b = binary.AppendVarint(b, e.SkewMicros)
	return raftlog.Op{Kind: OpConsume, Data: b}
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// decodeOp decodes an op into a *PopOp, *AckOp or *ExtendOp.
func decodeOp(b []byte) (any, error) {
	d := wire.NewDecoder(b, ErrCorrupt)
	if v := d.Byte(); d.Err == nil && v != opVersion {
		d.Fail(fmt.Sprintf("op version %d", v))
	}
	var out any
	switch kind := d.Byte(); kind {
	case kindPop:
		p := &PopOp{Tenant: str(&d), Queue: str(&d), Group: str(&d), Partition: str(&d), LeaseID: str(&d)}
		p.Start = d.Uvarint()
		p.Batch, p.MaxPartitions = int(d.Uvarint()), int(d.Uvarint())
		p.LeaseMicros, p.SkewMicros = d.Varint(), d.Varint()
		p.AutoAck = flag(&d)
		p.Mode = d.Byte()
		p.From = d.Varint()
		if d.Err == nil && len(d.B) > 0 {
			if p.Conflate = d.Byte() == 1; !p.Conflate {
				d.Fail("pop flag")
			}
		}
		if d.Err == nil && (p.Batch < 1 || p.MaxPartitions < 1 || p.LeaseMicros < 0 || p.SkewMicros < 0 || p.Mode > ModeAll) {
			d.Fail("pop bounds")
		}
		out = p
	case kindAck:
		out = &AckOp{Tenant: str(&d), SkewMicros: d.Varint(), Items: decodeAckItems(&d)}
	case kindTxn:
		t := &TxnOp{Tenant: str(&d), SkewMicros: d.Varint()}
		n := d.Count(1)
		for range n {
			t.RequiredLeases = append(t.RequiredLeases, str(&d))
		}
		t.Acks = decodeAckItems(&d)
		if d.Err == nil && len(d.B) > 0 {
			flags := d.Byte()
			if flags == 0 || flags > 3 {
				d.Fail("txn flags")
			}
			t.Release = flags&1 != 0
			if flags&2 != 0 && d.Err == nil {
				t.Counts = make([]int, len(t.Acks))
				for i := range t.Counts {
					// A count is at most a pop's batch (contract.PopBatch):
					// one past maxCount is no entry a broker wrote.
					c := d.Uvarint()
					if c > maxCount {
						d.Fail("txn count")
					}
					t.Counts[i] = int(c)
				}
			}
		}
		out = t
	case kindExtend:
		e := &ExtendOp{Tenant: str(&d), LeaseID: str(&d), Micros: d.Varint(), SkewMicros: d.Varint()}
		if d.Err == nil && (e.Micros < 0 || e.SkewMicros < 0) {
			d.Fail("extend bounds")
		}
		out = e
	case kindSeek:
		o := &SeekOp{Tenant: str(&d), Queue: str(&d), Group: str(&d), Partition: str(&d)}
		o.ToEnd = flag(&d)
		o.To = d.Varint()
		out = o
	case kindDelete:
		o := &DeleteOp{Tenant: str(&d), Queue: str(&d), Group: str(&d)}
		if d.Err == nil && len(d.B) > 0 {
			if o.KeepSubscription = d.Byte() == 1; !o.KeepSubscription {
				d.Fail("delete flag")
			}
		}
		out = o
	case kindReplay:
		out = &ReplayOp{Tenant: str(&d), ID: str(&d)}
	case kindPurge:
		out = &PurgeOp{Tenant: str(&d), Queue: str(&d), Group: str(&d)}
	case kindPosition:
		out = decodePositionOp(&d)
	case kindSubscription:
		out = &SubscriptionOp{Tenant: str(&d), Group: str(&d), From: d.Varint()}
	case kindDropQueue:
		out = &DropQueueOp{Tenant: str(&d), Queue: str(&d)}
	case kindDeleteMessage:
		o := &DeleteMessageOp{Tenant: str(&d), Queue: str(&d), Partition: str(&d), UID: d.Uvarint(), Offset: d.Varint(), TransactionID: str(&d)}
		if d.Err == nil && o.Offset < 0 {
			d.Fail("delete message offset")
		}
		out = o
	default:
		d.Fail(fmt.Sprintf("op kind %d", kind))
	}
	if d.Err == nil && len(d.B) != 0 {
		d.Fail("trailing bytes")
	}
	if d.Err != nil {
		return nil, d.Err
	}
	return out, nil
}

func str(d *wire.Decoder) string { return string(d.Bytes()) }

func flag(d *wire.Decoder) bool {
	switch d.Byte() {
	case 0:
		return false
	case 1:
		return true
	}
	d.Fail("flag")
	return false
}

// maxCount bounds a TxnOp count in the codec: well above any pop batch,
// so that a decoded count always encodes back to the same bytes.
const maxCount = 1 << 20
