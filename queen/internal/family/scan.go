package family

// ScanFunc is an ordered scan of a shard's store: raftlog.Txn.Scan in
// apply, raftlog.View.Scan in a read.
type ScanFunc func(lower, upper []byte, fn func(key, val []byte) bool) error

// Keys collects the keys of [lower, upper) in order, at most limit (an
// index's entries: what is due, what expired); more says another was
// there.
func Keys(scan ScanFunc, lower, upper []byte, limit int) (keys [][]byte, more bool, err error) {
	err = scan(lower, upper, func(k, _ []byte) bool {
		if len(keys) == limit {
			more = true
			return false
		}
		keys = append(keys, append([]byte(nil), k...))
		return true
	})
	return keys, more, err
}

// Rows calls fn with each row of [lower, upper) that decode reads, in key
// order, until fn answers false. A row that does not decode stops the
// scan with decode's error (a storage error: the node halts rather than
// diverge).
func Rows[T any](scan ScanFunc, lower, upper []byte, decode func(key, val []byte) (T, error), fn func(row T) bool) error {
	var derr error
	err := scan(lower, upper, func(k, v []byte) bool {
		row, err := decode(k, v)
		if err != nil {
			derr = err
			return false
		}
		return fn(row)
	})
	if err == nil {
		err = derr
	}
	return err
}

// Value makes a row decoder of Rows from one of a value alone.
func Value[T any](decode func(val []byte) (T, error)) func(key, val []byte) (T, error) {
	return func(_, val []byte) (T, error) { return decode(val) }
}
