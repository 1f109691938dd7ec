package lakeformat

import (
	"errors"
	"fmt"
	"io"
)

// ErrClosed is returned by an Encoder used after Close or after a write error.
var ErrClosed = errors.New("lakeformat: encoder closed")

// formatEncoder is what each format implements.
type formatEncoder interface {
	add(r *Record) error
	size() int64
	close() error
}

// Encoder streams records into one object, in the lake's order: by
// partition, then offset. It writes to the io.Writer it was given as it goes,
// holding at most one row group (Parquet) or 64 KiB of lines (JSONL) besides
// the codec's own window. An Encoder is not safe for concurrent use.
type Encoder struct {
	opts    Options
	impl    formatEncoder
	records int64
	// prevPartition and prevOffset are the last record added.
	// INVARIANT: every record added sorts after them (see Less).
	prevPartition string
	prevOffset    int64
	err           error // sticky: a write error, or ErrClosed
}

// NewEncoder starts an object of the given options on w. The encoder never
// closes w.
func NewEncoder(w io.Writer, o Options) (*Encoder, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	var impl formatEncoder
	var err error
	switch o.Format {
	case JSONL:
		impl, err = newJSONLEncoder(w, o.Codec)
	case Parquet:
		impl, err = newParquetEncoder(w, o)
	}
	if err != nil {
		return nil, err
	}
	return &Encoder{opts: o, impl: impl}, nil
}

// Add appends one record. A record that is invalid (ErrInvalidRecord) or out
// of order (ErrOutOfOrder) is refused and leaves the encoder as it was; any
// other error is the writer's, and the encoder refuses everything after it.
func (e *Encoder) Add(r *Record) error {
	if e.err != nil {
		return e.err
	}
	if err := r.validate(e.records > 0 && r.Partition == e.prevPartition); err != nil {
		return err
	}
	if e.records > 0 {
		if err := checkOrder(&Record{Partition: e.prevPartition, Offset: e.prevOffset}, r); err != nil {
			return err
		}
	}
	if err := e.impl.add(r); err != nil {
		if errors.Is(err, ErrInvalidRecord) {
			return err
		}
		e.err = fmt.Errorf("lakeformat: encoder failed earlier: %w", err)
		return err
	}
	if e.prevPartition != r.Partition {
		e.prevPartition = r.Partition
	}
	e.prevOffset = r.Offset
	e.records++
	return nil
}

// Records returns how many records were added.
func (e *Encoder) Records() int64 { return e.records }

// Size returns the uncompressed size of the records added so far, the figure
// a window closes on: for JSONL the bytes of the lines, for Parquet the bytes
// of the values PLAIN-encoded (a 4-byte length before each string).
func (e *Encoder) Size() int64 { return e.impl.size() }

// Options returns the options the encoder was started with.
func (e *Encoder) Options() Options { return e.opts }

// Close finishes the object (the codec's end of stream, Parquet's footer).
// The encoder refuses everything after it.
func (e *Encoder) Close() error {
	if e.err != nil {
		return e.err
	}
	e.err = ErrClosed
	return e.impl.close()
}
