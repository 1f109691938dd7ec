package timers

import (
	"bytes"

	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// Peek reads one pending timer; ok false when there is none (never
// scheduled, cancelled, or fired: a fired timer leaves no row).
func Peek(v *raftlog.View, tenant, queue, key string) (Timer, bool, error) {
	b, ok, err := v.Get(timerKey(tenant, queue, key))
	if err != nil || !ok {
		return Timer{}, false, err
	}
	t, err := decodeTimer(queue, key, b)
	return t, err == nil, err
}

// List pages a queue's pending timers in timerKey byte order, after the
// key after (exclusive; "" from the first), up to limit. truncated says
// more follow; the next page starts after the last row's key.
func List(v *raftlog.View, tenant, queue, after string, limit int) (rows []Timer, truncated bool, err error) {
	prefix := queuePrefix(tenant, queue)
	lower := prefix
	if after != "" {
		lower = append(append(bytes.Clone(prefix), after...), 0)
	}
	return family.Page(v.Scan, lower, wire.PrefixEnd(prefix), limit, func(k, val []byte) (Timer, error) {
		return decodeTimer(queue, string(k[len(prefix):]), val)
	})
}

// Count counts a queue's pending timers whose key starts with prefix.
func Count(v *raftlog.View, tenant, queue, prefix string) (int64, error) {
	p := append(queuePrefix(tenant, queue), prefix...)
	var n int64
	err := v.Scan(p, wire.PrefixEnd(p), func(_, _ []byte) bool {
		n++
		return true
	})
	return n, err
}

// NextDue returns when the first pending timer of the shard is due (ok
// false: none is pending).
func NextDue(v *raftlog.View) (int64, bool, error) {
	var due int64
	var found bool
	err := v.Scan([]byte{prefixDue}, []byte{prefixDue + 1}, func(k, _ []byte) bool {
		due, _, _, _, found = parseDue(k)
		return false
	})
	return due, found, err
}
