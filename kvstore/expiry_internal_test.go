package kvstore

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzSweepOp: a SweepOp survives its encoding, and bytes that decode as
// one encode back to themselves.
func FuzzSweepOp(f *testing.F) {
	f.Add((&SweepOp{Tenant: "t", NS: "app", Limit: SweepLimit}).Op().Data, "t", "ns", 5)
	f.Add([]byte{1, 0, 0, 0}, "", "", 0)
	f.Fuzz(func(t *testing.T, raw []byte, tenant, ns string, limit int) {
		if o, err := decodeSweepOp(raw); err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("refusal %v", err)
			}
		} else if again := o.Op().Data; !bytes.Equal(again, raw) {
			t.Fatalf("%x decodes to %+v, which encodes to %x", raw, o, again)
		}
		op := SweepOp{Tenant: tenant, NS: ns, Limit: min(max(limit, 0), SweepLimit*10)}
		got, err := decodeSweepOp(op.Op().Data)
		if err != nil || got != op {
			t.Fatalf("%+v decoded as %+v, %v", op, got, err)
		}
	})
}
