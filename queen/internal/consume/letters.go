package consume

import (
	"encoding/binary"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// DeadLetter is a message filed in its queue's dead-letter queue: a copy
// of the record (retention may delete the original) and why it was filed.
type DeadLetter struct {
	// ID names the letter in the DLQ routes: derived from where it was
	// filed, so every node gives it the same.
	ID               string
	Queue            string
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
	b = wire.AppendString(b, l.ID)
	b = wire.AppendString(b, l.Queue)
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
	l := DeadLetter{ID: str(&d), Queue: str(&d), Group: str(&d), Partition: str(&d), Offset: d.Varint()}
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

// DeadLetters lists dead letters of a queue (queue "": every queue of the
// tenant) and group (group "": every group), in (queue, group, partition,
// offset) order, up to limit (0: all).
func DeadLetters(v *raftlog.View, tenant, queue, group string, limit int) ([]DeadLetter, error) {
	prefix := name([]byte{prefixLetter}, tenant)
	if queue != "" {
		prefix = letterPrefix(tenant, queue)
		if group != "" {
			prefix = name(prefix, group)
		}
	}
	var out []DeadLetter
	var derr error
	err := v.Scan(prefix, wire.PrefixEnd(prefix), func(_, val []byte) bool {
		l, err := decodeLetter(val)
		if err != nil {
			derr = err
			return false
		}
		if group == "" || l.Group == group {
			out = append(out, l)
		}
		return limit <= 0 || len(out) < limit
	})
	if err == nil {
		err = derr
	}
	return out, err
}

// Letter reads one dead letter by its id; ok false when there is none.
func Letter(v *raftlog.View, tenant, id string) (DeadLetter, bool, error) {
	k, ok, err := v.Get(letterIDKey(tenant, id))
	if err != nil || !ok {
		return DeadLetter{}, false, err
	}
	b, ok, err := v.Get(k)
	if err != nil || !ok {
		return DeadLetter{}, false, err
	}
	l, err := decodeLetter(b)
	return l, err == nil, err
}

// TimerGroup is the dead-letter group of the timers that failed to fire
// too many times (API.md §7).
const TimerGroup = "__timer__"

// FileTimer files a timer that could not fire as a dead letter of its
// queue in TimerGroup, from the apply of the timers family: l says what
// the timer held (Queue, Partition, MessageID, TransactionID, Payload,
// Created, Attempts, Error). It never reached the queue, so it has no
// offset (-1); seq tells apart the letters one entry files.
func FileTimer(tx *raftlog.Txn, at raftlog.ApplyInfo, tenant string, l DeadLetter, seq int) {
	key := letterKey(tenant, l.Queue, TimerGroup, l.Partition, int64(at.Index<<16)|int64(seq&0xffff))
	l.ID, l.Group, l.Offset, l.Filed = letterID(key, at.Stamp), TimerGroup, -1, at.Stamp
	tx.Set(key, l.encode())
	tx.Set(letterIDKey(tenant, l.ID), key)
}

// LettersOf lists the dead letters, of every group, of the message at
// offset of a queue's partition: a scan of the queue's dead letters.
func LettersOf(v *raftlog.View, tenant, queue, partition string, offset int64) ([]DeadLetter, error) {
	all, err := DeadLetters(v, tenant, queue, "", 0)
	if err != nil {
		return nil, err
	}
	var out []DeadLetter
	for _, l := range all {
		if l.Partition == partition && l.Offset == offset {
			out = append(out, l)
		}
	}
	return out, nil
}
