package traces

import (
	"fmt"

	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
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
	b := family.Encoder{rowVersion}
	b.Str(e.Group, e.EventType)
	b.Strs(e.Names)
	b.Str(string(e.Data))
	b.Varint(e.ExpiresAt)
	return b
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
	e, err := family.Decode(val, ErrCorrupt, func(d *family.Decoder) Event {
		d.Expect(d.Byte() == rowVersion, "row version")
		return Event{ID: id, PartitionUID: uid, TransactionID: txid, Created: id.Stamp(), Group: d.Str(), EventType: d.Str(),
			Names: d.Strs(), Data: d.Blob(), ExpiresAt: d.Varint()}
	})
	if err != nil {
		return Event{}, fmt.Errorf("%w: traces: event %x: %w", raftlog.ErrStorage, id, err)
	}
	return e, nil
}
