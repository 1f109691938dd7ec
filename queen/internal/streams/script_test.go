package streams_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/queen-mq/queen-go/queen/internal/familytest"
	"github.com/queen-mq/queen-go/queen/internal/streams"
	"github.com/queen-mq/queen-go/raftlog"
)

const tenant = familytest.Tenant

// TestScripts runs testdata/scripts/*.txt against one node running the
// streams family's applier. Ids are shown as #1, #2… in the order they
// are first answered, and named so by later commands:
//
//	register name=… source=… [sink=…] hash=… [reset]
//	                     → fresh, reset, mismatch and the query's id
//	cycle id=#n partition=… [group=…]
//	                     input: "upsert <key> <json>" or "delete <key>" per line
//	                     → the query's rows and bytes after it, or why it rolled back
//	state id=#n partition=… [prefix=…] [ripe=<ms>] [keys=a,b]
//	                     → the rows, or "no query"
//	list                 → every query: id, source, hash, group, resets, cycles, rows, bytes
//	delete name=…        → found and rows
//	drop queue=…         → the queries whose state it wiped, and their rows
//
// Rewrite the outputs with -rewrite and read the diff.
func TestScripts(t *testing.T) {
	familytest.RunWith(t, streams.Appliers(), func(t *testing.T, n *familytest.Node) func(*testing.T, *datadriven.TestData) string {
		s := &script{n: n, ids: familytest.NewLabels("#", streams.IDText)}
		return func(t *testing.T, d *datadriven.TestData) string { return s.ids.Relabel(s.run(t, d)) }
	})
}

// script is one script's node and the labels of its queries' ids.
type script struct {
	n   *familytest.Node
	ids *familytest.Labels[[16]byte]
}

func arg(t *testing.T, d *datadriven.TestData, k string) string {
	var v string
	d.MaybeScanArgs(t, k, &v)
	return v
}

func (s *script) run(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "register":
		op := streams.RegisterOp{Tenant: tenant, Name: arg(t, d, "name"), Source: arg(t, d, "source"), Sink: arg(t, d, "sink"),
			ConfigHash: arg(t, d, "hash"), Reset: d.HasArg("reset")}
		return s.n.Answered(t, d, op.Op(), func(b []byte) string {
			a, err := streams.DecodeRegister(b)
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf("id=%s fresh=%v reset=%v mismatch=%v hash=%s resets=%d\n", s.ids.Of(a.Query.ID), a.Fresh, a.Reset, a.Mismatch,
				a.Query.ConfigHash, a.Query.Resets)
		})
	case "cycle":
		op := streams.CycleOp{Tenant: tenant, ID: s.ids.ID(arg(t, d, "id")), Partition: arg(t, d, "partition"), Group: arg(t, d, "group")}
		for _, line := range familytest.Lines(d) {
			if line == "" {
				continue
			}
			f := strings.SplitN(line, " ", 3)
			switch {
			case f[0] == "upsert" && len(f) == 3:
				op.Ops = append(op.Ops, streams.StateOp{Kind: streams.StateUpsert, Key: unquote(f[1]), Value: []byte(f[2])})
			case f[0] == "delete" && len(f) == 2:
				op.Ops = append(op.Ops, streams.StateOp{Kind: streams.StateDelete, Key: unquote(f[1])})
			default:
				t.Fatalf("bad state op %q", line)
			}
		}
		res := s.n.Commit(t, d, op.Op())
		if why, ok := raftlog.Rejected(res.Ops[0]); ok {
			return "refused: " + why + "\n"
		}
		if res.Aborted == 0 {
			reason, why, err := streams.DecodeCycleRollback(res.Ops[0])
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf("rolled back (%d): %s\n", reason, why)
		}
		a, err := streams.DecodeCycle(res.Ops[0])
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("rows=%d bytes=%d\n", a.Rows, a.Bytes)
	case "state":
		f := streams.StateFilter{Prefix: unquote(arg(t, d, "prefix"))}
		if r := arg(t, d, "ripe"); r != "" {
			f.Ripe = true
			fmt.Sscan(r, &f.RipeAt)
		}
		if k := arg(t, d, "keys"); k != "" {
			f.Keys = strings.Split(k, ",")
		}
		id := s.ids.ID(arg(t, d, "id"))
		got, err := s.n.Shard.Read(context.Background(), func(v *raftlog.View) (any, error) {
			if _, ok, err := streams.ByID(v, tenant, id); err != nil || !ok {
				return nil, err
			}
			rows, _, err := streams.State(v, tenant, id, arg(t, d, "partition"), f, 1000)
			return rows, err
		})
		if err != nil {
			t.Fatal(err)
		}
		if got == nil {
			return "no query\n"
		}
		var out strings.Builder
		for _, r := range got.([]streams.Row) {
			fmt.Fprintf(&out, "%q %s\n", r.Key, r.Value)
		}
		return familytest.OrNone(out.String())
	case "list":
		got, err := s.n.Shard.Read(context.Background(), func(v *raftlog.View) (any, error) { return streams.List(v, tenant) })
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		for _, q := range got.([]streams.Query) {
			fmt.Fprintf(&out, "%s id=%s source=%s sink=%q hash=%s group=%s resets=%d cycles=%d rows=%d bytes=%d\n", q.Name, s.ids.Of(q.ID),
				q.Source, q.Sink, q.ConfigHash, q.Group, q.Resets, q.Cycles, q.Rows, q.Bytes)
		}
		return familytest.OrNone(out.String())
	case "delete":
		op := streams.DeleteOp{Tenant: tenant, Name: arg(t, d, "name")}
		return s.n.Answered(t, d, op.Op(), func(b []byte) string {
			a, err := streams.DecodeDelete(b)
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf("found=%v rows=%d\n", a.Found, a.Rows)
		})
	case "drop":
		op := streams.DropSourceOp{Tenant: tenant, Queue: arg(t, d, "queue")}
		return s.n.Answered(t, d, op.Op(), func(b []byte) string {
			q, rows, err := streams.DecodeDropSource(b)
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf("queries=%d rows=%d\n", q, rows)
		})
	}
	t.Fatalf("unknown command %q", d.Cmd)
	return ""
}

// unquote reads a key written with \x1f escapes (the SDK's separator).
func unquote(s string) string { return strings.ReplaceAll(s, `\x1f`, "\x1f") }
