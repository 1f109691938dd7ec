package consume

import (
	"errors"
	"fmt"

	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

const kindPosition byte = 9

// Position sets a consumer group's position on one partition: the group
// is done with every offset up to Offset and reads Offset+1 next. Offset
// Forget drops the group's state there, so it reads the partition again
// as its subscription says. Metadata is kept beside the position ("":
// none). Mode is the subscription of a group that has none yet.
type Position struct {
	Queue, Group, Partition string
	Offset                  int64
	Metadata                string
	Mode                    byte
}

// Forget is the Offset of a Position that drops the group's position.
const Forget int64 = -2

// PositionOp sets positions, all or nothing: the first that cannot be set
// (no such partition, an offset past its last) rolls the entry back
// (DecodePositionRollback). Like a seek it releases the group's lease on
// the partition and forgets what it knew of offsets past the old cursor.
type PositionOp struct {
	Tenant string
	Items  []Position
}

// Op encodes o as an op of a command.
func (o *PositionOp) Op() raftlog.Op {
	e := newOp(kindPosition)
	e.Str(o.Tenant)
	e.Uvarint(uint64(len(o.Items)))
	for _, p := range o.Items {
		e.Str(p.Queue, p.Group, p.Partition)
		e.Varint(p.Offset)
		e.Str(p.Metadata)
		e.Byte(p.Mode)
	}
	return op(e)
}

func decodePositionOp(d *family.Decoder) *PositionOp {
	o := &PositionOp{Tenant: d.Str()}
	n := d.Count(1 + 1 + 1 + 1 + 1 + 1)
	for i := 0; i < n && d.Err == nil; i++ {
		p := Position{Queue: d.Str(), Group: d.Str(), Partition: d.Str(), Offset: d.Varint(), Metadata: d.Str(), Mode: d.Byte()}
		if d.Err == nil && (p.Offset < Forget || p.Mode > ModeAll || len(p.Metadata) > 4096) {
			d.Fail("position bounds")
		}
		o.Items = append(o.Items, p)
	}
	return o
}

// The rollback reasons of a PositionOp.
const (
	PositionNoPartition byte = 1 // no such queue or partition
	PositionPastEnd     byte = 2 // the offset is past the partition's last
)

// Apply sets the positions in order, or rolls the entry back at the first
// that cannot be set.
func (op *PositionOp) Apply(s *state) ([]byte, error) {
	for i, p := range op.Items {
		pi, err := queuelog.Partition(s.v, op.Tenant, p.Queue, p.Partition)
		if errors.Is(err, queuelog.ErrUnknownPartition) {
			return nil, raftlog.Abort(appendPositionRollback(i, PositionNoPartition,
				fmt.Sprintf("queue %q has no partition %q", p.Queue, p.Partition)))
		}
		if err != nil {
			return nil, err
		}
		if p.Offset > pi.LastOffset {
			return nil, raftlog.Abort(appendPositionRollback(i, PositionPastEnd,
				fmt.Sprintf("offset %d is past the last offset %d of %s/%s", p.Offset, pi.LastOffset, p.Queue, p.Partition)))
		}
		if _, ok, err := s.tx.Get(groupKey(op.Tenant, p.Queue, p.Group)); err != nil {
			return nil, err
		} else if !ok && p.Offset != Forget {
			s.tx.Set(groupKey(op.Tenant, p.Queue, p.Group), groupMeta{Created: s.at.Stamp, Mode: p.Mode}.encode())
		}
		g, old, had, err := s.loadGP(op.Tenant, p.Queue, p.Group, pi.Name)
		if err != nil {
			return nil, err
		}
		if g.LeaseID != "" {
			if err := s.dropFromLease(g.LeaseID, pi.Name); err != nil {
				return nil, err
			}
		}
		mk := metadataKey(op.Tenant, p.Queue, p.Group, pi.Name)
		if p.Offset == Forget {
			if had {
				s.tx.Delete(gpKey(op.Tenant, p.Queue, p.Group, pi.Name))
			}
			s.tx.Delete(mk)
		} else {
			g = gpState{Cursor: p.Offset + 1}
			s.saveGP(op.Tenant, p.Queue, p.Group, pi.Name, &g, old)
			if p.Metadata != "" {
				s.tx.Set(mk, []byte(p.Metadata))
			} else {
				s.tx.Delete(mk)
			}
		}
		if err := s.indexUID(op.Tenant, p.Queue, pi.Name, pi.UID); err != nil {
			return nil, err
		}
		s.released(op.Tenant, p.Queue)
	}
	return []byte{}, nil
}

// PositionMetadata reads the metadata of a group's position on a
// partition ("" when it has none).
func PositionMetadata(v *raftlog.View, tenant, queue, group, partition string) (string, error) {
	b, _, err := v.Get(metadataKey(tenant, queue, group, partition))
	return string(b), err
}

func appendPositionRollback(i int, reason byte, why string) []byte {
	var e family.Encoder
	e.Uvarint(uint64(i))
	e.Byte(reason)
	e.Str(why)
	return e
}

// DecodePositionRollback reads the answer of a PositionOp that rolled its
// entry back: the position's index, the reason and why.
func DecodePositionRollback(b []byte) (i int, reason byte, why string, err error) {
	d := family.NewDecoder(b, ErrCorrupt)
	i, reason, why = int(d.Uvarint()), d.Byte(), d.Str()
	d.Expect(len(d.B) == 0, "trailing bytes")
	return i, reason, why, d.Err
}
