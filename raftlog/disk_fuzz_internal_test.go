package raftlog

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzNodeStatusOp: a node status survives its encoding, and bytes that
// decode as one encode back to themselves.
func FuzzNodeStatusOp(f *testing.F) {
	f.Add(nodeStatusOp{Node: 2, Full: true, Hundredths: 91_50}.Op().Data, uint64(1), true, uint64(0))
	f.Add(nodeStatusOp{Node: 1 << 40}.Op().Data, uint64(3), false, uint64(100_00))
	f.Add([]byte{1, 1, 2, 0}, uint64(0), false, uint64(100_01))
	f.Fuzz(func(t *testing.T, raw []byte, node uint64, full bool, h uint64) {
		if o, err := decodeNodeStatusOp(raw); err != nil {
			checkRefusal(t, err)
		} else {
			checkCanonical(t, "node status op", raw, o.Op().Data)
		}
		o := nodeStatusOp{Node: node, Full: full, Hundredths: h}
		got, err := decodeNodeStatusOp(o.Op().Data)
		switch {
		case node == 0 || h > 100_00:
			if err == nil {
				t.Fatalf("%+v decoded; node 0 or over 100%% must not", o)
			}
		case err != nil || got != o:
			t.Fatalf("%+v decoded as %+v, %v", o, got, err)
		}
	})
}

// checkCanonical fails the test unless raw, which decode accepted,
// encodes back to itself.
func checkCanonical(t *testing.T, what string, raw, again []byte) {
	t.Helper()
	if !bytes.Equal(raw, again) {
		t.Fatalf("%s decoded from %x encodes to %x", what, raw, again)
	}
}

func checkRefusal(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrCorruptEntry) {
		t.Fatalf("refusal %v does not wrap ErrCorruptEntry", err)
	}
}
