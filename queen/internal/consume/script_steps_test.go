package consume_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/queen/internal/familytest"
	"github.com/queen-mq/queen-go/raftlog"
)

// The script commands of TestScripts that run transactions, set
// positions, read the family's state and handle dead letters.

// txn proposes the input's acks as a transaction's consuming part.
func (s *script) txn(t *testing.T, d *datadriven.TestData) string {
	op := consume.TxnOp{Tenant: tenant, SkewMicros: micros(t, d, "skew"), Release: d.HasArg("release")}
	var counts []int
	op.Acks = s.items(t, d, &counts)
	for _, c := range counts {
		if c > 0 {
			op.Counts = counts
		}
	}
	if r := arg(t, d, "required", ""); r != "" {
		op.RequiredLeases = strings.Split(r, ",")
	}
	res := s.propose(t, d, op.Op())
	if res.Applied() {
		return s.answers(t, res.Ops[0])
	}
	i, why, err := consume.DecodeTxnRollback(res.Ops[0])
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("rolled back at %d: %s\n", i, why)
}

// position sets the input's positions in one PositionOp.
func (s *script) position(t *testing.T, d *datadriven.TestData, queue string) string {
	op := consume.PositionOp{Tenant: tenant}
	for _, line := range familytest.Lines(d) {
		f := strings.Fields(line)
		if len(f) < 3 {
			t.Fatalf("bad position line %q", line)
		}
		p := consume.Position{Queue: queue, Group: f[0], Partition: f[1], Offset: consume.Forget}
		if f[2] != "forget" {
			p.Offset, _ = strconv.ParseInt(f[2], 10, 64)
		}
		familytest.Fields(t, strings.Join(append([]string{"position"}, f[3:]...), " "), func(k, v string) bool {
			switch k {
			case "meta":
				p.Metadata = v
			case "mode":
				p.Mode = map[string]byte{"all": consume.ModeAll}[v]
			default:
				return false
			}
			return true
		})
		op.Items = append(op.Items, p)
	}
	res := s.propose(t, d, op.Op())
	if res.Applied() {
		return "ok\n"
	}
	i, reason, why, err := consume.DecodePositionRollback(res.Ops[0])
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("rolled back at %d (reason %d): %s\n", i, reason, why)
}

// groups shows the queue's groups, as of the last entry's stamp.
func (s *script) groups(t *testing.T, queue, group string) string {
	got := familytest.Read(t, s.n, func(v *raftlog.View) ([]consume.GroupInfo, error) {
		return consume.Groups(v, tenant, queue, group)
	})
	var out strings.Builder
	for _, g := range got {
		mode := map[byte]string{consume.ModeNew: "new", consume.ModeAll: "all"}[g.Mode]
		fmt.Fprintf(&out, "%s subscribed=%s mode=%s", g.Group, s.secs(g.Subscribed), mode)
		if g.From != 0 {
			fmt.Fprintf(&out, " from=%s", s.secs(g.From))
		}
		fmt.Fprintf(&out, " lag=%d\n", g.Lag)
		for _, p := range g.Partitions {
			fmt.Fprintf(&out, "  %s cursor=%d hwm=%d", p.Partition, p.Cursor, p.HighWatermark)
			if p.LogStart != 0 {
				fmt.Fprintf(&out, " logStart=%d", p.LogStart)
			}
			if p.LeaseID != "" {
				fmt.Fprintf(&out, " lease=%s end=%s", p.LeaseID, s.secs(p.LeaseEnd))
			}
			fmt.Fprintf(&out, " leased=%d settled=%d unsettled=%d", p.Leased, p.Settled, p.Unsettled())
			meta := familytest.Read(t, s.n, func(v *raftlog.View) (string, error) {
				return consume.PositionMetadata(v, tenant, queue, g.Group, p.Partition)
			})
			if meta != "" {
				fmt.Fprintf(&out, " metadata=%s", meta)
			}
			out.WriteByte('\n')
		}
	}
	return familytest.OrNone(out.String())
}

// status shows the group's status of the partition's offsets 0…to-1.
func (s *script) status(t *testing.T, d *datadriven.TestData, queue string) string {
	g, _ := group(t, d)
	partition, to := arg(t, d, "partition", ""), 0
	d.ScanArgs(t, "to", &to)
	return familytest.Read(t, s.n, func(v *raftlog.View) (string, error) {
		of, err := consume.StatusOf(v, tenant, queue, g, partition)
		if err != nil {
			return "", err
		}
		var out []string
		for off := range int64(to) {
			st, err := of(off)
			if err != nil {
				return "", err
			}
			out = append(out, fmt.Sprintf("%d:%s", off, st))
		}
		return strings.Join(out, " ") + "\n", nil
	})
}

// showLetters lists the queue's dead letters (of group, "" all), naming
// each by its label.
func (s *script) showLetters(t *testing.T, queue, group string) string {
	got := familytest.Read(t, s.n, func(v *raftlog.View) ([]consume.DeadLetter, error) {
		return consume.DeadLetters(v, tenant, queue, group, 0)
	})
	var out strings.Builder
	for _, l := range got {
		fmt.Fprintf(&out, "%s %s %s/%d %s attempts=%d created=%s filed=%s payload=%s error=%q\n", s.letters.Of(l.ID), l.Group, l.Partition,
			l.Offset, l.TransactionID, l.Attempts, s.secs(l.Created), s.secs(l.Filed), l.Payload, l.Error)
	}
	return familytest.OrNone(out.String())
}

// replay replays a dead letter through Consumer.Replay (its copy's push
// and the letter's removal, one entry at the node's clock).
func (s *script) replay(t *testing.T, d *datadriven.TestData) string {
	c := &consume.Consumer{Shard: s.n.Shard}
	id := s.letters.ID(arg(t, d, "id", ""))
	var msgID [16]byte
	copy(msgID[:], "replay "+id)
	l, dup, err := c.Replay(familytest.Ctx(t), tenant, id, "", "", msgID, nil)
	if errors.Is(err, consume.ErrGone) {
		return "gone\n"
	}
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("replayed %s/%d %s duplicate=%v\n", l.Partition, l.Offset, l.TransactionID, dup)
}
