package gen

import (
	"fmt"
	"io"

	"github.com/queen-mq/queen-go/lakeformat"
)

// AllOptions are every format and codec the lake writes.
var AllOptions = []lakeformat.Options{
	{Format: lakeformat.JSONL, Codec: lakeformat.Zstd},
	{Format: lakeformat.JSONL, Codec: lakeformat.Gzip},
	{Format: lakeformat.JSONL, Codec: lakeformat.None},
	{Format: lakeformat.Parquet, Codec: lakeformat.Zstd},
	{Format: lakeformat.Parquet, Codec: lakeformat.Snappy},
}

// Encode writes records to w as one object of options o, through one
// lakeformat.Encoder.
func Encode(w io.Writer, o lakeformat.Options, records []lakeformat.Record) error {
	enc, err := lakeformat.NewEncoder(w, o)
	if err != nil {
		return err
	}
	for i := range records {
		if err := enc.Add(&records[i]); err != nil {
			return fmt.Errorf("add record %d: %w", i, err)
		}
	}
	return enc.Close()
}
