package lakeformat

import (
	"bytes"
	"fmt"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// ParquetFile is what DecodeParquet reads from a Parquet object.
type ParquetFile struct {
	Records []Record
	// Queue and Tenant are the footer's queen.queue and queen.tenant.
	Queue, Tenant string
	// CreatedBy is the footer's created_by.
	CreatedBy string
	// RowGroups is how many row groups the file has.
	RowGroups int
}

// DecodeParquet reads a Parquet object the lake wrote. It refuses, with an
// error wrapping ErrCorrupt, a file whose schema is not Schema().
func DecodeParquet(data []byte) (pf *ParquetFile, err error) {
	defer func() {
		if r := recover(); r != nil { // arrow-go panics on some corrupt input
			pf, err = nil, fmt.Errorf("%w: parquet: %v", ErrCorrupt, r)
		}
	}()
	rd, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: parquet: %w", ErrCorrupt, err)
	}
	defer rd.Close()
	md := rd.MetaData()
	if !md.Schema.Root().Equals(Schema()) {
		return nil, fmt.Errorf("%w: parquet schema is not queen_record: %s", ErrCorrupt, md.Schema.Root().Name())
	}
	pf = &ParquetFile{CreatedBy: md.GetCreatedBy(), RowGroups: rd.NumRowGroups()}
	kv := md.KeyValueMetadata()
	if v := kv.FindValue(FooterQueue); v != nil {
		pf.Queue = *v
	}
	if v := kv.FindValue(FooterTenant); v != nil {
		pf.Tenant = *v
	}
	if n := rd.NumRows(); n < 0 || n > 1<<31 {
		return nil, fmt.Errorf("%w: parquet file claims %d rows", ErrCorrupt, n)
	}
	pf.Records = make([]Record, 0, rd.NumRows())
	for g := 0; g < rd.NumRowGroups(); g++ {
		recs, err := readRowGroup(rd.RowGroup(g))
		if err != nil {
			return nil, fmt.Errorf("%w: parquet row group %d: %w", ErrCorrupt, g, err)
		}
		pf.Records = append(pf.Records, recs...)
	}
	return pf, nil
}

func readRowGroup(rg *file.RowGroupReader) ([]Record, error) {
	n := rg.NumRows()
	if n < 0 || n > RowGroupRows {
		return nil, fmt.Errorf("%d rows", n)
	}
	recs := make([]Record, n)
	strs := make([]parquet.ByteArray, n)
	ints := make([]int64, n)
	defs := make([]int16, n)
	for col := 0; col < 5; col++ {
		cr, err := rg.Column(col)
		if err != nil {
			return nil, err
		}
		var got int64
		var vals int
		switch c := cr.(type) {
		case *file.ByteArrayColumnChunkReader:
			got, vals, err = c.ReadBatch(n, strs, defs, nil)
		case *file.Int64ColumnChunkReader:
			got, vals, err = c.ReadBatch(n, ints, nil, nil)
		default:
			return nil, fmt.Errorf("column %d has type %T", col, cr)
		}
		if err != nil {
			return nil, fmt.Errorf("column %d: %w", col, err)
		}
		if got != n {
			return nil, fmt.Errorf("column %d: %d of %d rows", col, got, n)
		}
		v := 0
		for i := range recs {
			r := &recs[i]
			switch col {
			case 0:
				r.Partition = string(strs[i])
			case 1:
				r.Offset = ints[i]
			case 2:
				r.TransactionID = string(strs[i])
			case 3:
				r.Ts = ints[i]
			case 4:
				if defs[i] == 1 {
					if v >= vals {
						return nil, fmt.Errorf("payload: %d values for more levels", vals)
					}
					r.Payload = bytes.Clone(strs[v])
					v++
				}
			}
		}
	}
	for i := range recs {
		if err := recs[i].Validate(); err != nil {
			return nil, err
		}
	}
	return recs, nil
}
