package raftlog

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/queen-mq/queen-go/raftlog/wire"
)

// OpKind names the applier an operation goes to. Kinds are part of the log's
// format: a kind's number never changes meaning once entries carry it.
type OpKind uint16

// The op kinds of this module. Kinds 1 to 5 are the queue log's
// (package queuelog: push, configure, trim, dedup sweep, delete queue);
// other modules take theirs from 256 up.
const (
	// OpNodeStatus: the storage gate: a node says its disk crossed its
	// high mark, or fell back below its low mark (disk_status.go)
	OpNodeStatus OpKind = 6
)

// Op is one operation of a command: its kind and the applier's own encoding.
type Op struct {
	Kind OpKind
	Data []byte
}

// Command is what one raft entry carries: the proposer's clock and the
// operations applied together, all or nothing. A command with no operations
// is a tick: it applies nothing but a new stamp, so safeTime moves.
type Command struct {
	// Clock is the proposer's wall clock in microseconds since the epoch.
	// Apply stamps the entry max(Clock, previous stamp + 1).
	Clock int64
	Ops   []Op
}

// commandVersion is the first byte of every encoded command. A node refuses
// (ErrCorruptEntry) a version it does not know, so an old binary never
// misreads a newer log; the number only ever grows.
const commandVersion = 1

// ErrCorruptEntry is wrapped by every error decoding an entry or a result.
var ErrCorruptEntry = errors.New("raftlog: corrupt entry")

// maxOps bounds the operations of one command.
const maxOps = 1 << 16

// AppendCommand appends c's encoding to dst:
//
//	version (1 byte) | clock (varint) | count (uvarint) | count × (kind (uvarint) | length (uvarint) | data)
func AppendCommand(dst []byte, c *Command) []byte {
	dst = append(dst, commandVersion)
	dst = binary.AppendVarint(dst, c.Clock)
	dst = binary.AppendUvarint(dst, uint64(len(c.Ops)))
	for _, op := range c.Ops {
		dst = binary.AppendUvarint(dst, uint64(op.Kind))
		dst = binary.AppendUvarint(dst, uint64(len(op.Data)))
		dst = append(dst, op.Data...)
	}
	return dst
}

// DecodeCommand reads a command encoded by AppendCommand. The ops' Data
// alias b. It refuses, wrapping ErrCorruptEntry, anything else: an unknown
// version, a truncated field, trailing bytes.
func DecodeCommand(b []byte) (Command, error) {
	var c Command
	if len(b) == 0 {
		return c, fmt.Errorf("%w: empty", ErrCorruptEntry)
	}
	if b[0] != commandVersion {
		return c, fmt.Errorf("%w: command version %d, this node knows %d", ErrCorruptEntry, b[0], commandVersion)
	}
	d := newDecoder(b[1:])
	c.Clock = d.Varint()
	n := d.Uvarint()
	if n > maxOps || n > uint64(len(d.B)) {
		return Command{}, fmt.Errorf("%w: %d ops", ErrCorruptEntry, n)
	}
	if n > 0 {
		c.Ops = make([]Op, n)
	}
	for i := range c.Ops {
		kind := d.Uvarint()
		if kind > 0xffff {
			d.Fail("op kind")
		}
		c.Ops[i] = Op{Kind: OpKind(kind), Data: d.Bytes()}
	}
	if d.Err == nil && len(d.B) > 0 {
		d.Fail("trailing bytes")
	}
	if d.Err != nil {
		return Command{}, d.Err
	}
	return c, nil
}

// Result is what applying one entry answered.
type Result struct {
	// Index is the entry's raft index (not encoded: Propose fills it in).
	Index uint64
	// Stamp is the entry's stamp: the ts of every record it appended.
	Stamp int64
	// Aborted is -1 when the entry applied, else the index of the op that
	// rolled it back: nothing of the entry was written.
	Aborted int
	// Ops holds each op's answer, in order. When the entry was aborted it
	// holds the answers up to and including the aborting op's.
	Ops [][]byte
}

// Applied reports whether the entry's writes were applied.
func (r *Result) Applied() bool { return r.Aborted < 0 }

// AppendResult appends r's encoding:
//
//	version (1 byte) | stamp (varint) | aborted+1 (uvarint) | count (uvarint) | count × (length (uvarint) | data)
func AppendResult(dst []byte, r *Result) []byte {
	dst = append(dst, commandVersion)
	dst = binary.AppendVarint(dst, r.Stamp)
	dst = binary.AppendUvarint(dst, uint64(r.Aborted+1))
	dst = binary.AppendUvarint(dst, uint64(len(r.Ops)))
	for _, o := range r.Ops {
		dst = binary.AppendUvarint(dst, uint64(len(o)))
		dst = append(dst, o...)
	}
	return dst
}

// DecodeResult reads a result encoded by AppendResult; the ops alias b.
func DecodeResult(b []byte) (Result, error) {
	if len(b) == 0 || b[0] != commandVersion {
		return Result{}, fmt.Errorf("%w: result version", ErrCorruptEntry)
	}
	d := newDecoder(b[1:])
	r := Result{Stamp: d.Varint(), Aborted: int(d.Uvarint()) - 1}
	n := d.Uvarint()
	if n > maxOps || n > uint64(len(d.B)) {
		return Result{}, fmt.Errorf("%w: %d op results", ErrCorruptEntry, n)
	}
	for i := uint64(0); i < n && d.Err == nil; i++ {
		r.Ops = append(r.Ops, d.Bytes())
	}
	if d.Err == nil && (len(d.B) > 0 || r.Aborted < -1 || r.Aborted >= len(r.Ops)) {
		d.Fail("result shape")
	}
	return r, d.Err
}

// decoder reads the fields of raftlog's codecs (wire.Decoder), its
// failures wrapping ErrCorruptEntry.
type decoder struct{ wire.Decoder }

func newDecoder(b []byte) decoder { return decoder{wire.NewDecoder(b, ErrCorruptEntry)} }
