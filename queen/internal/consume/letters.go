package consume

import (
	"github.com/queen-mq/queen-go/queen/internal/family"
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
	e := family.Encoder{stateVersion}
	e.Str(l.ID, l.Queue, l.Group, l.Partition)
	e.Varint(l.Offset)
	e.Byte(l.MessageID[:]...)
	e.Str(l.TransactionID, string(l.Payload))
	e.Varint(l.Created, l.Filed)
	e.Uvarint(uint64(l.Attempts))
	e.Str(l.Error)
	return e
}

func decodeLetter(b []byte) (DeadLetter, error) {
	d := family.NewDecoder(b, ErrCorrupt)
	d.Expect(d.Byte() == stateVersion, "dead letter version")
	l := DeadLetter{ID: d.Str(), Queue: d.Str(), Group: d.Str(), Partition: d.Str(), Offset: d.Varint(), MessageID: d.ID("message id")}
	l.TransactionID, l.Payload = d.Str(), d.Blob()
	l.Created, l.Filed = d.Varint(), d.Varint()
	l.Attempts = int(d.Uvarint())
	l.Error = d.Str()
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
	err := family.Rows(v.Scan, prefix, wire.PrefixEnd(prefix), family.Value(decodeLetter), func(l DeadLetter) bool {
		if group == "" || l.Group == group {
			out = append(out, l)
		}
		return limit <= 0 || len(out) < limit
	})
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
