package wire

import (
	"errors"
	"strconv"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Decoder reads binary bodies. Its budget caps the bytes one body may
// decompress to, over all its zstd frames. A Decoder is safe for
// concurrent use.
type Decoder struct {
	budget int
	zd     *zstd.Decoder
}

// NewDecoder returns a Decoder whose bodies decompress to at most budget
// bytes (httpd passes its body size limit). It panics when budget is not
// positive: a programmer's mistake at setup.
func NewDecoder(budget int) *Decoder {
	if budget <= 0 {
		panic("wire: NewDecoder needs a positive budget")
	}
	zd, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(uint64(budget)))
	if err != nil {
		panic("wire: zstd decoder: " + err.Error())
	}
	return &Decoder{budget: budget, zd: zd}
}

// inflate decompresses the zstd frame z, of want bytes when want ≥ 0,
// counting its size against *spent; ErrTooLarge when the budget is
// exceeded, an *Error naming where otherwise.
func (d *Decoder) inflate(body, where string, z []byte, want int, spent *int) ([]byte, error) {
	size := 0
	if want >= 0 {
		if want > d.budget-*spent {
			return nil, ErrTooLarge
		}
		// What the frame declares, but never more than its bytes could
		// plausibly hold: a 13-byte body that declares 64 MiB must not
		// reserve them (DecodeAll grows the buffer as it decodes).
		size = min(want, 16*len(z)+4096)
	}
	out, err := d.zd.DecodeAll(z, make([]byte, 0, size))
	switch {
	case errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded):
		return nil, ErrTooLarge
	case err != nil:
		return nil, &Error{Body: body, Where: where, Problem: "zstd: " + err.Error()}
	case want >= 0 && len(out) != want:
		return nil, &Error{Body: body, Where: where, Problem: "decompresses to " + strconv.Itoa(len(out)) + " bytes, not the " + strconv.Itoa(want) + " it declares"}
	}
	*spent += len(out)
	if *spent > d.budget {
		return nil, ErrTooLarge
	}
	return out, nil
}

// encoder is zstd at its fastest level, as the client compresses; one
// frame per EncodeAll, with its content size, as the layout needs.
var encoder = sync.OnceValue(func() *zstd.Encoder {
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		panic("wire: zstd encoder: " + err.Error())
	}
	return e
})

// compress returns one zstd frame of raw.
func compress(raw []byte) []byte { return encoder().EncodeAll(raw, nil) }
