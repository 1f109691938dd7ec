package locks_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/queen/internal/familytest"
	"github.com/queen-mq/queen-go/queen/internal/locks"
)

// TestScripts runs testdata/scripts/*.txt (familytest: the clock is the
// script's "at=<seconds>") against one node running kvstore's and the
// locks family's appliers:
//
//	call at=<s>            one locks call; input: an op per line,
//	                       "<op> name=… [owner=…] [limit=…] [ttl=…] [token=…] [slot=…]";
//	                       output: each answer's JSON, times as seconds after the base
//	guarded at=<s> key=… expect=…
//	                       a KV call of the guard (a required check) and a
//	                       put of "work": applied, or the precondition lost
//
// Rewrite the outputs with -rewrite and read the diff.
func TestScripts(t *testing.T) {
	appliers := familytest.Appliers(kvstore.Appliers(), locks.Appliers())
	familytest.Run(t, appliers, func(t *testing.T, n *familytest.Node, d *datadriven.TestData) string {
		switch d.Cmd {
		case "call":
			c := locks.Call{Tenant: familytest.Tenant}
			for _, line := range familytest.Lines(d) {
				c.Ops = append(c.Ops, parseOp(t, line))
			}
			return n.Answered(t, d, c.Op(), func(answer []byte) string {
				got, err := locks.DecodeAnswers(answer, len(c.Ops))
				if err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				for _, a := range got {
					b, _ := json.Marshal(a)
					out.Write(rebase(b, n))
					out.WriteByte('\n')
				}
				return out.String()
			})
		case "guarded":
			var key string
			var expect int64
			d.ScanArgs(t, "key", &key)
			d.ScanArgs(t, "expect", &expect)
			op, err := kvstore.Encode(familytest.Tenant, []kvstore.Op{
				{Op: kvstore.OpCheck, NS: locks.NS, Key: key, Expect: &expect, Required: true},
				{Op: kvstore.OpPut, NS: "work", Key: "done", Value: json.RawMessage(`1`), Forever: true}})
			if err != nil {
				t.Fatal(err)
			}
			answer, _ := n.Propose(t, d, op)
			a, err := kvstore.DecodeAnswer(answer)
			if err != nil {
				t.Fatal(err)
			}
			if !a.OK {
				return fmt.Sprintf("rolled back: %s at %d, version %d\n", a.KVReason, a.FailedIndex, a.Version)
			}
			return "applied\n"
		}
		t.Fatalf("unknown command %q", d.Cmd)
		return ""
	})
}

// parseOp reads "<op> key=value…".
func parseOp(t *testing.T, line string) locks.Op {
	kinds := map[string]byte{"acquire": locks.KindAcquire, "renew": locks.KindRenew, "release": locks.KindRelease, "get": locks.KindGet}
	o := locks.Op{Limit: 1}
	o.Kind = kinds[familytest.Fields(t, line, func(k, v string) bool {
		n, _ := strconv.ParseInt(v, 10, 64)
		switch k {
		case "name":
			o.Name = v
		case "owner":
			o.Owner = v
		case "limit":
			o.Limit = int(n)
		case "ttl":
			o.TTLSeconds = n
		case "token":
			o.Token = uint64(n)
		case "slot":
			o.Slot = int(n)
		default:
			return false
		}
		return true
	})]
	return o
}

// rebase writes the broker-clock times of an answer as seconds after the
// script's base, so outputs do not depend on the day.
func rebase(b []byte, n *familytest.Node) []byte {
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	var walk func(v any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				v[k] = walk(x)
			}
		case []any:
			for i, x := range v {
				v[i] = walk(x)
			}
		case string:
			if ts, err := time.Parse("2006-01-02T15:04:05.999999-07:00", v); err == nil {
				return "+" + n.Secs(ts.UnixMicro())
			}
		}
		return v
	}
	out, _ := json.Marshal(walk(m))
	return out
}
