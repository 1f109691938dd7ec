package timers

import (
	"encoding/binary"

	"github.com/queen-mq/queen-go/raftlog/wire"
)

// The timers family's keys in the shard's store. raftlog keeps 0x00 and
// 'Q','P','C','R','D','N','M'; kvstore 'K','k'; consume 'G','g','L','U',
// 'X','x'; these are ours. Names are length-prefixed.
//
//	'T' tenant queue timerKey(raw)         → a pending timer (row)
//	't' due(8) tenant queue timerKey       → nothing: the due index, by when
//	                                         the timer fires next (deliverAt,
//	                                         or its retry after a failure)
const (
	prefixTimer = 'T'
	prefixDue   = 't'
)

func name(b []byte, s string) []byte { return wire.AppendString(b, s) }

func queuePrefix(tenant, queue string) []byte {
	return name(name([]byte{prefixTimer}, tenant), queue)
}

// timerKey ends with the timerKey's bytes, unprefixed, so a queue's
// timers sort in timerKey byte order.
func timerKey(tenant, queue, key string) []byte { return append(queuePrefix(tenant, queue), key...) }

// dueKey orders by due time; due is a stamp, never negative.
func dueKey(due int64, tenant, queue, key string) []byte {
	b := binary.BigEndian.AppendUint64([]byte{prefixDue}, uint64(max(due, 0)))
	return name(name(name(b, tenant), queue), key)
}

// dueBy is the end of the due index's keys due at stamp or before.
func dueBy(stamp int64) []byte {
	return binary.BigEndian.AppendUint64([]byte{prefixDue}, uint64(stamp)+1)
}

// parseDue reads a due index key.
func parseDue(k []byte) (due int64, tenant, queue, key string, ok bool) {
	if len(k) < 9 || k[0] != prefixDue {
		return 0, "", "", "", false
	}
	due = int64(binary.BigEndian.Uint64(k[1:9]))
	d := wire.NewDecoder(k[9:], ErrCorrupt)
	tenant, queue, key = string(d.Bytes()), string(d.Bytes()), string(d.Bytes())
	return due, tenant, queue, key, due >= 0 && d.Err == nil && len(d.B) == 0
}
