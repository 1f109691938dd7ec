package streams

import (
	"fmt"

	"github.com/queen-mq/queen-go/raftlog/wire"
)

func appendRegister(b []byte, a *RegisterAnswer) []byte {
	var flags byte
	for i, f := range []bool{a.Fresh, a.Reset, a.Mismatch} {
		if f {
			flags |= 1 << i
		}
	}
	b = append(b, flags)
	b = wire.AppendString(b, a.Query.Name)
	return append(b, a.Query.encode()...)
}

// DecodeRegister reads the answer of a RegisterOp.
func DecodeRegister(b []byte) (RegisterAnswer, error) {
	d := wire.NewDecoder(b, ErrCorrupt)
	flags := d.Byte()
	n := string(d.Bytes())
	if d.Err != nil {
		return RegisterAnswer{}, fmt.Errorf("register answer: %w", d.Err)
	}
	q, err := decodeQuery(n, d.B)
	if err != nil {
		return RegisterAnswer{}, fmt.Errorf("%w: register answer: %w", ErrCorrupt, err)
	}
	return RegisterAnswer{Query: q, Fresh: flags&1 != 0, Reset: flags&2 != 0, Mismatch: flags&4 != 0}, nil
}
