package raftlog_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	. "github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/internal/storefmt"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// detKind is the op kind of detApplier.
const detKind OpKind = 300

// detApplier is a test applier on raw keys: op byte, then length-prefixed
// arguments. 's' k v sets, 'c' src dst copies a key (a queue's metadata
// too), 'r' a b deletes [a, b), 'a' aborts, 'e' fails.
type detApplier struct{}

// detTenant is the tenant of the recorded log.
const detTenant = "00000000-0000-0000-0000-000000000001"

func detOp(op byte, args ...[]byte) Op {
	b := []byte{op}
	for _, a := range args {
		b = wire.AppendString(b, string(a))
	}
	return Op{Kind: detKind, Data: b}
}

func (detApplier) Apply(tx *Txn, at ApplyInfo, data []byte) ([]byte, error) {
	d := wire.NewDecoder(data[1:], ErrCorruptEntry)
	switch data[0] {
	case 's':
		tx.Set(d.Bytes(), d.Bytes())
	case 'c':
		src, dst := d.Bytes(), d.Bytes()
		v, ok, err := tx.Get(src)
		if err != nil || !ok {
			return []byte("none"), err
		}
		tx.Set(dst, v)
	case 'r':
		tx.DeleteRange(d.Bytes(), d.Bytes())
	case 'a':
		return nil, Abort([]byte("aborted"))
	case 'e':
		return nil, fmt.Errorf("failed at %d", at.Index)
	}
	return fmt.Appendf(nil, "%d/%d", at.Index, at.Stamp), d.Err
}

// recordedLog makes n entries, drawn from seed, of every kind the state
// machine meets: pushes whose transaction ids repeat (in and out of the
// dedup window), configures, trims, ticks, clocks that go back, commands
// whose later op aborts or fails, writes by another applier to the queue
// log's own metadata, unknown op kinds and undecodable entries.
func recordedLog(seed uint64, n int) [][]byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	queues := []string{"q1", "q2", "q3", "q4"}
	clock := int64(1_000_000_000)
	randPush := func() Op {
		var items []queuelog.PushItem
		for range 1 + rng.IntN(4) {
			payload := make([]byte, rng.IntN(40))
			for i := range payload {
				payload[i] = byte(rng.UintN(256))
			}
			var mid [16]byte
			binary.BigEndian.PutUint64(mid[:], rng.Uint64())
			items = append(items, queuelog.PushItem{Queue: queues[rng.IntN(3)], Partition: fmt.Sprint("p", rng.IntN(4)),
				TransactionID: fmt.Sprint("tx", rng.IntN(40)), MessageID: mid, Dedup: rng.IntN(5) > 0, Payload: payload})
		}
		return (&queuelog.PushOp{Tenant: detTenant, Items: items}).Op()
	}
	var log [][]byte
	for range n {
		switch r := rng.IntN(100); {
		case r < 2:
			clock -= 5_000_000 // a proposer behind
		case r < 6:
			clock += 6_000_000 // past q1's dedup window
		default:
			clock += int64(rng.IntN(2000))
		}
		cmd := Command{Clock: clock}
		switch r := rng.IntN(100); {
		case r < 55:
			cmd.Ops = []Op{randPush()}
		case r < 60:
			opts := []string{`{"dedupWindowSeconds":5}`, `{"dedupWindowSeconds":0}`, `{"x":1,"y":[2]}`, `{"dedupWindowSeconds":null}`}
			cmd.Ops = []Op{(&queuelog.ConfigureOp{Tenant: detTenant, Queue: queues[rng.IntN(4)], Replace: rng.IntN(2) == 0, Options: []byte(opts[rng.IntN(4)])}).Op()}
		case r < 68:
			part := ""
			if rng.IntN(2) == 0 {
				part = fmt.Sprint("p", rng.IntN(4))
			}
			cmd.Ops = []Op{(&queuelog.TrimOp{Tenant: detTenant, Queue: queues[rng.IntN(4)], Partition: part, Before: clock - int64(rng.IntN(20_000_000))}).Op()}
		case r < 76: // rolled back by a later op
			last := detOp('a')
			if rng.IntN(3) == 0 {
				last = detOp('e')
			}
			cmd.Ops = []Op{randPush(), detOp('s', []byte("xk"), []byte("v")), randPush(), last}
		case r < 82: // applied together, one writing the queue log's metadata
			q := []byte(queues[rng.IntN(3)])
			cmd.Ops = []Op{randPush(), detOp('c', storefmt.QueueKey(detTenant, string(q)), storefmt.QueueKey(detTenant, "q4")), randPush()}
		case r < 84: // a range over the metadata: every queue of tenant t forgotten
			cmd.Ops = []Op{detOp('r', storefmt.QueuePrefix(storefmt.PrefixQueue, detTenant, ""), wire.PrefixEnd(wire.AppendString([]byte{storefmt.PrefixQueue}, detTenant))), randPush()}
		case r < 86: // a dedup sweep
			cmd.Ops = []Op{(&queuelog.DedupSweepOp{Tenant: detTenant, Queue: queues[rng.IntN(4)], Partition: fmt.Sprint("p", rng.IntN(4)), Limit: 1 + rng.IntN(20)}).Op()}
		case r < 88: // a tick
		case r < 90:
			cmd.Ops = []Op{randPush(), {Kind: 999}}
		case r < 92:
			log = append(log, []byte{CommandVersion + 1, 0, 0})
			continue
		case r < 94:
			b := AppendCommand(nil, &Command{Clock: clock, Ops: []Op{randPush()}})
			log = append(log, b[:len(b)-3])
			continue
		default:
			cmd.Ops = []Op{randPush(), randPush()}
		}
		log = append(log, AppendCommand(nil, &cmd))
	}
	return log
}
