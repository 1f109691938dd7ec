package lakeformat_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/lakeformat/internal/gen"
)

var benchRecords = sync.OnceValue(func() []lakeformat.Record {
	return gen.Sorted(gen.Records(100_000, 100, 150, 1791007200000000, 42))
})

// BenchmarkEncode encodes 100,000 records (150-byte payloads, 100
// partitions) per op; MB/s is of the uncompressed JSONL input.
// The figures in BENCHMARKS.md come from ./bench, which also runs pyarrow.
func BenchmarkEncode(b *testing.B) {
	recs := benchRecords()
	var input int64
	for i := range recs {
		input += int64(len(lakeformat.AppendLine(nil, &recs[i])))
	}
	for _, o := range gen.AllOptions {
		b.Run(o.WriterID(), func(b *testing.B) {
			b.SetBytes(input)
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := gen.Encode(&buf, o, recs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(recs))*float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

func BenchmarkAppendLine(b *testing.B) {
	recs := benchRecords()
	var line []byte
	var n int64
	for i := range recs {
		n += int64(len(lakeformat.AppendLine(nil, &recs[i])))
	}
	b.SetBytes(n / int64(len(recs)))
	i := 0
	for b.Loop() {
		line = lakeformat.AppendLine(line[:0], &recs[i%len(recs)])
		i++
	}
}
