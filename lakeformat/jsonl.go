package lakeformat

import (
	"bytes"
	"io"
	"strconv"
	"unicode/utf8"
)

// AppendLine appends r as one JSONL line, newline included:
//
//	{"partition":…,"offset":…,"transactionId":…,"ts":"…Z","payload":…}
//
// The payload is written byte for byte when it is valid JSON in valid UTF-8,
// with each raw line break (CR or LF, which valid JSON holds only as
// whitespace) written as a space; as null when it is empty; and otherwise as
// a JSON string of its bytes, each invalid UTF-8 byte read as U+FFFD. Every
// line is one valid JSON object whatever the payload holds.
//
// REQUIRES: r.Validate() == nil.
func AppendLine(dst []byte, r *Record) []byte {
	dst = append(dst, `{"partition":`...)
	dst = appendJSONString(dst, r.Partition)
	dst = append(dst, `,"offset":`...)
	dst = strconv.AppendInt(dst, r.Offset, 10)
	dst = append(dst, `,"transactionId":`...)
	dst = appendJSONString(dst, r.TransactionID)
	dst = append(dst, `,"ts":"`...)
	dst = AppendTs(dst, r.Ts)
	dst = append(dst, `","payload":`...)
	dst = appendPayload(dst, r.Payload, true)
	return append(dst, "}\n"...)
}

// appendPayload appends the JSON text the lake stores for payload p: see
// AppendLine. With oneLine false, line breaks are kept (Parquet).
func appendPayload(dst, p []byte, oneLine bool) []byte {
	if len(p) == 0 {
		return append(dst, "null"...)
	}
	if !validJSON(p) {
		return appendJSONString(dst, string(p)) // rare: not worth a copy-free path
	}
	if !oneLine || bytes.IndexByte(p, '\n') < 0 && bytes.IndexByte(p, '\r') < 0 {
		return append(dst, p...)
	}
	start := len(dst)
	dst = append(dst, p...)
	for i, c := range dst[start:] {
		if c == '\n' || c == '\r' {
			dst[start+i] = ' '
		}
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string: '"' and '\\' escaped, control
// characters as \b \f \n \r \t or \u00XX, invalid UTF-8 bytes as \ufffd,
// everything else (U+2028 and U+2029 included) as it is.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		i += plainRun(readOnly(s[i:]))
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || n > 1 {
				i += n
				continue
			}
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			if c < 0x20 {
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			} else {
				dst = append(dst, `\ufffd`...)
			}
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// jsonlChunk is how many bytes of lines the JSONL encoder gathers before it
// hands them to the compressor.
const jsonlChunk = 64 << 10

// jsonlEncoder writes JSONL lines through a stream codec.
type jsonlEncoder struct {
	out   io.WriteCloser // the compressor over the caller's writer
	buf   []byte         // lines not yet handed to out
	total int64          // bytes of lines so far
}

func newJSONLEncoder(w io.Writer, c Codec) (*jsonlEncoder, error) {
	out, err := newCompressor(w, c)
	if err != nil {
		return nil, err
	}
	return &jsonlEncoder{out: out, buf: make([]byte, 0, jsonlChunk+4096)}, nil
}

func (e *jsonlEncoder) add(r *Record) error {
	n := len(e.buf)
	e.buf = AppendLine(e.buf, r)
	e.total += int64(len(e.buf) - n)
	if len(e.buf) >= jsonlChunk {
		return e.flush()
	}
	return nil
}

func (e *jsonlEncoder) flush() error {
	_, err := e.out.Write(e.buf)
	e.buf = e.buf[:0]
	return err
}

func (e *jsonlEncoder) size() int64 { return e.total }

func (e *jsonlEncoder) close() error {
	err := e.flush()
	if cerr := e.out.Close(); err == nil {
		err = cerr
	}
	return err
}
