package familytest

import (
	"bytes"
	"testing"

	"github.com/queen-mq/queen-go/raftlog"
)

// FuzzRoundTrip fuzzes decode from seeds: any bytes decode to a value
// that encode writes back as the same bytes, or to an error; never a
// panic.
func FuzzRoundTrip[T any](f *testing.F, decode func([]byte) (T, error), encode func(T) []byte, seeds ...[]byte) {
	fuzz(f, decode, nil, encode, seeds)
}

// FuzzOps is FuzzRoundTrip of a family's op decoder: every op that
// decodes passes check too (the proposer's; nil: none), and encodes back
// (Op) to the same bytes.
func FuzzOps[O interface{ Op() raftlog.Op }](f *testing.F, decode func([]byte) (O, error), check func(O) error, seeds ...[]byte) {
	fuzz(f, decode, check, func(op O) []byte { return op.Op().Data }, seeds)
}

func fuzz[T any](f *testing.F, decode func([]byte) (T, error), check func(T) error, encode func(T) []byte, seeds [][]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := decode(b)
		if err != nil {
			return
		}
		if check != nil {
			if err := check(v); err != nil {
				t.Fatalf("%x decoded to %+v, which its check refuses: %v", b, v, err)
			}
		}
		if again := encode(v); !bytes.Equal(again, b) {
			t.Fatalf("%x decoded to %+v, which encodes to %x", b, v, again)
		}
	})
}
