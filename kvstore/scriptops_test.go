package kvstore_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/testkit/script"
)

// parseOps reads a case's input: one op a line, "<op> field…" (the fields
// of TestScripts' doc), in namespace "app" unless ns= says otherwise.
func parseOps(t *testing.T, c *script.Case) []kvstore.Op {
	t.Helper()
	ops := make([]kvstore.Op, 0, len(c.Input))
	for _, line := range c.Input {
		f := strings.Fields(line)
		if len(f) == 0 {
			t.Fatalf("line %d: a blank op line", c.Line)
		}
		o := kvstore.Op{Op: f[0], NS: "app"}
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			if !setField(&o, k, v) {
				t.Fatalf("line %d: unknown field %q in %q", c.Line, kv, line)
			}
		}
		ops = append(ops, o)
	}
	return ops
}

// setField sets one field of o from its text; false for a field it does
// not know.
func setField(o *kvstore.Op, k, v string) bool {
	num := func() *int64 { n, _ := strconv.ParseInt(v, 10, 64); return &n }
	switch k {
	case "ns":
		o.NS = v
	case "key":
		o.Key = v
	case "keys":
		o.Keys = strings.Split(v, ",")
	case "prefix":
		o.Prefix = v
	case "after":
		o.After = v
	case "limit":
		o.Limit = int(*num())
	case "keysonly":
		o.KeysOnly = true
	case "value":
		o.Value = json.RawMessage(v)
	case "ttl":
		o.TTLSeconds = num()
	case "forever":
		o.Forever = true
	case "expect":
		o.Expect = num()
	case "required":
		o.Required = true
	case "delta":
		o.Delta = json.Number(v)
	case "min":
		o.Min = json.Number(v)
	case "max":
		o.Max = json.Number(v)
	default:
		return false
	}
	return true
}
