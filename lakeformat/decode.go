package lakeformat

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ErrCorrupt is wrapped by every error that refuses an object's bytes.
var ErrCorrupt = errors.New("lakeformat: corrupt object")

// maxLineBytes bounds one JSONL line the decoder reads.
const maxLineBytes = 256 << 20

// Decode reads the records of an object of the given format back. For
// Parquet the codec is read from the file and c is ignored. A payload comes
// back as the JSON text the object holds: the stored bytes for valid JSON
// (line breaks as spaces in JSONL), a JSON string for the rest, and empty
// for null.
func Decode(data []byte, f Format, c Codec) ([]Record, error) {
	switch f {
	case JSONL:
		return DecodeJSONL(bytes.NewReader(data), c)
	case Parquet:
		pf, err := DecodeParquet(data)
		if err != nil {
			return nil, err
		}
		return pf.Records, nil
	}
	return nil, fmt.Errorf("%w: format %v is not jsonl or parquet", ErrBadSetting, f)
}

// DecodeJSONL reads a JSONL object of codec c. It is strict: every line must
// be exactly as AppendLine writes it, so that a decoded object re-encodes to
// the same bytes.
func DecodeJSONL(r io.Reader, c Codec) ([]Record, error) {
	dec, err := newDecompressor(r, c)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	defer dec.Close()
	br := bufio.NewReaderSize(dec, 64<<10)
	var out []Record
	var line []byte
	for n := 1; ; n++ {
		line, err = readLine(br, line[:0])
		if err == io.EOF && len(line) == 0 {
			return out, nil
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("%w: line %d: %w", ErrCorrupt, n, err)
		}
		rec, perr := ParseLine(line)
		if perr != nil {
			return nil, fmt.Errorf("line %d: %w", n, perr)
		}
		out = append(out, rec)
	}
}

func readLine(br *bufio.Reader, dst []byte) ([]byte, error) {
	for {
		chunk, err := br.ReadSlice('\n')
		dst = append(dst, chunk...)
		if len(dst) > maxLineBytes {
			return dst, fmt.Errorf("line longer than %d bytes", maxLineBytes)
		}
		if err != bufio.ErrBufferFull {
			return dst, err
		}
	}
}

// ParseLine reads one JSONL line, its newline included, as AppendLine wrote
// it, and refuses anything else with an error wrapping ErrCorrupt.
func ParseLine(line []byte) (Record, error) {
	var r Record
	bad := func(what string) (Record, error) {
		return Record{}, fmt.Errorf("%w: %s in %.200q", ErrCorrupt, what, line)
	}
	p := line
	var ok bool
	if p, ok = bytes.CutPrefix(p, []byte(`{"partition":`)); !ok {
		return bad("no partition first")
	}
	if r.Partition, p, ok = cutString(p); !ok {
		return bad("bad partition")
	}
	if p, ok = bytes.CutPrefix(p, []byte(`,"offset":`)); !ok {
		return bad("no offset after partition")
	}
	i := bytes.IndexByte(p, ',')
	if i < 0 {
		return bad("bad offset")
	}
	off, err := strconv.ParseInt(string(p[:i]), 10, 64)
	if err != nil {
		return bad("bad offset")
	}
	r.Offset, p = off, p[i:]
	if p, ok = bytes.CutPrefix(p, []byte(`,"transactionId":`)); !ok {
		return bad("no transactionId after offset")
	}
	if r.TransactionID, p, ok = cutString(p); !ok {
		return bad("bad transactionId")
	}
	if p, ok = bytes.CutPrefix(p, []byte(`,"ts":"`)); !ok || len(p) < len(tsLayout)+1 {
		return bad("no ts after transactionId")
	}
	if r.Ts, err = ParseTs(string(p[:len(tsLayout)])); err != nil {
		return bad("bad ts")
	}
	p = p[len(tsLayout):]
	if p, ok = bytes.CutPrefix(p, []byte(`","payload":`)); !ok {
		return bad("no payload after ts")
	}
	payload, ok := bytes.CutSuffix(p, []byte("}\n"))
	if !ok {
		return bad("no closing brace and newline")
	}
	if !bytes.Equal(payload, []byte("null")) {
		r.Payload = bytes.Clone(payload)
	}
	if err := r.Validate(); err != nil {
		return Record{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if !bytes.Equal(AppendLine(nil, &r), line) {
		return bad("not the canonical rendering of its record")
	}
	return r, nil
}

// cutString reads the JSON string at the start of p and returns its value
// and the rest of p.
func cutString(p []byte) (string, []byte, bool) {
	if len(p) == 0 || p[0] != '"' {
		return "", p, false
	}
	end, ok := (&validator{p: p}).str(1)
	if !ok {
		return "", p, false
	}
	var s string
	if err := json.Unmarshal(p[:end], &s); err != nil {
		return "", p, false
	}
	return s, p[end:], true
}
