package contract

import (
	"fmt"
	"strings"
)

// LimitsMarkdown renders every table of this package as Markdown: the
// names, the numeric parameters and the queue options, with their bounds
// and what a value outside them is answered. LIMITS.md is its output (a
// test keeps the two equal), and the README links it.
func LimitsMarkdown() string {
	var b strings.Builder
	b.WriteString(`# Limits: names, numbers and bodies

<!-- Generated from the tables of package contract (names.go, params.go,
queueopts.go, json.go) by LimitsMarkdown; TestLimitsDoc keeps it equal:
go test ./contract -run TestLimitsDoc -update rewrites it. -->

Every name and number that enters the broker is checked against these
tables: by the HTTP API when it decodes a request, and again by the state
machine where the entry applies (a follower trusts nothing its proposer
checked). Names are compared as their exact bytes: nothing is trimmed,
folded or replaced, so two names are one name only when their bytes are.

## Bodies

- A request body is one JSON value (RFC 8259) of valid UTF-8: a string
  holding bytes that are not UTF-8, or the escape of a lone surrogate
  (` + "`\\ud800`" + `), is 400 ` + "`bad_request`" + ` naming where it is
  (` + "`items[3].payload`" + `). A payload is stored byte for byte as sent, so
  every payload a fetch or pop returns is valid UTF-8 JSON.
- Arrays and objects nest at most ` + fmt.Sprint(MaxJSONDepth) + ` deep in a body; deeper is 400
  ` + "`bad_body`" + ` saying the limit.
- An error body quotes at most ` + fmt.Sprint(ClipBytes) + ` bytes of a refused value and stays
  under 1 KiB.

## Names

Over the bound: the code in the table. Empty where the name needs a byte,
a character its rule refuses, or invalid UTF-8: 400 (` + "`bad_request`" + `, or the
KV reasons ` + "`kv_bad_namespace`" + ` and ` + "`kv_bad_key`" + `), naming the field.
"Control characters" are Unicode's: C0, DEL and C1.

| name | bytes | characters | over the bound | what |
|---|---|---|---|---|
`)
	for _, n := range Names {
		fmt.Fprintf(&b, "| `%s` | %d..%d | %s | %s | %s |\n", n.Field, n.MinBytes, n.MaxBytes, n.Rule.doc(), n.TooLong.doc(), n.Doc)
	}
	b.WriteString(`
## Numbers

An integer is a JSON number of integral value (` + "`3`, `3.0`, `1e3`" + `; a query
parameter: decimal digits). A fraction, another JSON type, a value beyond
int64 (` + "`1e400`" + `), or a value outside the range is 400 ` + "`bad_request`" + ` naming the
field and its range; where the contract clamps (marked), a value inside
int64 is moved to the nearer bound instead. Time is computed in
saturating arithmetic: no stored value can wrap.

| parameter | of | range | unit | out of range | what |
|---|---|---|---|---|---|
`)
	for _, r := range Params {
		fmt.Fprintf(&b, "| `%s` | %s | %d..%d | %s | %s | %s |\n", r.Field, r.Where, r.Min, r.Max, unitDoc(r.Unit), clampDoc(r.Clamp), r.Doc)
	}
	b.WriteString(`
## Queue options

` + "`POST /api/v1/configure`" + `: a known option of the wrong JSON type or outside
its range is 400 ` + "`bad_request`" + ` naming it; an unknown option is kept as sent.
Stored options written by an older broker are read inside these ranges.

| option | type | default | range | unit | what |
|---|---|---|---|---|---|
`)
	for _, o := range QueueOptionTable {
		switch o.Kind {
		case OptionInt:
			clamp := ""
			if o.Range.Clamp {
				clamp = " (clamped)"
			}
			fmt.Fprintf(&b, "| `%s` | integer | %s | %d..%d%s | %s | %s |\n", o.Field, o.Default, o.Range.Min, o.Range.Max, clamp, unitDoc(o.Range.Unit), o.Range.Doc)
		case OptionBool:
			fmt.Fprintf(&b, "| `%s` | boolean | %s | | | |\n", o.Field, o.Default)
		case OptionString:
			fmt.Fprintf(&b, "| `%s` | string | `%s` | name `%s` | | |\n", o.Field, o.Default, o.Name.Field)
		}
	}
	return b.String()
}

func unitDoc(u string) string {
	if u == "" {
		return "—"
	}
	return u
}

func clampDoc(clamp bool) string {
	if clamp {
		return "clamped"
	}
	return "400 `bad_request`"
}
