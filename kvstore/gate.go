package kvstore

import "github.com/queen-mq/queen-go/raftlog"

// The storage gate (raftlog.StorageGrower): a call with a put,
// putIfAbsent or incr may grow the store and is refused while a disk is
// full; deletes, checks and reads are not, nor are sweeps. The S3 sink's
// own rows pass by its context (raftlog.AllowWhenFull), not by their
// namespace, which any client could name.
var (
	_ raftlog.StorageGrower = applier{}
	_ raftlog.StorageGrower = sweeper{}
)

// Grows reports whether the call holds a write that may add a row.
func (applier) Grows(data []byte) bool {
	c, err := decodeCall(data)
	if err != nil {
		return false // apply refuses it
	}
	for _, o := range c.ops {
		if o.kind == kindPut || o.kind == kindPutIfAbsent || o.kind == kindIncr {
			return true
		}
	}
	return false
}

// Grows is false: a sweep only deletes.
func (sweeper) Grows([]byte) bool { return false }
