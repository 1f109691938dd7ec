package check

import (
	"fmt"
	"sort"
)

// Push is one push the workload sent: Acked when the broker answered it
// stored (201 and status ok/duplicate), with the offset it answered; an
// unanswered push (timeout, 503, connection lost) has Acked false and may or
// may not be in the log. Refused: every attempt was answered with a
// definite refusal (507 storage_full), so the push did not happen and its
// record must be in no log.
type Push struct {
	Queue, Partition, TxnID string
	Payload                 []byte
	Acked                   bool
	Offset                  int64 // the answered offset when Acked
	Duplicate               bool  // answered as a duplicate of an earlier push of TxnID
	Refused                 bool  // refused, never sent without an answer: not in the log
}

// Record is one record of a partition's log as a node serves it (fetch by
// offset).
type Record struct {
	Queue, Partition, TxnID string
	Offset                  int64
	Payload                 []byte
}

// CheckLog checks the log: per node (key: a node's name) the full logs it
// served, read after the faults healed. Anomalies, each named by Kind:
// "lost" (an acked push in no log, or missing on a node), "moved" (an acked
// push at another offset than answered), "duplicate" (one TxnID at two
// offsets of a partition), "gap" (offsets of a partition not contiguous
// from the first), "diverged" (two nodes serve different records at one
// offset), "phantom" (a record whose TxnID no push sent), "corrupt" (a
// record whose payload is not the pushed payload of its TxnID), "refused"
// (a record of a TxnID whose every push was refused).
//
// One finding on several nodes is one Anomaly that names them all. The
// order is deterministic: node findings, then acked pushes, then
// divergence, each by queue, partition and offset.
//
// REQUIRES: every push carries a TxnID; pushes of one TxnID to one
// partition are retries of one message (a duplicate answer carries the
// original's offset, as Queen's does).
func CheckLog(pushes []Push, logs map[string][]Record) []Anomaly {
	c := &logCheck{pushed: map[txnKey]map[string]bool{}, found: &findings{}}
	for _, p := range pushes {
		k := txnKey{partKey{p.Queue, p.Partition}, p.TxnID}
		if c.pushed[k] == nil {
			c.pushed[k] = map[string]bool{}
		}
		c.pushed[k][string(p.Payload)] = true
	}
	for _, name := range sortedKeys(logs) {
		c.nodes = append(c.nodes, c.index(name, logs[name]))
	}
	for _, n := range c.nodes {
		c.checkNode(n)
	}
	c.checkAcked(pushes)
	c.checkRefused(pushes)
	c.checkDiverged()
	return c.found.anomalies()
}

type partKey struct{ queue, partition string }

func (k partKey) String() string { return k.queue + "/" + k.partition }

type txnKey struct {
	partKey
	txn string
}

// logCheck holds what CheckLog has indexed and found.
type logCheck struct {
	// pushed: per (queue, partition, TxnID) the payloads pushed under it.
	pushed map[txnKey]map[string]bool
	nodes  []*nodeLog // by name
	found  *findings
}

// nodeLog is one node's logs, by partition.
type nodeLog struct {
	name  string
	parts map[partKey]*partLog
}

// partLog is one partition's log on one node.
type partLog struct {
	at      map[int64]Record
	offsets []int64 // INVARIANT: sorted, unique, the keys of at
	txns    map[string][]int64
}

// index builds a node's partition logs; a second, different record at an
// offset is reported diverged and otherwise ignored.
func (c *logCheck) index(name string, recs []Record) *nodeLog {
	n := &nodeLog{name: name, parts: map[partKey]*partLog{}}
	for _, r := range recs {
		pk := partKey{r.Queue, r.Partition}
		pl := n.parts[pk]
		if pl == nil {
			pl = &partLog{at: map[int64]Record{}, txns: map[string][]int64{}}
			n.parts[pk] = pl
		}
		if old, ok := pl.at[r.Offset]; ok {
			if !sameRecord(old, r) {
				c.found.add(KindDiverged, name, fmt.Sprintf("%s offset %d: served twice, as %s and as %s",
					pk, r.Offset, describe(old), describe(r)))
			}
			continue
		}
		pl.at[r.Offset] = r
		pl.offsets = append(pl.offsets, r.Offset)
		pl.txns[r.TxnID] = append(pl.txns[r.TxnID], r.Offset)
	}
	for _, pl := range n.parts {
		sortInt64s(pl.offsets)
		for _, offs := range pl.txns {
			sortInt64s(offs)
		}
	}
	return n
}

func sameRecord(a, b Record) bool {
	return a.TxnID == b.TxnID && string(a.Payload) == string(b.Payload)
}

func describe(r Record) string {
	return fmt.Sprintf("txn %q (%d bytes)", r.TxnID, len(r.Payload))
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func sortedParts[V any](m map[partKey]V) []partKey {
	ks := make([]partKey, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].queue != ks[j].queue {
			return ks[i].queue < ks[j].queue
		}
		return ks[i].partition < ks[j].partition
	})
	return ks
}

func sortInt64s(s []int64) { sort.Slice(s, func(i, j int) bool { return s[i] < s[j] }) }
