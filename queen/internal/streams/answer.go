package streams

import (
	"fmt"

	"github.com/queen-mq/queen-go/queen/internal/family"
)

func appendRegister(b []byte, a *RegisterAnswer) []byte {
	e := family.Encoder(b)
	e.Byte(family.Bit(a.Fresh) | family.Bit(a.Reset)<<1 | family.Bit(a.Mismatch)<<2)
	e.Str(a.Query.Name)
	e.Byte(a.Query.encode()...)
	return e
}

// DecodeRegister reads the answer of a RegisterOp.
func DecodeRegister(b []byte) (RegisterAnswer, error) {
	d := family.NewDecoder(b, ErrCorrupt)
	flags := d.Byte()
	n := d.Str()
	if d.Err != nil {
		return RegisterAnswer{}, fmt.Errorf("register answer: %w", d.Err)
	}
	q, err := decodeQuery(n, d.B)
	if err != nil {
		return RegisterAnswer{}, fmt.Errorf("%w: register answer: %w", ErrCorrupt, err)
	}
	return RegisterAnswer{Query: q, Fresh: flags&1 != 0, Reset: flags&2 != 0, Mismatch: flags&4 != 0}, nil
}
