package consume

import (
	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
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

// newOp starts the encoding of an op of kind.
func newOp(kind byte) *family.Encoder { return &family.Encoder{opVersion, kind} }

// op is the raftlog op of an encoding newOp started.
func op(e *family.Encoder) raftlog.Op { return raftlog.Op{Kind: OpConsume, Data: *e} }

// Op encodes p as an op of a command.
func (p *PopOp) Op() raftlog.Op {
	e := newOp(kindPop)
	e.Str(p.Tenant, p.Queue, p.Group, p.Partition, p.LeaseID)
	e.Uvarint(p.Start, uint64(p.Batch), uint64(p.MaxPartitions))
	e.Varint(p.LeaseMicros, p.SkewMicros)
	e.Byte(family.Bit(p.AutoAck), p.Mode)
	e.Varint(p.From)
	if p.Conflate { // absent in the ops of older brokers
		e.Byte(1)
	}
	return op(e)
}

// Op encodes a as an op of a command.
func (a *AckOp) Op() raftlog.Op {
	e := newOp(kindAck)
	e.Str(a.Tenant)
	e.Varint(a.SkewMicros)
	appendAckItems(e, a.Items)
	return op(e)
}

func appendAckItems(e *family.Encoder, items []AckItem) {
	e.Uvarint(uint64(len(items)))
	for _, it := range items {
		e.Str(it.TransactionID)
		e.Uvarint(it.PartitionUID)
		e.Str(it.Group, it.LeaseID)
		e.Byte(it.Status)
		e.Str(it.Error)
	}
}

func decodeAckItems(d *family.Decoder) []AckItem {
	var out []AckItem
	n := d.Count(6)
	for range n {
		it := AckItem{TransactionID: d.Str(), PartitionUID: d.Uvarint(), Group: d.Str(), LeaseID: d.Str(), Status: d.Byte(), Error: d.Str()}
		d.Expect(it.Status <= StatusDLQ, "ack status")
		out = append(out, it)
	}
	return out
}

// Op encodes o as an op of a command.
func (o *SeekOp) Op() raftlog.Op {
	e := newOp(kindSeek)
	e.Str(o.Tenant, o.Queue, o.Group, o.Partition)
	e.Bool(o.ToEnd)
	e.Varint(o.To)
	return op(e)
}

// Op encodes o as an op of a command.
func (o *DeleteOp) Op() raftlog.Op {
	e := newOp(kindDelete)
	e.Str(o.Tenant, o.Queue, o.Group)
	if o.KeepSubscription { // absent in the ops of older brokers
		e.Byte(1)
	}
	return op(e)
}

// Op encodes o as an op of a command.
func (o *ReplayOp) Op() raftlog.Op { return strOp(kindReplay, o.Tenant, o.ID) }

// Op encodes o as an op of a command.
func (o *PurgeOp) Op() raftlog.Op { return strOp(kindPurge, o.Tenant, o.Queue, o.Group) }

// strOp is an op of strings alone.
func strOp(kind byte, ss ...string) raftlog.Op {
	e := newOp(kind)
	e.Str(ss...)
	return op(e)
}

// Op encodes t as an op of a command.
func (t *TxnOp) Op() raftlog.Op {
	e := newOp(kindTxn)
	e.Str(t.Tenant)
	e.Varint(t.SkewMicros)
	e.Strs(t.RequiredLeases)
	appendAckItems(e, t.Acks)
	// absent in the ops of older brokers
	if flags := family.Bit(t.Release) | family.Bit(t.Counts != nil)<<1; flags != 0 {
		e.Byte(flags)
	}
	for _, n := range t.Counts {
		e.Uvarint(uint64(max(n, 0)))
	}
	return op(e)
}

// Op encodes x as an op of a command.
func (x *ExtendOp) Op() raftlog.Op {
	e := newOp(kindExtend)
	e.Str(x.Tenant, x.LeaseID)
	e.Varint(x.Micros, x.SkewMicros)
	return op(e)
}

// decodeOp decodes an op: any of the family's (kindPop…).
func decodeOp(b []byte) (family.Op[*state], error) {
	return family.DecodeOp(family.OpCodec{Corrupt: ErrCorrupt, Version: opVersion, VersionWhat: "op version", TagWhat: "op kind"}, b, readOp, nil)
}

func readOp(kind byte, d *family.Decoder) family.Op[*state] {
	switch kind {
	case kindPop:
		p := &PopOp{Tenant: d.Str(), Queue: d.Str(), Group: d.Str(), Partition: d.Str(), LeaseID: d.Str()}
		p.Start = d.Uvarint()
		p.Batch, p.MaxPartitions = int(d.Uvarint()), int(d.Uvarint())
		p.LeaseMicros, p.SkewMicros = d.Varint(), d.Varint()
		p.AutoAck = d.Flag("flag")
		p.Mode = d.Byte()
		p.From = d.Varint()
		p.Conflate = d.Optional("pop flag")
		d.Expect(p.Batch >= 1 && p.MaxPartitions >= 1 && p.LeaseMicros >= 0 && p.SkewMicros >= 0 && p.Mode <= ModeAll, "pop bounds")
		return p
	case kindAck:
		return &AckOp{Tenant: d.Str(), SkewMicros: d.Varint(), Items: decodeAckItems(d)}
	case kindTxn:
		return decodeTxn(d)
	case kindExtend:
		x := &ExtendOp{Tenant: d.Str(), LeaseID: d.Str(), Micros: d.Varint(), SkewMicros: d.Varint()}
		d.Expect(x.Micros >= 0 && x.SkewMicros >= 0, "extend bounds")
		return x
	case kindSeek:
		o := &SeekOp{Tenant: d.Str(), Queue: d.Str(), Group: d.Str(), Partition: d.Str()}
		o.ToEnd = d.Flag("flag")
		o.To = d.Varint()
		return o
	case kindDelete:
		o := &DeleteOp{Tenant: d.Str(), Queue: d.Str(), Group: d.Str()}
		o.KeepSubscription = d.Optional("delete flag")
		return o
	case kindReplay:
		return &ReplayOp{Tenant: d.Str(), ID: d.Str()}
	case kindPurge:
		return &PurgeOp{Tenant: d.Str(), Queue: d.Str(), Group: d.Str()}
	case kindPosition:
		return decodePositionOp(d)
	case kindSubscription:
		return &SubscriptionOp{Tenant: d.Str(), Group: d.Str(), From: d.Varint()}
	case kindDropQueue:
		return &DropQueueOp{Tenant: d.Str(), Queue: d.Str()}
	case kindDeleteMessage:
		o := &DeleteMessageOp{Tenant: d.Str(), Queue: d.Str(), Partition: d.Str(), UID: d.Uvarint(), Offset: d.Varint(), TransactionID: d.Str()}
		d.Expect(o.Offset >= 0, "delete message offset")
		return o
	}
	return nil
}

func decodeTxn(d *family.Decoder) *TxnOp {
	t := &TxnOp{Tenant: d.Str(), SkewMicros: d.Varint(), RequiredLeases: d.Strs(), Acks: decodeAckItems(d)}
	if d.Err != nil || len(d.B) == 0 {
		return t
	}
	flags := d.Byte()
	d.Expect(flags != 0 && flags <= 3, "txn flags")
	t.Release = flags&1 != 0
	if flags&2 != 0 && d.Err == nil {
		t.Counts = make([]int, len(t.Acks))
		for i := range t.Counts {
			// A count is at most a pop's batch (contract.PopBatch): one
			// past maxCount is no entry a broker wrote.
			c := d.Uvarint()
			d.Expect(c <= maxCount, "txn count")
			t.Counts[i] = int(c)
		}
	}
	return t
}

// maxCount bounds a TxnOp count in the codec: well above any pop batch,
// so that a decoded count always encodes back to the same bytes.
const maxCount = 1 << 20
