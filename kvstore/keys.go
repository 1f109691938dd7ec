package kvstore

import (
	"encoding/binary"
	"fmt"
)

// The KV family's keys in the shard's store. raftlog keeps 0x00 and
// 'Q','P','C','R','D','N' for itself; these bytes are ours:
//
//	'K' | uvarint len | tenant | uvarint len | namespace | key bytes → row
//	'k' 'v'                                                         → the version counter
//
// Tenant and namespace are length-prefixed, so neither can run into the
// next field, and the rows of one (tenant, namespace) share a prefix and
// come out of a scan in key byte order.
const (
	prefixRow     = 'K'
	prefixCounter = 'k'
)

// counterKey holds the shard-wide version counter: the last version given.
var counterKey = []byte{prefixCounter, 'v'}

// nsPrefix is the key prefix of every row of (tenant, ns).
func nsPrefix(tenant, ns string) []byte {
	b := make([]byte, 0, 1+2+len(tenant)+1+len(ns)+32)
	b = append(b, prefixRow)
	b = binary.AppendUvarint(b, uint64(len(tenant)))
	b = append(b, tenant...)
	b = binary.AppendUvarint(b, uint64(len(ns)))
	return append(b, ns...)
}

func rowKey(tenant, ns, key string) []byte { return append(nsPrefix(tenant, ns), key...) }

// row is a stored row. INVARIANT: version > 0; expiresAt is 0 (never) or a
// stamp; value is compact JSON.
type row struct {
	version   uint64
	expiresAt int64 // µs on the broker clock; 0 = never
	updatedAt int64 // stamp of the entry that wrote it
	value     []byte
}

// live reports whether the row exists at broker time stamp: a row whose
// expiresAt is at or before the stamp is absent.
func (r *row) live(stamp int64) bool { return r.expiresAt == 0 || r.expiresAt > stamp }

// rowVersion is the first byte of a stored row; it only grows.
const rowVersion = 1

// encode: rowVersion | version (uvarint) | expiresAt (varint) | updatedAt (varint) | value.
func (r *row) encode() []byte {
	b := make([]byte, 0, 1+3*binary.MaxVarintLen64+len(r.value))
	b = append(b, rowVersion)
	b = binary.AppendUvarint(b, r.version)
	b = binary.AppendVarint(b, r.expiresAt)
	b = binary.AppendVarint(b, r.updatedAt)
	return append(b, r.value...)
}

// decodeRow reads a stored row; its value aliases b.
func decodeRow(b []byte) (row, error) {
	var r row
	if len(b) == 0 || b[0] != rowVersion {
		return r, fmt.Errorf("%w: row version", ErrCorrupt)
	}
	d := newDecoder(b[1:])
	r.version = d.Uvarint()
	r.expiresAt = d.Varint()
	r.updatedAt = d.Varint()
	if d.Err != nil || r.version == 0 {
		return row{}, fmt.Errorf("%w: row", ErrCorrupt)
	}
	r.value = d.B
	return r, nil
}
