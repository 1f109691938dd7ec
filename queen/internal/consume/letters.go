package consume

import (
	"encoding/binary"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// DeadLetter is a message filed in its queue's dead-letter queue: a copy
// of the record (retention may delete the original) and why it was filed.
type DeadLetter struct {
	Group, Partition string
	Offset           int64
	MessageID        [16]byte
	TransactionID    string
	Payload          []byte
	Created          int64 // the record's stamp
	Filed            int64 // the stamp it was filed at
	Attempts         int   // deliveries
	Error            string
}

func (l *DeadLetter) encode() []byte {
	b := []byte{stateVersion}
	b = wire.AppendString(b, l.Group)
	b = wire.AppendString(b, l.Partition)
	b = binary.AppendVarint(b, l.Offset)
	b = append(b, l.MessageID[:]...)
	b = wire.AppendString(b, l.TransactionID)
	b = wire.AppendString(b, string(l.Payload))
	b = binary.AppendVarint(b, l.Created)
	b = binary.AppendVarint(b, l.Filed)
	b = binary.AppendUvarint(b, uint64(l.Attempts))
	return wire.AppendString(b, l.Error)
}

func decodeLetter(b []byte) (DeadLetter, error) {
	d := wire.NewDecoder(b, ErrCorrupt)
	if v := d.Byte(); d.Err == nil && v != stateVersion {
		d.Fail("dead letter version")
	}
	l := DeadLetter{Group: str(&d), Partition: str(&d), Offset: d.Varint()}
	if len(d.B) >= 16 {
		copy(l.MessageID[:], d.B[:16])
		d.B = d.B[16:]
	} else {
		d.Fail("message id")
	}
	l.TransactionID = str(&d)
	l.Payload = append([]byte(nil), d.Bytes()...)
	l.Created, l.Filed = d.Varint(), d.Varint()
	l.Attempts = int(d.Uvarint())
	l.Error = str(&d)
	if d.Err != nil {
		return DeadLetter{}, storageErr("dead letter", d.Err)
	}
	return l, nil
}

// DeadLetters lists a queue's dead letters, of one group or (group "")
// of every group, in (group, partition, offset) order, up to limit.
func DeadLetters(v *raftlog.View, tenant, queue, group string, limit int) ([]DeadLetter, error) {
	prefix := letterPrefix(tenant, queue)
	if group != "" {
		prefix = name(prefix, group)
	}
	var out []DeadLetter
	var derr error
	err := v.Scan(prefix, wire.PrefixEnd(prefix), func(_, val []byte) bool {
		l, err := decodeLetter(val)
		if err != nil {
			derr = err
			return false
		}
		out = append(out, l)
		return limit <= 0 || len(out) < limit
	})
	if err == nil {
		err = derr
	}
	return out, err
}
