package traces

// grows (raftlog.StorageGrower): recording an event grows the store and
// is refused while a disk is full; a sweep deletes and goes on. The tag
// says which, without decoding the rest.
func grows(data []byte) bool {
	return len(data) >= 2 && data[0] == codecVersion && data[1] == tagRecord
}
