package lakeformat_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/lakeformat/internal/gen"
)

func TestRoundTrip(t *testing.T) {
	sets := map[string][]lakeformat.Record{
		"edge":      edgeRecords(),
		"generated": gen.Sorted(gen.Records(5000, 17, 150, 1791007200000000, 3)),
	}
	for name, recs := range sets {
		for _, o := range gen.AllOptions {
			t.Run(name+"/"+o.WriterID(), func(t *testing.T) {
				got, err := lakeformat.Decode(encode(t, o, recs), o.Format, o.Codec)
				if err != nil {
					t.Fatal(err)
				}
				assertRecords(t, got, recs, o.Format == lakeformat.JSONL)
			})
		}
	}
}

// Decoded records encode again to the same bytes: the decoders read what
// the encoder writes exactly, and so can verify a bucket's objects.
func TestDecodeReencode(t *testing.T) {
	for _, o := range gen.AllOptions {
		obj := encode(t, o, edgeRecords())
		recs, err := lakeformat.Decode(obj, o.Format, o.Codec)
		if err != nil {
			t.Fatal(err)
		}
		if again := encode(t, o, recs); !bytes.Equal(again, obj) {
			t.Errorf("%s: decode then encode gives other bytes", o.WriterID())
		}
	}
}

func TestEncoderSize(t *testing.T) {
	recs := edgeRecords()
	var buf bytes.Buffer
	enc, err := lakeformat.NewEncoder(&buf, lakeformat.Options{Format: lakeformat.JSONL, Codec: lakeformat.None})
	if err != nil {
		t.Fatal(err)
	}
	var lines int64
	for i := range recs {
		if err := enc.Add(&recs[i]); err != nil {
			t.Fatal(err)
		}
		lines += int64(len(lakeformat.AppendLine(nil, &recs[i])))
		if enc.Size() != lines || enc.Records() != int64(i+1) {
			t.Fatalf("after %d records: size %d records %d, want %d and %d", i+1, enc.Size(), enc.Records(), lines, i+1)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	if int64(buf.Len()) != lines {
		t.Errorf("uncompressed object of %d bytes, size said %d", buf.Len(), lines)
	}
	pq, err := lakeformat.NewEncoder(&bytes.Buffer{}, lakeformat.Options{Format: lakeformat.Parquet, Codec: lakeformat.Zstd})
	if err != nil {
		t.Fatal(err)
	}
	r := lakeformat.Record{Partition: "p", Offset: 0, TransactionID: "tx", Ts: 1, Payload: []byte(`{"a":1}`)}
	if err := pq.Add(&r); err != nil {
		t.Fatal(err)
	}
	if want := int64(4 + 1 + 8 + 4 + 2 + 8 + 4 + 7); pq.Size() != want {
		t.Errorf("parquet size %d, want %d (PLAIN-encoded values)", pq.Size(), want)
	}
}

func TestEncoderRefusals(t *testing.T) {
	ok := lakeformat.Record{Partition: "p", Offset: 5, TransactionID: "tx", Ts: 10}
	cases := []struct {
		rec  lakeformat.Record
		want error
		says string
	}{
		{lakeformat.Record{Partition: "", Offset: 6, Ts: 10}, lakeformat.ErrInvalidRecord, "partition is empty"},
		{lakeformat.Record{Partition: "p\xff", Offset: 6, Ts: 10}, lakeformat.ErrInvalidRecord, "not valid UTF-8"},
		{lakeformat.Record{Partition: "p", Offset: -1, Ts: 10}, lakeformat.ErrInvalidRecord, "offset -1"},
		{lakeformat.Record{Partition: "p", Offset: 6, TransactionID: "\xc3", Ts: 10}, lakeformat.ErrInvalidRecord, "transactionId"},
		{lakeformat.Record{Partition: "p", Offset: 6, Ts: -1}, lakeformat.ErrInvalidRecord, "ts -1"},
		{lakeformat.Record{Partition: "p", Offset: 6, Ts: lakeformat.MaxTs + 1}, lakeformat.ErrInvalidRecord, "ts 253402300800000000"},
		{lakeformat.Record{Partition: "p", Offset: 5, Ts: 10}, lakeformat.ErrOutOfOrder, `partition "p" offset 5 after partition "p" offset 5`},
		{lakeformat.Record{Partition: "a", Offset: 9, Ts: 10}, lakeformat.ErrOutOfOrder, `partition "a" offset 9`},
	}
	for _, o := range gen.AllOptions {
		var buf bytes.Buffer
		enc, err := lakeformat.NewEncoder(&buf, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := enc.Add(&ok); err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			err := enc.Add(&c.rec)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
				t.Errorf("%s: add %+v: %v, want %v saying %q", o.WriterID(), c.rec, err, c.want, c.says)
			}
		}
		next := lakeformat.Record{Partition: "p", Offset: 6, TransactionID: "tx2", Ts: 11}
		if err := enc.Add(&next); err != nil {
			t.Fatalf("%s: a refused record broke the encoder: %v", o.WriterID(), err)
		}
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		if err := enc.Add(&next); !errors.Is(err, lakeformat.ErrClosed) {
			t.Errorf("%s: add after close: %v, want ErrClosed", o.WriterID(), err)
		}
		got, err := lakeformat.Decode(buf.Bytes(), o.Format, o.Codec)
		if err != nil {
			t.Fatal(err)
		}
		assertRecords(t, got, []lakeformat.Record{ok, next}, o.Format == lakeformat.JSONL)
	}
	if _, err := lakeformat.NewEncoder(&bytes.Buffer{}, lakeformat.Options{Format: lakeformat.Parquet, Codec: lakeformat.Gzip}); !errors.Is(err, lakeformat.ErrBadSetting) {
		t.Errorf("parquet+gzip: %v, want ErrBadSetting", err)
	}
	if _, err := lakeformat.NewEncoder(&bytes.Buffer{}, lakeformat.Options{Format: lakeformat.JSONL, Codec: lakeformat.Snappy}); !errors.Is(err, lakeformat.ErrBadSetting) {
		t.Errorf("jsonl+snappy: %v, want ErrBadSetting", err)
	}
}

type failWriter struct{ after int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.after -= len(p); w.after < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// A writer error stops the encoder for good, with the writer's error.
func TestEncoderWriteError(t *testing.T) {
	recs := gen.Sorted(gen.Records(3000, 3, 150, 1791007200000000, 1))
	for _, o := range gen.AllOptions {
		enc, err := lakeformat.NewEncoder(&failWriter{after: 1000}, o)
		if err != nil {
			t.Fatal(err)
		}
		var failed error
		for i := range recs {
			if failed = enc.Add(&recs[i]); failed != nil {
				break
			}
		}
		if failed == nil {
			failed = enc.Close()
		}
		if failed == nil || !strings.Contains(failed.Error(), "disk full") {
			t.Errorf("%s: %v, want the writer's error", o.WriterID(), failed)
		}
		if err := enc.Add(&recs[len(recs)-1]); err == nil {
			t.Errorf("%s: the encoder took a record after a write error", o.WriterID())
		}
	}
}
