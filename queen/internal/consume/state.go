package consume

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// ErrCorrupt is wrapped by the error of stored state or an op that does not
// decode. Stored state that does not decode halts the node (it wraps
// raftlog.ErrStorage too) rather than let it diverge.
var ErrCorrupt = errors.New("consume: corrupt")

const stateVersion = 1

// gpState is a consumer group's state on one partition.
//
// Every offset below Cursor is settled (acked, dead-lettered or dropped).
// Msgs holds, in offset order, what is known of offsets at or above
// Cursor: how often each was delivered, whether it was acked out of order,
// whether the current lease holds it, and until when a failed one waits.
// Offsets above the last entry of Msgs were never delivered.
//
// A lease is held while the stamp is below Hold, which is End plus the
// clock-skew margin: the consumer is told End, the broker gives the
// partition to nobody else before Hold.
type gpState struct {
	Cursor  int64
	LeaseID string
	End     int64
	Hold    int64
	Msgs    []msgState
}

type msgState struct {
	Offset    int64
	Attempts  uint32 // deliveries so far
	Failures  uint32 // failed acks so far: each spends a retry of retryLimit
	Acked     bool   // settled out of order, waiting for Cursor to pass
	Pending   bool   // delivered under the current lease and not settled
	NotBefore int64  // a failed message is not delivered again before this stamp
}

// held reports whether a live lease holds the partition at stamp.
func (g *gpState) held(stamp int64) bool { return g.LeaseID != "" && stamp < g.Hold }

// msg returns the state of offset, adding an empty one in order.
func (g *gpState) msg(off int64) *msgState {
	i, found := slices.BinarySearchFunc(g.Msgs, off, func(m msgState, o int64) int {
		switch {
		case m.Offset < o:
			return -1
		case m.Offset > o:
			return 1
		}
		return 0
	})
	if !found {
		g.Msgs = slices.Insert(g.Msgs, i, msgState{Offset: off})
	}
	return &g.Msgs[i]
}

// find returns the state of offset, or nil.
func (g *gpState) find(off int64) *msgState {
	for i := range g.Msgs {
		if g.Msgs[i].Offset == off {
			return &g.Msgs[i]
		}
	}
	return nil
}

// pending reports whether the current lease still holds a message.
func (g *gpState) pending() bool {
	for i := range g.Msgs {
		if g.Msgs[i].Pending {
			return true
		}
	}
	return false
}

// release ends the lease: its unsettled messages wait for the next one.
func (g *gpState) release() {
	g.LeaseID, g.End, g.Hold = "", 0, 0
	for i := range g.Msgs {
		g.Msgs[i].Pending = false
	}
}

// retireBelow settles every offset below off unread: Cursor moves to it
// and what was known of the offsets it passed is forgotten.
func (g *gpState) retireBelow(off int64) {
	if off <= g.Cursor {
		return
	}
	g.Cursor = off
	i := 0
	for i < len(g.Msgs) && g.Msgs[i].Offset < off {
		i++
	}
	g.Msgs = g.Msgs[i:]
}

// advance moves Cursor over the settled offsets at its head and forgets
// them, and drops the state of offsets the log no longer holds.
func (g *gpState) advance(logStart int64) {
	if g.Cursor < logStart {
		g.Cursor = logStart
	}
	i := 0
	for i < len(g.Msgs) {
		m := g.Msgs[i]
		switch {
		case m.Offset < g.Cursor:
		case m.Offset == g.Cursor && m.Acked:
			g.Cursor++
		default:
			g.Msgs = g.Msgs[i:]
			return
		}
		i++
	}
	g.Msgs = g.Msgs[:0]
}

func (g *gpState) encode() []byte {
	b := []byte{stateVersion}
	b = binary.AppendVarint(b, g.Cursor)
	b = wire.AppendString(b, g.LeaseID)
	b = binary.AppendVarint(b, g.End)
	b = binary.AppendVarint(b, g.Hold)
	b = binary.AppendUvarint(b, uint64(len(g.Msgs)))
	for _, m := range g.Msgs {
		b = binary.AppendVarint(b, m.Offset)
		b = binary.AppendUvarint(b, uint64(m.Attempts))
		b = binary.AppendUvarint(b, uint64(m.Failures))
		b = append(b, family.Bit(m.Acked)|family.Bit(m.Pending)<<1)
		b = binary.AppendVarint(b, m.NotBefore)
	}
	return b
}

func storageErr(what string, err error) error {
	return fmt.Errorf("%w: %w: %s: %w", raftlog.ErrStorage, ErrCorrupt, what, err)
}

func decodeGP(b []byte) (gpState, error) {
	d := family.NewDecoder(b, ErrCorrupt)
	d.Version(stateVersion, "state version")
	g := gpState{Cursor: d.Varint(), LeaseID: d.Str(), End: d.Varint(), Hold: d.Varint()}
	n := d.Count(5)
	for range n {
		m := msgState{Offset: d.Varint(), Attempts: uint32(d.Uvarint()), Failures: uint32(d.Uvarint())}
		flags := d.Byte()
		m.Acked, m.Pending = flags&1 != 0, flags&2 != 0
		m.NotBefore = d.Varint()
		g.Msgs = append(g.Msgs, m)
	}
	d.Expect(len(d.B) == 0, "trailing bytes")
	if d.Err != nil {
		return gpState{}, storageErr("group partition state", d.Err)
	}
	return g, nil
}

// groupMeta is where a group starts on a partition it never read: the
// subscription of its first pop of the queue.
type groupMeta struct {
	Created  int64 // stamp of that pop
	Mode     byte  // ModeNew or ModeAll
	From     int64 // µs; 0: unset
	Conflate bool  // the group conflates (its first pop asked to)
}

func (m groupMeta) encode() []byte {
	b := []byte{stateVersion}
	b = binary.AppendVarint(b, m.Created)
	b = append(b, m.Mode)
	b = binary.AppendVarint(b, m.From)
	if m.Conflate { // absent in the rows of older brokers
		b = append(b, 1)
	}
	return b
}

func decodeGroup(b []byte) (groupMeta, error) {
	d := family.NewDecoder(b, ErrCorrupt)
	d.Version(stateVersion, "group version")
	m := groupMeta{Created: d.Varint(), Mode: d.Byte(), From: d.Varint()}
	if d.Err == nil && len(d.B) > 0 {
		m.Conflate = d.Byte() == 1
	}
	if d.Err != nil {
		return groupMeta{}, storageErr("group", d.Err)
	}
	return m, nil
}

// leaseRow lists the partitions a lease holds (or held: entries whose
// gpState names another lease are stale and skipped).
type leaseRow struct {
	Tenant, Queue, Group string
	Partitions           []string
	// Micros is the lease's length, what an extension without a length
	// extends it by (0 in a row written before it was kept: the queue's
	// leaseTime then).
	Micros int64
}

func (l *leaseRow) encode() []byte {
	e := family.Encoder{stateVersion}
	e.Str(l.Tenant, l.Queue, l.Group)
	e.Strs(l.Partitions)
	e.Varint(l.Micros)
	return e
}

func decodeLease(b []byte) (leaseRow, error) {
	d := family.NewDecoder(b, ErrCorrupt)
	d.Version(stateVersion, "lease version")
	l := leaseRow{Tenant: d.Str(), Queue: d.Str(), Group: d.Str(), Partitions: d.Strs()}
	if d.Err == nil && len(d.B) > 0 { // rows of older brokers end here
		l.Micros = d.Varint()
	}
	if d.Err != nil {
		return leaseRow{}, storageErr("lease", d.Err)
	}
	return l, nil
}

// partRef names a partition by its id.
type partRef struct{ Tenant, Queue, Partition string }

func (p partRef) encode() []byte {
	e := family.Encoder{stateVersion}
	e.Str(p.Tenant, p.Queue, p.Partition)
	return e
}

func decodePartRef(b []byte) (partRef, error) {
	d := family.NewDecoder(b, ErrCorrupt)
	d.Version(stateVersion, "partition ref version")
	p := partRef{Tenant: d.Str(), Queue: d.Str(), Partition: d.Str()}
	if d.Err != nil {
		return partRef{}, storageErr("partition ref", d.Err)
	}
	return p, nil
}
