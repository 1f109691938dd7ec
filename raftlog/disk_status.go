package raftlog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/cockroachdb/pebble/v2"
)

// The shard's replicated set of full nodes: one key per node whose last
// status op said full, holding the percent it reported, in hundredths.
//
//	0x00 'd' node (8 bytes, big-endian) → hundredths (uvarint)
//
// The state machine's own, like metaKey: snapshots carry it, and every
// node holds the same set after the same entries.
var diskPrefix = []byte{0x00, 'd'}

func diskKey(node uint64) []byte {
	return binary.BigEndian.AppendUint64(slices.Clone(diskPrefix), node)
}

// diskWatchKey is woken when a node-status op applied: the state machine
// reads its set again.
const diskWatchKey = "\x00disk"

// nodeStatusOp is what a node says of its disk when it crosses a mark.
type nodeStatusOp struct {
	Node       uint64
	Full       bool
	Hundredths uint64 // the percent used it read, × 100 (for the operator)
}

// nodeStatusVersion starts the op's encoding; it only ever grows.
const nodeStatusVersion = 1

// Op encodes the status: version | node (uvarint) | full (0 or 1) | hundredths (uvarint).
func (o nodeStatusOp) Op() Op {
	b := binary.AppendUvarint([]byte{nodeStatusVersion}, o.Node)
	full := byte(0)
	if o.Full {
		full = 1
	}
	return Op{Kind: OpNodeStatus, Data: binary.AppendUvarint(append(b, full), o.Hundredths)}
}

func decodeNodeStatusOp(b []byte) (nodeStatusOp, error) {
	var o nodeStatusOp
	if len(b) == 0 || b[0] != nodeStatusVersion {
		return o, fmt.Errorf("%w: node status version", ErrCorruptEntry)
	}
	d := newDecoder(b[1:])
	o.Node = d.Uvarint()
	switch f := d.Byte(); {
	case d.Err != nil:
	case f > 1:
		d.Fail("node status flag")
	default:
		o.Full = f == 1
	}
	o.Hundredths = d.Uvarint()
	switch {
	case d.Err != nil:
	case len(d.B) != 0:
		d.Fail("trailing bytes")
	case o.Node == 0 || o.Hundredths > 100_00:
		d.Fail("node status bounds")
	}
	return o, d.Err
}

// nodeStatusApplier applies OpNodeStatus: the node joins or leaves the
// set. It never grows the store past one key per node.
type nodeStatusApplier struct{}

func (nodeStatusApplier) Apply(tx *Txn, _ ApplyInfo, data []byte) ([]byte, error) {
	o, err := decodeNodeStatusOp(data)
	if err != nil {
		return nil, err
	}
	if o.Full {
		tx.Set(diskKey(o.Node), binary.AppendUvarint(nil, o.Hundredths))
	} else {
		tx.Delete(diskKey(o.Node))
	}
	tx.Notify(diskWatchKey)
	return nil, nil
}

// Grows is false: a node must always be able to say its disk is full.
func (nodeStatusApplier) Grows([]byte) bool { return false }

// fullNodes is the set as of the last Update: node → hundredths. The map
// is shared: never written.
func (s *stateMachine) fullNodes() map[uint64]uint64 {
	if p := s.diskFull.Load(); p != nil {
		return *p
	}
	return nil
}

// loadDisk reads the set from r (after Open, a snapshot, or an Update
// that changed it).
func (s *stateMachine) loadDisk(r pebble.Reader) error {
	it, err := r.NewIter(&pebble.IterOptions{LowerBound: diskPrefix, UpperBound: []byte{0x00, 'd' + 1}})
	if err != nil {
		return fmt.Errorf("%w: read the disk status: %w", ErrStorage, err)
	}
	var set map[uint64]uint64
	for it.First(); it.Valid(); it.Next() {
		k, v := it.Key(), it.Value()
		n, used := binary.Uvarint(v)
		if len(k) != len(diskPrefix)+8 || used <= 0 {
			it.Close()
			return fmt.Errorf("%w: disk status key %x = %x", ErrStorage, k, v)
		}
		if set == nil {
			set = map[uint64]uint64{}
		}
		set[binary.BigEndian.Uint64(k[len(diskPrefix):])] = n
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return fmt.Errorf("%w: read the disk status: %w", ErrStorage, err)
	}
	s.diskFull.Store(&set)
	return nil
}

// StorageStatus is what the storage gate of one shard knows on this node.
type StorageStatus struct {
	// HighPct and LowPct are this node's marks; HighPct 0: this node does
	// not watch its disk (it still refuses while a peer reports full).
	HighPct, LowPct float64
	// UsedPct is the percent of its file system this node's data
	// directory used at the last poll (NaN before one, or gate off).
	UsedPct float64
	// Full: this node's disk is above its high mark (latched until it is
	// below its low mark).
	Full bool
	// FullNodes are the nodes the shard's state says are full, in id
	// order, each with the percent it reported.
	FullNodes []FullNode
	// Refusing: growing writes proposed here are refused now.
	Refusing bool
	// Refused counts the proposals the gate refused on this node.
	Refused uint64
	// Err is the last poll's error ("" after a good one).
	Err string
}

// FullNode is a node in the set, with the percent it reported.
type FullNode struct {
	Node    uint64  `json:"node"`
	UsedPct float64 `json:"usedPct"`
}

// Storage returns the storage gate's state on this node.
func (s *Shard) Storage() StorageStatus {
	st := StorageStatus{UsedPct: math.NaN(), Refused: s.refused.Load()}
	if d := s.host.disk; d != nil {
		st.HighPct, st.LowPct, st.UsedPct, st.Full = d.cfg.HighPct, d.cfg.LowPct, d.usedPct(), d.full.Load()
		if e := d.err.Load(); e != nil {
			st.Err = *e
		}
	}
	var full map[uint64]uint64
	if m := s.sm.Load(); m != nil {
		full = m.fullNodes()
	}
	for _, n := range sortedNodes(full) {
		st.FullNodes = append(st.FullNodes, FullNode{Node: n, UsedPct: float64(full[n]) / 100})
	}
	st.Refusing = st.Full || len(full) > 0
	return st
}

func sortedNodes(m map[uint64]uint64) []uint64 { return slices.Sorted(maps.Keys(m)) }
