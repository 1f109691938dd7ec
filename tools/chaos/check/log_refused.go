package check

import "fmt"

// checkRefused reports each record of a TxnID whose every push was
// refused (Push.Refused): the broker said it did not happen. A TxnID with
// one push that was not refused (acked, or sent without an answer) may be
// in the log.
func (c *logCheck) checkRefused(pushes []Push) {
	refused := map[txnKey]bool{}
	for _, p := range pushes {
		k := txnKey{partKey{p.Queue, p.Partition}, p.TxnID}
		if was, seen := refused[k]; !seen || was {
			refused[k] = p.Refused
		}
	}
	for _, n := range c.nodes {
		for _, pk := range sortedParts(n.parts) {
			pl := n.parts[pk]
			for _, o := range pl.offsets {
				if txn := pl.at[o].TxnID; refused[txnKey{pk, txn}] && pl.txns[txn][0] == o {
					c.found.add(KindRefused, n.name, fmt.Sprintf("%s offset %d: txn %q, whose every push was refused (507 storage_full)", pk, o, txn))
				}
			}
		}
	}
}
