package streams

// grows (raftlog.StorageGrower): registering a query, and a cycle that
// upserts state, may grow the store and are refused while a disk is full
// (a cycle's pushes are refused by their own op); a cycle that only
// deletes state and acks, a query's delete and a source's drop go on.
func grows(data []byte) bool {
	op, err := decodeOp(data)
	if err != nil {
		return false
	}
	switch o := op.(type) {
	case *RegisterOp:
		return true
	case *CycleOp:
		for _, s := range o.Ops {
			if s.Kind == StateUpsert {
				return true
			}
		}
	}
	return false
}
