package consume

import (
	"encoding/binary"
	"fmt"

	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// Apply checks the required leases, then applies the acks; the first that
// fails rolls the whole entry back with its index and why.
func (op *TxnOp) Apply(s *state) ([]byte, error) {
	for _, id := range op.RequiredLeases {
		live, err := s.leaseLive(op.Tenant, id)
		if err != nil {
			return nil, err
		}
		if !live {
			return nil, raftlog.Abort(appendTxnRollback(-1, fmt.Sprintf("required lease %s holds no partition (expired, released or unknown)", id)))
		}
	}
	out := make([]AckAnswer, len(op.Acks))
	var classic []AckItem
	var at []int // classic[j] is op.Acks[at[j]]
	for i := range op.Acks {
		if i < len(op.Counts) && op.Counts[i] > 0 {
			a, why, err := s.consumed(op.Tenant, &op.Acks[i], op.Counts[i])
			if err != nil {
				return nil, err
			}
			if why != "" {
				return nil, raftlog.Abort(appendTxnRollback(i, why))
			}
			out[i] = a
			continue
		}
		classic, at = append(classic, op.Acks[i]), append(at, i)
	}
	got, err := s.settleAll(op.Tenant, classic, true)
	if err != nil {
		return nil, err
	}
	for j, a := range got {
		if !a.OK {
			return nil, raftlog.Abort(appendTxnRollback(at[j], a.Error))
		}
		out[at[j]] = a
	}
	if op.Release {
		for i := range op.Acks {
			released, err := s.releaseHeld(op.Tenant, &op.Acks[i])
			if err != nil {
				return nil, err
			}
			out[i].Released = out[i].Released || released
		}
	}
	return appendAckAnswers(nil, out), nil
}

// releaseHeld frees the partition an ack item names when the item's lease
// still holds it (TxnOp.Release), and says whether it did.
func (s *state) releaseHeld(tenant string, it *AckItem) (bool, error) {
	if it.LeaseID == "" {
		return false, nil
	}
	b, found, err := s.tx.Get(uidKey(it.PartitionUID))
	if err != nil || !found {
		return false, err
	}
	p, err := decodePartRef(b)
	if err != nil || p.Tenant != tenant {
		return false, err
	}
	g, old, ok, err := s.loadGP(tenant, p.Queue, it.Group, p.Partition)
	if err != nil || !ok || g.LeaseID != it.LeaseID || !g.held(s.at.Stamp) {
		return false, err
	}
	if err := s.dropFromLease(it.LeaseID, p.Partition); err != nil {
		return false, err
	}
	g.release()
	s.saveGP(tenant, p.Queue, it.Group, p.Partition, &g, old)
	s.released(tenant, p.Queue)
	return true, nil
}

// leaseLive reports whether lease id still holds one of its partitions.
func (s *state) leaseLive(tenant, id string) (bool, error) {
	b, ok, err := s.tx.Get(leaseKey(id))
	if err != nil || !ok {
		return false, err
	}
	row, err := decodeLease(b)
	if err != nil || row.Tenant != tenant {
		return false, err
	}
	for _, p := range row.Partitions {
		g, _, ok, err := s.loadGP(row.Tenant, row.Queue, row.Group, p)
		if err != nil {
			return false, err
		}
		if ok && g.LeaseID == id && g.held(s.at.Stamp) {
			return true, nil
		}
	}
	return false, nil
}

func appendTxnRollback(ack int, why string) []byte {
	return wire.AppendString(binary.AppendVarint(nil, int64(ack)), why)
}

// DecodeTxnRollback reads the answer of a TxnOp that rolled its entry
// back: the index of the ack that was refused (-1: a required lease) and
// why.
func DecodeTxnRollback(b []byte) (ack int, why string, err error) {
	d := family.NewDecoder(b, ErrCorrupt)
	ack, why = int(d.Varint()), d.Str()
	d.Expect(len(d.B) == 0, "trailing bytes")
	return ack, why, d.Err
}
