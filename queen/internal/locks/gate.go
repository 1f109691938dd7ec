package locks

// grows (raftlog.StorageGrower): an acquire may add a permit's row and is
// refused while a disk is full; renew rewrites a row, release deletes
// one, get reads: a holder can finish and let go.
func grows(data []byte) bool {
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
