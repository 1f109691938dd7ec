package raftlog

import (
	"testing"

	"github.com/queen-mq/queen-go/raftlog/internal/fuzzcheck"
)

// FuzzNodeStatusOp: a node status survives its encoding, and bytes that
// decode as one encode back to themselves.
func FuzzNodeStatusOp(f *testing.F) {
	f.Add(nodeStatusOp{Node: 2, Full: true, Hundredths: 91_50}.Op().Data, uint64(1), true, uint64(0))
	f.Add(nodeStatusOp{Node: 1 << 40}.Op().Data, uint64(3), false, uint64(100_00))
	f.Add([]byte{1, 1, 2, 0}, uint64(0), false, uint64(100_01))
	f.Fuzz(func(t *testing.T, raw []byte, node uint64, full bool, h uint64) {
		if o, err := decodeNodeStatusOp(raw); err != nil {
			fuzzcheck.Refusal(t, err, ErrCorruptEntry)
		} else {
			fuzzcheck.Canonical(t, "node status op", raw, o.Op().Data)
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
