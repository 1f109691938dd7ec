package family

// ScanFunc is an ordered scan of a shard's store: raftlog.Txn.Scan in
// apply, raftlog.View.Scan in a read.
type ScanFunc func(lower, upper []byte, fn func(key, val []byte) bool) error

// Keys collects the keys of [lower, upper) in order, at most limit (an
// index's entries: what is due, what expired); more says another was
// there.
func Keys(scan ScanFunc, lower, upper []byte, limit int) (keys [][]byte, more bool, err error) {
	return Page(scan, lower, upper, limit, func(k, _ []byte) ([]byte, error) { return append([]byte(nil), k...), nil })
}

// Page collects the rows of [lower, upper) that decode reads, in key
// order, at most limit (a page of a read); more says another was there,
// which is not decoded. A row that does not decode ends the page with
// decode's error, as in Rows.
func Page[T any](scan ScanFunc, lower, upper []byte, limit int, decode func(key, val []byte) (T, error)) (rows []T, more bool, err error) {
	var derr error
	err = scan(lower, upper, func(k, v []byte) bool {
		if len(rows) == limit {
			more = true
			return false
		}
		row, err := decode(k, v)
		if err != nil {
			derr = err
			return false
		}
		rows = append(rows, row)
		return true
	})
	if err == nil {
		err = derr
	}
	return rows, more, err
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
