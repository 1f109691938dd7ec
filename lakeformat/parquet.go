package lakeformat

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/parquet"
	pqcompress "github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// The Parquet settings are part of the lake's bytes, like the compression
// settings in compress.go: the golden files pin them.
const (
	// CreatedBy is the created_by string of every Parquet file the lake
	// writes. It never changes with the library's version, so that the bytes
	// do not either; it parses as "<application> version <v> (build <b>)".
	CreatedBy = "queen-lakeformat version 1 (build format-1)"

	// RowGroupRows is the most rows a row group holds.
	RowGroupRows = 100_000

	// rowGroupBytes bounds the buffered column bytes of one row group, so
	// that a window of large payloads does not hold 100,000 of them at once.
	rowGroupBytes = 128 << 20
	// dictLimit is the dictionary page size limit. The partition column is
	// the only one dictionary-encoded, and a row group closes before its
	// distinct names reach dictBudget, so the dictionary never falls back to
	// PLAIN (whose encoding_stats arrow-go writes in map order).
	dictLimit  = 64 << 20
	dictBudget = 16 << 20
	// maxValueBytes is the largest payload, partition or transaction id a
	// Parquet object takes: offsets into a row group's buffers are int32.
	maxValueBytes = 1 << 30

	// zstd level 1 (klauspost's SpeedFastest), Arrow's default for Parquet too.
	parquetZstdLevel = 1
	dataPageBytes    = 1 << 20
	writeBatchRows   = 1024
)

// The footer metadata keys that name where a file's records came from.
const (
	FooterQueue  = "queen.queue"
	FooterTenant = "queen.tenant"
)

// Schema returns the lake's Parquet schema:
//
//	message queen_record {
//	  required binary partition (STRING);
//	  required int64 offset;
//	  required binary transaction_id (STRING);
//	  required int64 ts (TIMESTAMP(MICROS,true));
//	  optional binary payload (STRING);
//	}
func Schema() *schema.GroupNode {
	str := schema.StringLogicalType{}
	node := func(n schema.Node, err error) schema.Node {
		if err != nil {
			panic(err) // the schema is a constant
		}
		return n
	}
	root, err := schema.NewGroupNode("queen_record", parquet.Repetitions.Required, schema.FieldList{
		node(schema.NewPrimitiveNodeLogical("partition", parquet.Repetitions.Required, str, parquet.Types.ByteArray, -1, -1)),
		node(schema.NewPrimitiveNode("offset", parquet.Repetitions.Required, parquet.Types.Int64, -1, -1)),
		node(schema.NewPrimitiveNodeLogical("transaction_id", parquet.Repetitions.Required, str, parquet.Types.ByteArray, -1, -1)),
		node(schema.NewPrimitiveNodeLogical("ts", parquet.Repetitions.Required,
			schema.NewTimestampLogicalType(true, schema.TimeUnitMicros), parquet.Types.Int64, -1, -1)),
		node(schema.NewPrimitiveNodeLogical("payload", parquet.Repetitions.Optional, str, parquet.Types.ByteArray, -1, -1)),
	}, -1)
	if err != nil {
		panic(err)
	}
	return root
}

func writerProperties(c Codec) *parquet.WriterProperties {
	codec, level := pqcompress.Codecs.Zstd, parquetZstdLevel
	if c == Snappy {
		codec, level = pqcompress.Codecs.Snappy, pqcompress.DefaultCompressionLevel
	}
	return parquet.NewWriterProperties(
		parquet.WithVersion(parquet.V2_6),
		parquet.WithDataPageVersion(parquet.DataPageV1),
		parquet.WithCreatedBy(CreatedBy),
		parquet.WithCompression(codec),
		parquet.WithCompressionLevel(level),
		parquet.WithDictionaryDefault(false),
		parquet.WithDictionaryFor("partition", true),
		parquet.WithDictionaryPageSizeLimit(dictLimit),
		parquet.WithDataPageSize(dataPageBytes),
		parquet.WithBatchSize(writeBatchRows),
		parquet.WithMaxRowGroupLength(RowGroupRows),
		parquet.WithStatsFor("payload", false),
		parquet.WithPageIndexEnabled(false),
		parquet.WithBloomFilterEnabled(false),
	)
}

// noClose hides the caller's writer's Close from arrow-go, which would close it.
type noClose struct{ io.Writer }

// parquetEncoder buffers one row group column by column and writes it with
// arrow-go's low-level column writers.
type parquetEncoder struct {
	fw *file.Writer

	// The open row group.
	// INVARIANT: every column holds rows entries (payload: rows levels).
	rows       int
	partitions []parquet.ByteArray // equal consecutive names share bytes
	offsets    []int64
	txBytes    []byte
	txOffs     []int32 // len rows+1
	tss        []int64
	payBytes   []byte
	payOffs    []int32 // len (non-null payloads)+1
	payDefs    []int16
	dictBytes  int // bytes of the distinct partition names so far
	bufBytes   int

	total int64 // PLAIN-encoded bytes of every row so far
}

func newParquetEncoder(w io.Writer, o Options) (*parquetEncoder, error) {
	meta := metadata.NewKeyValueMetadata()
	if err := meta.Append(FooterQueue, o.Queue); err != nil {
		return nil, fmt.Errorf("%w: queue %q is not valid UTF-8", ErrBadSetting, o.Queue)
	}
	if err := meta.Append(FooterTenant, o.Tenant); err != nil {
		return nil, fmt.Errorf("%w: tenant %q is not valid UTF-8", ErrBadSetting, o.Tenant)
	}
	fw, err := file.NewParquetWriterWithError(noClose{w}, Schema(),
		file.WithWriterProps(writerProperties(o.Codec)), file.WithWriteMetadata(meta))
	if err != nil {
		return nil, fmt.Errorf("lakeformat: start parquet file: %w", err)
	}
	e := &parquetEncoder{fw: fw}
	e.reset()
	return e, nil
}

func (e *parquetEncoder) reset() {
	e.rows, e.dictBytes, e.bufBytes = 0, 0, 0
	e.partitions, e.offsets, e.tss = e.partitions[:0], e.offsets[:0], e.tss[:0]
	e.txBytes, e.txOffs = e.txBytes[:0], append(e.txOffs[:0], 0)
	e.payBytes, e.payOffs, e.payDefs = e.payBytes[:0], append(e.payOffs[:0], 0), e.payDefs[:0]
}

func (e *parquetEncoder) add(r *Record) error {
	if len(r.Payload) > maxValueBytes || len(r.TransactionID) > maxValueBytes || len(r.Partition) > maxValueBytes {
		return fmt.Errorf("%w: partition %q offset %d is larger than %d bytes, the most a Parquet value holds here",
			ErrInvalidRecord, r.Partition, r.Offset, maxValueBytes)
	}
	if n := len(e.partitions); n == 0 || string(e.partitions[n-1]) != r.Partition {
		e.partitions = append(e.partitions, parquet.ByteArray(r.Partition))
		e.dictBytes += len(r.Partition) + 4
	} else {
		e.partitions = append(e.partitions, e.partitions[n-1])
	}
	e.offsets = append(e.offsets, r.Offset)
	e.txBytes = append(e.txBytes, r.TransactionID...)
	e.txOffs = append(e.txOffs, int32(len(e.txBytes)))
	e.tss = append(e.tss, r.Ts)
	plain := 4 + len(r.Partition) + 8 + 4 + len(r.TransactionID) + 8
	if len(r.Payload) == 0 {
		e.payDefs = append(e.payDefs, 0)
	} else {
		n := len(e.payBytes)
		e.payBytes = appendPayload(e.payBytes, r.Payload, false)
		e.payOffs = append(e.payOffs, int32(len(e.payBytes)))
		e.payDefs = append(e.payDefs, 1)
		plain += 4 + len(e.payBytes) - n
	}
	e.rows++
	e.bufBytes += plain
	e.total += int64(plain)
	if e.rows >= RowGroupRows || e.bufBytes >= rowGroupBytes || e.dictBytes >= dictBudget {
		return e.flushRowGroup()
	}
	return nil
}

func (e *parquetEncoder) size() int64 { return e.total }

// flushRowGroup writes the buffered rows as one row group.
func (e *parquetEncoder) flushRowGroup() (err error) {
	if e.rows == 0 {
		return nil
	}
	defer func() {
		if r := recover(); r != nil { // arrow-go panics on some write errors
			err = fmt.Errorf("lakeformat: write parquet row group: %v", r)
		}
	}()
	rg, err := e.fw.AppendRowGroupChecked()
	if err != nil {
		return fmt.Errorf("lakeformat: start parquet row group: %w", err)
	}
	writes := []func(cw file.ColumnChunkWriter) (int64, error){
		func(cw file.ColumnChunkWriter) (int64, error) {
			return cw.(*file.ByteArrayColumnChunkWriter).WriteBatch(e.partitions, nil, nil)
		},
		func(cw file.ColumnChunkWriter) (int64, error) {
			return cw.(*file.Int64ColumnChunkWriter).WriteBatch(e.offsets, nil, nil)
		},
		func(cw file.ColumnChunkWriter) (int64, error) {
			return cw.(*file.ByteArrayColumnChunkWriter).WriteBatchArrow(e.txBytes, e.txOffs, nil, nil)
		},
		func(cw file.ColumnChunkWriter) (int64, error) {
			return cw.(*file.Int64ColumnChunkWriter).WriteBatch(e.tss, nil, nil)
		},
		func(cw file.ColumnChunkWriter) (int64, error) {
			return cw.(*file.ByteArrayColumnChunkWriter).WriteBatchArrow(e.payBytes, e.payOffs, e.payDefs, nil)
		},
	}
	for i, write := range writes {
		cw, err := rg.NextColumn()
		if err != nil {
			return fmt.Errorf("lakeformat: parquet column %d: %w", i, err)
		}
		if _, err := write(cw); err != nil {
			return fmt.Errorf("lakeformat: parquet column %d: %w", i, err)
		}
	}
	if err := rg.Close(); err != nil {
		return fmt.Errorf("lakeformat: close parquet row group: %w", err)
	}
	e.reset()
	return nil
}

func (e *parquetEncoder) close() error {
	if err := e.flushRowGroup(); err != nil {
		return err
	}
	if err := e.fw.Close(); err != nil {
		return fmt.Errorf("lakeformat: finish parquet file: %w", err)
	}
	return nil
}
