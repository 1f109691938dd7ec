package check

import "fmt"

// checkNode reports, for each partition of one node's logs, gaps in its
// offsets, TxnIDs at two offsets, and records no push sent or whose
// payload is not the one pushed.
func (c *logCheck) checkNode(n *nodeLog) {
	for _, pk := range sortedParts(n.parts) {
		pl := n.parts[pk]
		for i := 1; i < len(pl.offsets); i++ {
			if prev, o := pl.offsets[i-1], pl.offsets[i]; o != prev+1 {
				missing := fmt.Sprintf("offsets %d..%d", prev+1, o-1)
				if o == prev+2 {
					missing = fmt.Sprintf("offset %d", prev+1)
				}
				c.found.add(KindGap, n.name, fmt.Sprintf("%s: %s missing, between %d and %d", pk, missing, prev, o))
			}
		}
		for _, o := range pl.offsets {
			r := pl.at[o]
			offs := pl.txns[r.TxnID]
			if len(offs) > 1 && offs[0] == o {
				c.found.add(KindDuplicate, n.name, fmt.Sprintf("%s: txn %q at offsets %v", pk, r.TxnID, offs))
			}
			payloads := c.pushed[txnKey{pk, r.TxnID}]
			switch {
			case payloads == nil:
				c.found.add(KindPhantom, n.name, fmt.Sprintf("%s offset %d: txn %q, which no push sent", pk, o, r.TxnID))
			case !payloads[string(r.Payload)]:
				c.found.add(KindCorrupt, n.name, fmt.Sprintf("%s offset %d: txn %q has a %d-byte payload no push of it sent",
					pk, o, r.TxnID, len(r.Payload)))
			}
		}
	}
}
