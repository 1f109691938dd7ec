package timers

import (
	"encoding/binary"
	"fmt"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/wire"
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
	b := []byte{rowVersion}
	b = wire.AppendString(b, t.Partition)
	b = wire.AppendString(b, t.Txn)
	b = append(b, t.MessageID[:]...)
	b = wire.AppendString(b, string(t.Payload))
	b = append(b, boolByte(t.Sealed))
	b = binary.AppendVarint(b, t.Created)
	b = binary.AppendVarint(b, t.DeliverAt)
	b = binary.AppendVarint(b, t.Due)
	b = binary.AppendUvarint(b, uint64(t.Attempts))
	b = binary.AppendUvarint(b, uint64(t.Permanent))
	return wire.AppendString(b, t.LastError)
}

// decodeTimer reads a stored row; a row that does not decode is a storage
// error (the node halts rather than diverge).
func decodeTimer(queue, key string, b []byte) (Timer, error) {
	d := wire.NewDecoder(b, ErrCorrupt)
	if v := d.Byte(); d.Err == nil && v != rowVersion {
		d.Fail("row version")
	}
	t := Timer{Queue: queue, Key: key, Partition: string(d.Bytes()), Txn: string(d.Bytes())}
	if len(d.B) >= 16 {
		copy(t.MessageID[:], d.B[:16])
		d.B = d.B[16:]
	} else {
		d.Fail("message id")
	}
	t.Payload = append([]byte(nil), d.Bytes()...)
	switch s := d.Byte(); s {
	case 0, 1:
		t.Sealed = s == 1
	default:
		d.Fail("sealed")
	}
	t.Created, t.DeliverAt, t.Due = d.Varint(), d.Varint(), d.Varint()
	t.Attempts, t.Permanent, t.LastError = int(d.Uvarint()), int(d.Uvarint()), string(d.Bytes())
	if d.Err == nil && len(d.B) != 0 {
		d.Fail("trailing bytes")
	}
	if d.Err != nil {
		return Timer{}, fmt.Errorf("%w: timer %q of %q: %w", raftlog.ErrStorage, key, queue, d.Err)
	}
	return t, nil
}
