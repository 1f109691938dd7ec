package timers

import (
	"fmt"

	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
)

// Timer is a pending timer as stored.
type Timer struct {
	Queue, Key string
	Partition  string
	Txn        string
	MessageID  [16]byte
	Payload    []byte
	Sealed     bool
	// Created is the stamp of its schedule, DeliverAt the stamp it fires
	// at or after, Due when it is tried next (DeliverAt, or a retry).
	Created, DeliverAt, Due int64
	// Attempts counts the fires that failed, Permanent those of them that
	// failed for good, LastError the last one's why.
	Attempts, Permanent int
	LastError           string
}

const rowVersion byte = 1

func (t *Timer) encode() []byte {
	e := family.Encoder{rowVersion}
	e.Str(t.Partition, t.Txn)
	e.Byte(t.MessageID[:]...)
	e.Str(string(t.Payload))
	e.Bool(t.Sealed)
	e.Varint(t.Created, t.DeliverAt, t.Due)
	e.Uvarint(uint64(t.Attempts), uint64(t.Permanent))
	e.Str(t.LastError)
	return e
}

// decodeTimer reads a stored row; a row that does not decode is a storage
// error (the node halts rather than diverge).
func decodeTimer(queue, key string, b []byte) (Timer, error) {
	t, err := family.Decode(b, ErrCorrupt, func(d *family.Decoder) Timer {
		d.Expect(d.Byte() == rowVersion, "row version")
		t := Timer{Queue: queue, Key: key, Partition: d.Str(), Txn: d.Str(), MessageID: d.ID("message id")}
		t.Payload, t.Sealed = d.Blob(), d.Flag("sealed")
		t.Created, t.DeliverAt, t.Due = d.Varint(), d.Varint(), d.Varint()
		t.Attempts, t.Permanent, t.LastError = int(d.Uvarint()), int(d.Uvarint()), d.Str()
		return t
	})
	if err != nil {
		return Timer{}, fmt.Errorf("%w: timer %q of %q: %w", raftlog.ErrStorage, key, queue, err)
	}
	return t, nil
}
