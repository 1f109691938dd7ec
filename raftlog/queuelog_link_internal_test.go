package raftlog

import "github.com/queen-mq/queen-go/contract"

// The state machine's internal tests drive it with the queue log's ops,
// which package queuelog holds; a test of package raftlog cannot import
// it (queuelog imports raftlog), so queuelog_link_test.go, of package
// raftlog_test, sets QueueLog from its init, and the types below stand in
// for queuelog's in these tests: same names, same fields.

// QueueLog is the queue log as the internal tests reach it.
var QueueLog struct {
	// Appliers is queuelog.Appliers.
	Appliers func() map[OpKind]Applier
	// Op encodes one of the op types below as queuelog's op of that name.
	Op func(op any) Op
	// DecodePushAnswers is queuelog.DecodePushAnswers.
	DecodePushAnswers func(b []byte) ([]PushAnswer, error)
	// ReadRecords and PartitionsChanged are queuelog's readers.
	ReadRecords       func(v *View, tenant, queue, partition string, from int64, lim ReadLimits) (Batch, error)
	PartitionsChanged func(v *View, tenant, queue string, since int64, after uint64, limit int) ([]PartitionInfo, uint64, error)
}

// The queue log's op kinds (queuelog.OpPush to queuelog.OpDeleteQueue).
const (
	OpPush OpKind = iota + 1
	OpConfigure
	OpTrim
	OpDedupSweep
	OpDeleteQueue
)

// PushItem is contract.PushItem, as queuelog.PushItem is.
type PushItem = contract.PushItem

// PushOp stands for queuelog.PushOp.
type PushOp struct {
	Tenant string
	Items  []PushItem
}

// Op encodes p (queuelog.PushOp.Op).
func (p PushOp) Op() Op { return QueueLog.Op(p) }

// ConfigureOp stands for queuelog.ConfigureOp.
type ConfigureOp struct {
	Tenant, Queue string
	Replace       bool
	Options       []byte
}

// Op encodes c (queuelog.ConfigureOp.Op).
func (c ConfigureOp) Op() Op { return QueueLog.Op(c) }

// TrimOp stands for queuelog.TrimOp.
type TrimOp struct {
	Tenant, Queue, Partition string
	Before                   int64
}

// Op encodes o (queuelog.TrimOp.Op).
func (o TrimOp) Op() Op { return QueueLog.Op(o) }

// DedupSweepOp stands for queuelog.DedupSweepOp.
type DedupSweepOp struct {
	Tenant, Queue, Partition string
	Limit                    int
}

// Op encodes o (queuelog.DedupSweepOp.Op).
func (o DedupSweepOp) Op() Op { return QueueLog.Op(o) }

// PushAnswer stands for queuelog.PushAnswer.
type PushAnswer struct {
	Duplicate   bool
	Full        bool
	Offset      int64
	MessageID   [16]byte
	PartitionID [16]byte
}

// DecodePushAnswers is queuelog.DecodePushAnswers.
func DecodePushAnswers(b []byte) ([]PushAnswer, error) { return QueueLog.DecodePushAnswers(b) }

// ReadLimits stands for queuelog.ReadLimits.
type ReadLimits struct{ MaxRecords, MaxBytes int }

// Record stands for queuelog.Record.
type Record struct {
	Offset        int64
	Ts            int64
	MessageID     [16]byte
	TransactionID string
	TraceID       [16]byte
	ProducerSub   string
	Payload       []byte
}

// Batch stands for queuelog.Batch.
type Batch struct {
	Records       []Record
	HighWatermark int64
	LogStart      int64
}

// PartitionInfo stands for queuelog.PartitionInfo.
type PartitionInfo struct {
	Name       string
	ID         [16]byte
	LastOffset int64
	LogStart   int64
	LastWrite  int64
	Seq        uint64
	UID        uint64
	Created    int64
	DedupFrom  int64
}

// ReadRecords is queuelog.ReadRecords over v.
func (v *View) ReadRecords(tenant, queue, partition string, from int64, lim ReadLimits) (Batch, error) {
	return QueueLog.ReadRecords(v, tenant, queue, partition, from, lim)
}

// PartitionsChanged is queuelog.PartitionsChanged over v.
func (v *View) PartitionsChanged(tenant, queue string, since int64, after uint64, limit int) ([]PartitionInfo, uint64, error) {
	return QueueLog.PartitionsChanged(v, tenant, queue, since, after, limit)
}
