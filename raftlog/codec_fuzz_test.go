package raftlog_test

import (
	"testing"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/internal/fuzzcheck"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// FuzzDecodeCommand: no input makes DecodeCommand panic, every refusal
// wraps ErrCorruptEntry, and what it accepts encodes back to the same bytes
// (one encoding per command: no two logs mean the same thing).
func FuzzDecodeCommand(f *testing.F) {
	for _, c := range []raftlog.Command{
		{},
		{Clock: 1_795_990_000_000_000},
		{Clock: -1, Ops: []raftlog.Op{{Kind: queuelog.OpPush, Data: []byte{1, 2, 3}}, {Kind: 300}}},
		{Clock: 42, Ops: []raftlog.Op{(&queuelog.TrimOp{Tenant: "00000000-0000-0000-0000-000000000001", Queue: "q", Before: 7}).Op()}},
	} {
		f.Add(raftlog.AppendCommand(nil, &c))
	}
	f.Add([]byte{})
	f.Add([]byte{2, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := raftlog.DecodeCommand(b)
		if err != nil {
			fuzzcheck.Refusal(t, err, raftlog.ErrCorruptEntry)
			return
		}
		fuzzcheck.Canonical(t, "command", b, raftlog.AppendCommand(nil, &c))
	})
}

// FuzzDecodeResult: the same for results.
func FuzzDecodeResult(f *testing.F) {
	for _, r := range []raftlog.Result{
		{Aborted: -1},
		{Stamp: 1_795_990_000_000_000, Aborted: -1, Ops: [][]byte{{}, []byte("answer")}},
		{Stamp: 5, Aborted: 1, Ops: [][]byte{nil, []byte("\x00raftlog-rejected:boom")}},
	} {
		f.Add(raftlog.AppendResult(nil, &r))
	}
	f.Add([]byte{1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := raftlog.DecodeResult(b)
		if err != nil {
			fuzzcheck.Refusal(t, err, raftlog.ErrCorruptEntry)
			return
		}
		if r.Aborted < -1 || r.Aborted >= len(r.Ops) {
			t.Fatalf("decoded a result aborted at op %d of %d", r.Aborted, len(r.Ops))
		}
		fuzzcheck.Canonical(t, "result", b, raftlog.AppendResult(nil, &r))
	})
}
