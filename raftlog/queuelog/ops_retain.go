package queuelog

import (
	"encoding/binary"
	"fmt"

	"github.com/queen-mq/queen-go/raftlog"
)

// ConfigureOp stores a queue's options, creating the queue if need be.
// Options is a JSON object; merged into the stored options (a null removes
// a key, restoring its default), or replacing them.
type ConfigureOp struct {
	Tenant, Queue string
	Replace       bool
	Options       []byte
}

// raftlog.Op encodes c as an op of a command.
func (c *ConfigureOp) Op() raftlog.Op {
	b := []byte{opVersion}
	b = appendName(b, c.Tenant)
	b = appendName(b, c.Queue)
	if c.Replace {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	return raftlog.Op{Kind: OpConfigure, Data: append(b, c.Options...)}
}

func decodeConfigureOp(b []byte) (ConfigureOp, error) {
	var c ConfigureOp
	if len(b) == 0 || b[0] != opVersion {
		return c, fmt.Errorf("%w: configure op version", raftlog.ErrCorruptEntry)
	}
	d := newDecoder(b[1:])
	c.Tenant, c.Queue = string(d.Bytes()), string(d.Bytes())
	if d.Err != nil || len(d.B) < 1 || d.B[0] > 1 {
		return c, fmt.Errorf("%w: configure op", raftlog.ErrCorruptEntry)
	}
	c.Replace = d.B[0] == 1
	c.Options = d.B[1:]
	return c, nil
}

// TrimOp deletes, on every node alike, the records of a queue stamped
// before Before: of one partition, or of all when Partition is empty. The
// log start of each partition moves past them. Its answer is the count of
// records deleted (uvarint).
type TrimOp struct {
	Tenant, Queue, Partition string
	Before                   int64
}

// raftlog.Op encodes t as an op of a command.
func (t *TrimOp) Op() raftlog.Op {
	b := []byte{opVersion}
	b = appendName(b, t.Tenant)
	b = appendName(b, t.Queue)
	b = appendName(b, t.Partition)
	return raftlog.Op{Kind: OpTrim, Data: binary.AppendVarint(b, t.Before)}
}

func decodeTrimOp(b []byte) (TrimOp, error) {
	var t TrimOp
	if len(b) == 0 || b[0] != opVersion {
		return t, fmt.Errorf("%w: trim op version", raftlog.ErrCorruptEntry)
	}
	d := newDecoder(b[1:])
	t.Tenant, t.Queue, t.Partition = string(d.Bytes()), string(d.Bytes()), string(d.Bytes())
	t.Before = d.Varint()
	if d.Err == nil && len(d.B) != 0 {
		d.Fail("trailing bytes")
	}
	return t, d.Err
}

// DedupSweepOp deletes the dedup entries of one partition's records that
// are out of its queue's dedup window at the entry's stamp: at most Limit
// records (at least one, for a Limit of 0 or less) are looked at, from
// where the last sweep stopped. A leader's job proposes it; every node
// deletes the same entries. Its answer is the count of entries deleted
// (uvarint).
type DedupSweepOp struct {
	Tenant, Queue, Partition string
	Limit                    int
}

// raftlog.Op encodes d as an op of a command.
func (d *DedupSweepOp) Op() raftlog.Op {
	b := []byte{opVersion}
	b = appendName(b, d.Tenant)
	b = appendName(b, d.Queue)
	b = appendName(b, d.Partition)
	return raftlog.Op{Kind: OpDedupSweep, Data: binary.AppendUvarint(b, uint64(max(d.Limit, 0)))}
}

func decodeDedupSweepOp(b []byte) (DedupSweepOp, error) {
	var o DedupSweepOp
	if len(b) == 0 || b[0] != opVersion {
		return o, fmt.Errorf("%w: dedup sweep op version", raftlog.ErrCorruptEntry)
	}
	d := newDecoder(b[1:])
	o.Tenant, o.Queue, o.Partition = string(d.Bytes()), string(d.Bytes()), string(d.Bytes())
	n := d.Uvarint()
	if n > 1<<20 {
		d.Fail("dedup sweep limit")
	}
	o.Limit = int(n)
	if d.Err == nil && len(d.B) != 0 {
		d.Fail("trailing bytes")
	}
	return o, d.Err
}
