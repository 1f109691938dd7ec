package streams

import (
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// The streams family's keys in the shard's store. raftlog keeps 0x00 and
// 'Q','P','C','R','D','N','M'; kvstore 'K','k'; consume 'G','g','L','U',
// 'X','x','O','Z','z'; timers 'T','t'; traces 'E'; these are ours. Names
// are length-prefixed.
//
//	'S' tenant name                   → the query (row.go)
//	's' tenant id(16)                 → the query's name: the id a
//	                                    registration minted, until a reset
//	                                    or a delete retires it
//	'W' tenant id(16) partition key   → a state row's value (JSON)
const (
	prefixQuery = 'S'
	prefixID    = 's'
	prefixState = 'W'
)

func name(b []byte, s string) []byte { return wire.AppendString(b, s) }

func queriesPrefix(tenant string) []byte { return name([]byte{prefixQuery}, tenant) }

func queryKey(tenant, query string) []byte { return name(queriesPrefix(tenant), query) }

func idKey(tenant string, id [16]byte) []byte {
	return append(name([]byte{prefixID}, tenant), id[:]...)
}

// stateOf is the prefix of every state row of a query.
func stateOf(tenant string, id [16]byte) []byte {
	return append(name([]byte{prefixState}, tenant), id[:]...)
}

// partitionState is the prefix of a query's state rows of one source
// partition; a row's key follows it unprefixed, so rows sort by key.
func partitionState(tenant string, id [16]byte, partition string) []byte {
	return name(stateOf(tenant, id), partition)
}

func stateKey(tenant string, id [16]byte, partition, key string) []byte {
	return append(partitionState(tenant, id, partition), key...)
}
