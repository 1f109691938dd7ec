package kvstore_test

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/testkit/script"
)

// TestScripts runs testdata/scripts/*.txt, each on a fresh one-node
// cluster running Appliers(), with the broker clock in the script's hands:
// every entry is proposed with the clock of its command's at=<seconds>
// after script.Base, so stamps, TTLs and expiries are the script's (no
// entry of the cluster carries a wall clock). A command without at= is
// stamped one µs after the last entry; one whose at= is not after the last
// stamp fails the test, so at= is always the entry's stamp. Times print
// as seconds after the base ("+10s").
//
//	call [at=<s>]      one call, proposed as one entry (Encode): the ops
//	                   its input lines give, "<op> [ns=app] key=… value=<json>
//	                   ttl=<s>|forever expect=<n> required delta= min= max=
//	                   keys=a,b prefix= after= limit= keysonly"; output:
//	                   each result's JSON (API.md §5), or the kv_precondition
//	                   answer, or "error: …" for a call refused before it
//	                   is proposed
//	read               a read-only call through Store.Do: a linearizable
//	                   read judged on the last entry's stamp; output as call
//	tick at=<s>        an empty entry: the clock moves; prints its stamp
//	sweep [at=<s>]     the sweeps DueSweeps lists at that stamp, proposed
//	                   as one entry there: "<ns>: <n> deleted" per sweep
//	namespaces         Store.Namespaces, as GET /resources/kv/namespaces
//	list ns=… [prefix=] [after=] [limit=] [keysonly] [expired]
//	                   Store.List: a line per row, then the page's fields
//
// Rewrite the outputs with -rewrite, and read the diff.
func TestScripts(t *testing.T) {
	script.Run(t, "testdata/scripts", func(t *testing.T) func(*testing.T, *script.Case) string {
		_, s, kv := startOne(t)
		return (&scriptNode{shard: s, kv: kv}).run
	})
}

type scriptNode struct {
	shard *raftlog.Shard
	kv    *kvstore.Store
	clock script.Clock
}

func (n *scriptNode) run(t *testing.T, c *script.Case) string {
	t.Helper()
	switch c.Cmd {
	case "call":
		ops := parseOps(t, c)
		op, err := kvstore.Encode(tenant, ops)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		res := n.propose(t, c, op)
		if why, ok := raftlog.Rejected(res.Ops[0]); ok {
			return "rejected: " + why + "\n"
		}
		a, err := kvstore.DecodeAnswer(res.Ops[0])
		if err != nil {
			t.Fatal(err)
		}
		return answerLines(t, a)
	case "read":
		a, err := n.kv.Do(ctx(t), tenant, parseOps(t, c))
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return answerLines(t, a)
	case "tick":
		res := n.propose(t, c)
		return "stamp " + script.Secs(res.Stamp) + "\n"
	case "sweep":
		at := n.clock.Next(t, c)
		due, err := n.shard.LocalRead(func(v *raftlog.View) (any, error) { return kvstore.DueSweeps(v, at) })
		if err != nil {
			t.Fatal(err)
		}
		sweeps := due.([]kvstore.SweepOp)
		if len(sweeps) == 0 {
			return "none due\n"
		}
		ops := make([]raftlog.Op, len(sweeps))
		for i := range sweeps {
			ops[i] = sweeps[i].Op()
		}
		res := n.propose(t, c, ops...)
		var out strings.Builder
		for i, s := range sweeps {
			deleted, _ := binary.Uvarint(res.Ops[i])
			fmt.Fprintf(&out, "%s: %d deleted\n", s.NS, deleted)
		}
		return out.String()
	case "namespaces":
		ns, err := n.kv.Namespaces(ctx(t), tenant)
		if err != nil {
			t.Fatal(err)
		}
		return jsonLine(t, contract.KVCounts(ns))
	case "list":
		return n.list(t, c)
	}
	t.Fatalf("line %d: unknown command %q", c.Line, c.Cmd)
	return ""
}

// propose commits ops as one entry at the case's clock.
func (n *scriptNode) propose(t *testing.T, c *script.Case, ops ...raftlog.Op) raftlog.Result {
	t.Helper()
	at := n.clock.Next(t, c)
	res, err := n.shard.Propose(ctx(t), raftlog.Command{Clock: at, Ops: ops})
	if err != nil {
		t.Fatal(err)
	}
	n.clock.Stamped(t, c, at, res.Stamp)
	return res
}

func (n *scriptNode) list(t *testing.T, c *script.Case) string {
	t.Helper()
	q := kvstore.ListQuery{NS: c.Args["ns"], Prefix: c.Args["prefix"], After: c.Args["after"]}
	_, q.KeysOnly = c.Args["keysonly"]
	_, q.IncludeExpired = c.Args["expired"]
	if l, ok := c.Args["limit"]; ok {
		q.Limit, _ = strconv.Atoi(l)
	}
	a, err := n.kv.List(ctx(t), tenant, q)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	var page struct {
		Rows      []json.RawMessage `json:"rows"`
		Truncated bool              `json:"truncated"`
		NextAfter *string           `json:"nextAfter"`
		Bytes     int64             `json:"bytes"`
	}
	unmarshal(t, jsonLine(t, a), &page)
	var out strings.Builder
	for _, r := range page.Rows {
		out.WriteString(rebase(string(r)) + "\n")
	}
	next := "null"
	if page.NextAfter != nil {
		next = *page.NextAfter
	}
	fmt.Fprintf(&out, "truncated=%t nextAfter=%s bytes=%d\n", page.Truncated, next, page.Bytes)
	return out.String()
}

// answerLines renders an answer as its JSON (API.md §5): a line per
// result, or the one line of a kv_precondition failure.
func answerLines(t *testing.T, a any) string {
	t.Helper()
	line := jsonLine(t, a)
	var body struct {
		Results []json.RawMessage `json:"results"`
	}
	unmarshal(t, line, &body)
	if body.Results == nil {
		return line
	}
	var out strings.Builder
	for _, r := range body.Results {
		out.WriteString(string(r) + "\n")
	}
	return out.String()
}

// jsonLine is v's JSON, times as seconds after the base, and a newline.
func jsonLine(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return rebase(string(b)) + "\n"
}

func unmarshal(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("%v in %s", err, s)
	}
}

var stampJSON = regexp.MustCompile(`"(expiresAt|updatedAt)":"([^"]+)"`)

// rebase writes the rendered stamps of a JSON text as seconds after the
// base, leaving every other byte as it was.
func rebase(s string) string {
	return stampJSON.ReplaceAllStringFunc(s, func(m string) string {
		g := stampJSON.FindStringSubmatch(m)
		ts, err := time.Parse("2006-01-02T15:04:05.999999-07:00", g[2])
		if err != nil || contract.FormatKVStamp(ts.UnixMicro()) != g[2] {
			return m // not a stamp as FormatKVStamp renders one: shown as it is
		}
		return fmt.Sprintf("%q:%q", g[1], script.Secs(ts.UnixMicro()))
	})
}
