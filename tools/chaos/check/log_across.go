package check

import (
	"fmt"
	"slices"
	"strings"
)

// checkAcked reports, for each acked push, the nodes that lack its TxnID
// (or that it is in no log) and the nodes that serve it only at other
// offsets than the one answered.
func (c *logCheck) checkAcked(pushes []Push) {
	type answer struct {
		txnKey
		offset int64
	}
	seen := map[answer]bool{}
	for _, p := range pushes {
		a := answer{txnKey{partKey{p.Queue, p.Partition}, p.TxnID}, p.Offset}
		if !p.Acked || seen[a] {
			continue
		}
		seen[a] = true
		what := fmt.Sprintf("%s: txn %q, acked at offset %d,", a.partKey, a.txn, a.offset)
		var missing []string
		for _, n := range c.nodes {
			var offs []int64
			if pl := n.parts[a.partKey]; pl != nil {
				offs = pl.txns[a.txn]
			}
			switch {
			case len(offs) == 0:
				missing = append(missing, n.name)
			case !slices.Contains(offs, a.offset):
				c.found.add(KindMoved, n.name, fmt.Sprintf("%s served at offsets %v", what, offs))
			}
		}
		if len(missing) == len(c.nodes) {
			c.found.add(KindLost, "", what+" is in no log")
			continue
		}
		for _, name := range missing {
			c.found.add(KindLost, name, what+" is missing")
		}
	}
}

// checkDiverged reports each offset of a partition at which nodes serve
// different records. A node that lacks the offset does not count here (its
// gap or loss is reported as such).
func (c *logCheck) checkDiverged() {
	parts := map[partKey]bool{}
	for _, n := range c.nodes {
		for pk := range n.parts {
			parts[pk] = true
		}
	}
	for _, pk := range sortedParts(parts) {
		var offsets []int64
		for _, n := range c.nodes {
			if pl := n.parts[pk]; pl != nil {
				offsets = append(offsets, pl.offsets...)
			}
		}
		sortInt64s(offsets)
		for _, o := range slices.Compact(offsets) {
			c.divergedAt(pk, o)
		}
	}
}

// divergedAt reports offset o of pk if two nodes serve different records
// there: "txn "a" (3 bytes) on n1, n2; txn "b" (3 bytes) on n3".
func (c *logCheck) divergedAt(pk partKey, o int64) {
	var versions []Record
	on := map[int][]string{} // index in versions -> nodes
	for _, n := range c.nodes {
		pl := n.parts[pk]
		if pl == nil {
			continue
		}
		r, ok := pl.at[o]
		if !ok {
			continue
		}
		i := slices.IndexFunc(versions, func(v Record) bool { return sameRecord(v, r) })
		if i < 0 {
			i = len(versions)
			versions = append(versions, r)
		}
		on[i] = append(on[i], n.name)
	}
	if len(versions) < 2 {
		return
	}
	parts := make([]string, len(versions))
	for i, v := range versions {
		parts[i] = describe(v) + " on " + strings.Join(on[i], ", ")
	}
	c.found.add(KindDiverged, "", fmt.Sprintf("%s offset %d: %s", pk, o, strings.Join(parts, "; ")))
}
