package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// table is an aligned table for people: columns two spaces apart.
type table struct{ tw *tabwriter.Writer }

// newTable starts a table on w with the header cells (none: no header).
func newTable(w io.Writer, header ...string) *table {
	t := &table{tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)}
	if len(header) > 0 {
		t.row(header...)
	}
	return t
}

// row adds a row; a cell with a tab or a newline has it replaced by a
// space, so that it stays one cell on one line.
func (t *table) row(cells ...string) {
	for i, c := range cells {
		cells[i] = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(c)
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

// flush writes the table out.
func (t *table) flush() error { return t.tw.Flush() }

// orDash is s, or "-" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// strp is *s, or "-" for nil.
func strp(s *string) string {
	if s == nil {
		return "-"
	}
	return orDash(*s)
}

// clip shortens s to n runes, with "…" for what it cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// flatten appends to rows one [key, value] per scalar member of the JSON
// value raw, its key the path of members to it (prefix.a.b); arrays are
// rendered as compact JSON. Keys are in byte order.
func flatten(rows [][2]string, prefix string, raw json.RawMessage) [][2]string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || obj == nil {
		return append(rows, [2]string{prefix, scalar(raw)})
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		rows = flatten(rows, p, obj[k])
	}
	return rows
}

// scalar renders a JSON value for a cell: a string without its quotes,
// anything else as its compact JSON.
func scalar(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
