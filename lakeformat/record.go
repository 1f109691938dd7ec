package lakeformat

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// Record is one record of a queue partition's log, as the lake stores it.
type Record struct {
	// Partition is the partition's name: non-empty, valid UTF-8.
	Partition string
	// Offset is the record's offset in its partition: 0 or more.
	Offset int64
	// TransactionID is the producer's transaction id (or the broker's message
	// id when the producer sent none): valid UTF-8, may be empty.
	TransactionID string
	// Ts is the broker's stamp of the push, in microseconds since the Unix
	// epoch, UTC, within [MinTs, MaxTs].
	Ts int64
	// Payload is the stored payload, byte for byte; empty means none (null).
	Payload []byte
}

// The range of stamps the lake can render: from the epoch to the last
// microsecond of the year 9999, so that every ts has a four-digit year.
const (
	MinTs int64 = 0
	MaxTs int64 = 253402300799999999
)

// ErrInvalidRecord is wrapped by every error that refuses a record.
var ErrInvalidRecord = errors.New("lakeformat: invalid record")

// Validate reports the first field of r that the lake cannot store, in an
// error wrapping ErrInvalidRecord that names the field and its value.
func (r *Record) Validate() error {
	return r.validate(false)
}

// validate is Validate, with the partition name taken as valid when
// partitionKnown: the encoders check a name once per run of records.
func (r *Record) validate(partitionKnown bool) error {
	switch {
	case !partitionKnown && r.Partition == "":
		return fmt.Errorf("%w: partition is empty (offset %d)", ErrInvalidRecord, r.Offset)
	case !partitionKnown && !utf8.ValidString(r.Partition):
		return fmt.Errorf("%w: partition %q is not valid UTF-8", ErrInvalidRecord, r.Partition)
	case r.Offset < 0:
		return fmt.Errorf("%w: partition %q: offset %d is negative", ErrInvalidRecord, r.Partition, r.Offset)
	case !utf8.ValidString(r.TransactionID):
		return fmt.Errorf("%w: partition %q offset %d: transactionId %q is not valid UTF-8",
			ErrInvalidRecord, r.Partition, r.Offset, r.TransactionID)
	case r.Ts < MinTs || r.Ts > MaxTs:
		return fmt.Errorf("%w: partition %q offset %d: ts %d is outside %d..=%d microseconds",
			ErrInvalidRecord, r.Partition, r.Offset, r.Ts, MinTs, MaxTs)
	}
	return nil
}

// ErrOutOfOrder is wrapped by the error an Encoder returns for a record that
// does not follow the previous one in (partition, offset) order.
var ErrOutOfOrder = errors.New("lakeformat: record out of order")

// Less reports whether a sorts before b in the lake's order: by partition
// name (bytewise), then by offset.
func Less(a, b *Record) bool {
	if a.Partition != b.Partition {
		return a.Partition < b.Partition
	}
	return a.Offset < b.Offset
}

// checkOrder returns nil when next may follow prev in one object: a greater
// partition, or the same partition with a greater offset.
func checkOrder(prev, next *Record) error {
	if Less(prev, next) {
		return nil
	}
	return fmt.Errorf("%w: partition %q offset %d after partition %q offset %d",
		ErrOutOfOrder, next.Partition, next.Offset, prev.Partition, prev.Offset)
}
