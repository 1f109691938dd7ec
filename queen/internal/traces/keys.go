package traces

import (
	"encoding/binary"

	"github.com/queen-mq/queen-go/raftlog/wire"
)

// The traces family's keys in the shard's store: all under 'E', the one
// prefix byte it takes (raftlog keeps 0x00 and 'Q','P','C','R','D','N','M';
// kvstore 'K','k'; consume 'G','g','L','U','X','x','O'; timers 'T','t').
// Names are length-prefixed but where a name ends its key.
//
//	'E' 'm' tenant uid(8) txid id(16)          → the event (row.go): by message
//	'E' 'n' tenant name ^id(16)                → uid(8) expiresAt(8) txid(raw): by name, newest first
//	'E' 'c' tenant name(raw)                   → count(uvarint) lastStamp(varint): the names
//	'E' 'x' expiresAt(8) tenant uid(8) txid id(16) → nothing: the expiry index
//
// id is the event's: its entry's stamp(8), then its op's place in the
// entry (4) and its nesting (4), so ids are unique in the shard, and in
// stamp order; ^id is its bytes inverted, so a name's events scan newest
// first. An expiry key is its row key behind 'x' and the expiry, so the
// sweep finds the row from it.
const (
	prefix       = 'E'
	kindRow      = 'm'
	kindByName   = 'n'
	kindCount    = 'c'
	kindExpiry   = 'x'
	idBytes      = 16
	expiryHeader = 2 + 8
)

// ID is an event's id (see the keys above).
type ID [idBytes]byte

// newID is the id of the op applied at stamp, op and nested.
func newID(stamp int64, op, nested int) ID {
	var id ID
	binary.BigEndian.PutUint64(id[:8], uint64(stamp))
	binary.BigEndian.PutUint32(id[8:12], uint32(op))
	binary.BigEndian.PutUint32(id[12:], uint32(nested))
	return id
}

// Stamp is the stamp of the entry that recorded the event.
func (id ID) Stamp() int64 { return int64(binary.BigEndian.Uint64(id[:8])) }

func name(b []byte, s string) []byte { return wire.AppendString(b, s) }

// messagePrefix is the prefix of a message's events: the key of each ends
// with its id.
func messagePrefix(tenant string, uid uint64, txid string) []byte {
	b := binary.BigEndian.AppendUint64(name([]byte{prefix, kindRow}, tenant), uid)
	return name(b, txid)
}

func rowKey(tenant string, uid uint64, txid string, id ID) []byte {
	return append(messagePrefix(tenant, uid, txid), id[:]...)
}

// parseRowKey reads a row key's fields after its two prefix bytes.
func parseRowKey(rest []byte) (tenant string, uid uint64, txid string, id ID, ok bool) {
	d := wire.NewDecoder(rest, ErrCorrupt)
	tenant = string(d.Bytes())
	if d.Err != nil || len(d.B) < 8 {
		return "", 0, "", id, false
	}
	uid = binary.BigEndian.Uint64(d.B[:8])
	d.B = d.B[8:]
	txid = string(d.Bytes())
	if d.Err != nil || len(d.B) != idBytes {
		return "", 0, "", id, false
	}
	copy(id[:], d.B)
	return tenant, uid, txid, id, true
}

// namePrefix is the prefix of a name's index entries.
func namePrefix(tenant, traceName string) []byte {
	return name(name([]byte{prefix, kindByName}, tenant), traceName)
}

func nameKey(tenant, traceName string, id ID) []byte {
	b := namePrefix(tenant, traceName)
	for _, c := range id {
		b = append(b, ^c)
	}
	return b
}

// nameValue is a name index entry's value: where the row is, and when it
// expires (so a read skips an expired event without reading its row).
func nameValue(uid uint64, expiresAt int64, txid string) []byte {
	b := binary.BigEndian.AppendUint64(nil, uid)
	b = binary.BigEndian.AppendUint64(b, uint64(expiresAt))
	return append(b, txid...)
}

func parseNameValue(v []byte) (uid uint64, expiresAt int64, txid string, ok bool) {
	if len(v) < 16 {
		return 0, 0, "", false
	}
	return binary.BigEndian.Uint64(v[:8]), int64(binary.BigEndian.Uint64(v[8:16])), string(v[16:]), true
}

// countsPrefix is the prefix of a tenant's name counts; each key ends
// with the name's bytes, so names sort in byte order and a search is a
// prefix.
func countsPrefix(tenant string) []byte { return name([]byte{prefix, kindCount}, tenant) }

func countKey(tenant, traceName string) []byte { return append(countsPrefix(tenant), traceName...) }

func expiryKey(expiresAt int64, row []byte) []byte {
	b := binary.BigEndian.AppendUint64([]byte{prefix, kindExpiry}, uint64(max(expiresAt, 0)))
	return append(b, row[2:]...)
}

// expiredBy is the end of the expiry index's keys that expire at stamp or
// before.
func expiredBy(stamp int64) []byte {
	return binary.BigEndian.AppendUint64([]byte{prefix, kindExpiry}, uint64(stamp)+1)
}

// parseExpiry reads an expiry key: when, and the row key it stands for.
func parseExpiry(k []byte) (expiresAt int64, row []byte, ok bool) {
	if len(k) < expiryHeader || k[0] != prefix || k[1] != kindExpiry {
		return 0, nil, false
	}
	expiresAt = int64(binary.BigEndian.Uint64(k[2:10]))
	row = append([]byte{prefix, kindRow}, k[expiryHeader:]...)
	_, _, _, _, ok = parseRowKey(k[expiryHeader:])
	return expiresAt, row, ok && expiresAt >= 0
}
