package consume

// grows is false for every consuming op (raftlog.StorageGrower): pops,
// acks, nacks and DLQ moves, lease extensions, seeks, positions, group
// deletes and purges go on while a disk is full, so that consumers can
// drain what is stored. A DLQ replay's copy is a push, and its push op
// is refused.
func grows([]byte) bool { return false }
