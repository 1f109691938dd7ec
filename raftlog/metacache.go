package raftlog

import "github.com/queen-mq/queen-go/raftlog/internal/storefmt"

// metaCache keeps the queue log's queue and partition metadata in memory,
// as the Update batch holds it, so that a push reads them without a Pebble
// lookup. It changes nothing but speed: a hit returns the value a lookup
// would.
//
// INVARIANT: a cached value equals the key's value in the state the next
// Update starts from. Txn.flush writes every change of a cached key through
// to the cache; a snapshot recovery or a failed Update clears it.
type metaCache struct {
	vals map[string][]byte // nil value: known absent
}

// metaCacheMax bounds the cache; past it, it starts over empty.
const metaCacheMax = 200_000

func cacheable(key []byte) bool {
	return len(key) > 0 && (key[0] == storefmt.PrefixQueue || key[0] == storefmt.PrefixPartition || key[0] == storefmt.PrefixMeta)
}

func (c *metaCache) get(key []byte) (val []byte, found, hit bool) {
	v, hit := c.vals[string(key)]
	return v, v != nil, hit
}

func (c *metaCache) put(key, val []byte) {
	if c.vals == nil || len(c.vals) >= metaCacheMax {
		c.vals = make(map[string][]byte, 1024)
	}
	c.vals[string(key)] = val
}

func (c *metaCache) clear() { c.vals = nil }
