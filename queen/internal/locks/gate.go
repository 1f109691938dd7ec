package locks

import "github.com/queen-mq/queen-go/raftlog"

var _ raftlog.StorageGrower = applier{}

// Grows (raftlog.StorageGrower): an acquire may add a permit's row and is
// refused while a disk is full; renew rewrites a row, release deletes
// one, get reads: a holder can finish and let go.
func (applier) Grows(data []byte) bool {
	c, err := decodeCall(data)
	if err != nil {
		return false // apply refuses it
	}
	for _, o := range c.Ops {
		if o.Kind == KindAcquire {
			return true
		}
	}
	return false
}
