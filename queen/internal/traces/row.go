package traces

import (
	"encoding/binary"
	"fmt"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// Event is a stored trace event. Its message (PartitionUID,
// TransactionID) and ID come from its key; Queue and Partition are what
// the partition id names (Known false: no consumer of the tenant popped a
// partition of that id), found when it is read.
type Event struct {
	ID            ID
	PartitionUID  uint64
	TransactionID string
	Queue         string
	Partition     string
	Known         bool
	Group         string
	EventType     string
	Names         []string
	Data          []byte
	// Created is the stamp of the entry that recorded it (ID.Stamp);
	// ExpiresAt when its lifetime ends, on the broker clock.
	Created, ExpiresAt int64
}

const rowVersion byte = 1

// encodeRow is the row value: what the key does not say.
func (e *Event) encodeRow() []byte {
	b := []byte{rowVersion}
	b = wire.AppendString(b, e.Group)
	b = wire.AppendString(b, e.EventType)
	b = binary.AppendUvarint(b, uint64(len(e.Names)))
	for _, n := range e.Names {
		b = wire.AppendString(b, n)
	}
	b = wire.AppendString(b, string(e.Data))
	return binary.AppendVarint(b, e.ExpiresAt)
}

// decodeRow reads a stored event; one that does not decode is a storage
// error (the node halts rather than diverge).
func decodeRow(key, val []byte) (Event, error) {
	var e Event
	if len(key) < 2 {
		return e, fmt.Errorf("%w: traces: row key %x", raftlog.ErrStorage, key)
	}
	_, uid, txid, id, ok := parseRowKey(key[2:])
	if !ok {
		return e, fmt.Errorf("%w: traces: row key %x", raftlog.ErrStorage, key)
	}
	e = Event{ID: id, PartitionUID: uid, TransactionID: txid, Created: id.Stamp()}
	d := wire.NewDecoder(val, ErrCorrupt)
	if v := d.Byte(); d.Err == nil && v != rowVersion {
		d.Fail("row version")
	}
	e.Group, e.EventType = string(d.Bytes()), string(d.Bytes())
	n := d.Count(1)
	for i := 0; i < n && d.Err == nil; i++ {
		e.Names = append(e.Names, string(d.Bytes()))
	}
	e.Data = append([]byte(nil), d.Bytes()...)
	e.ExpiresAt = d.Varint()
	if d.Err == nil && len(d.B) != 0 {
		d.Fail("trailing bytes")
	}
	if d.Err != nil {
		return Event{}, fmt.Errorf("%w: traces: event %x: %w", raftlog.ErrStorage, id, d.Err)
	}
	return e, nil
}
