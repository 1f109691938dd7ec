package lakeformat

import (
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// The compression settings are part of the lake's bytes: changing any of
// them changes every object, and the golden files say so.
//
// INVARIANT: zstd streams are written by the streaming Encoder only (never
// EncodeAll, whose frame header differs) and never flushed mid-stream; gzip
// streams come from klauspost's gzip (never the standard library's, whose
// bytes differ) with a zero header.
const (
	// zstd's fastest level: on JSON lines it compresses as well as the
	// default level here (4.5 to 1 on the benchmark's records) and is 40%
	// faster.
	zstdLevel = zstd.SpeedFastest
	gzipLevel = gzip.DefaultCompression
)

// zstdOptions are the pinned options of every zstd stream the lake writes.
// One goroutine per stream: the bytes do not depend on it, the memory does.
var zstdOptions = []zstd.EOption{
	zstd.WithEncoderLevel(zstdLevel),
	zstd.WithEncoderConcurrency(1),
	zstd.WithEncoderCRC(true),
}

var zstdEncoders = sync.Pool{New: func() any {
	enc, err := zstd.NewWriter(nil, zstdOptions...)
	if err != nil {
		panic(err) // the options are constants
	}
	return enc
}}

var gzipWriters = sync.Pool{New: func() any {
	w, err := gzip.NewWriterLevel(nil, gzipLevel)
	if err != nil {
		panic(err) // the level is a constant
	}
	return w
}}

// compressor is a codec's streaming writer that goes back to its pool on Close.
type compressor struct {
	io.Writer
	close func() error
}

func (c *compressor) Close() error { return c.close() }

// newCompressor wraps w in the streaming writer of codec c (Zstd, Gzip or
// None). Closing it finishes the stream; it never closes w.
func newCompressor(w io.Writer, c Codec) (io.WriteCloser, error) {
	switch c {
	case Zstd:
		enc := zstdEncoders.Get().(*zstd.Encoder)
		enc.Reset(w)
		return &compressor{Writer: enc, close: func() error {
			err := enc.Close()
			enc.Reset(nil)
			zstdEncoders.Put(enc)
			return err
		}}, nil
	case Gzip:
		gz := gzipWriters.Get().(*gzip.Writer)
		gz.Reset(w)
		return &compressor{Writer: gz, close: func() error {
			err := gz.Close()
			gz.Reset(io.Discard)
			gzipWriters.Put(gz)
			return err
		}}, nil
	case None:
		return &compressor{Writer: w, close: func() error { return nil }}, nil
	}
	return nil, fmt.Errorf("%w: no stream codec %v", ErrBadSetting, c)
}

// newDecompressor reads the stream of codec c (Zstd, Gzip or None) from r.
func newDecompressor(r io.Reader, c Codec) (io.ReadCloser, error) {
	switch c {
	case Zstd:
		dec, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("lakeformat: open zstd stream: %w", err)
		}
		return dec.IOReadCloser(), nil
	case Gzip:
		gz, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("lakeformat: open gzip stream: %w", err)
		}
		return gz, nil
	case None:
		return io.NopCloser(r), nil
	}
	return nil, fmt.Errorf("%w: no stream codec %v", ErrBadSetting, c)
}
