package s3sink

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/queen-mq/queen-go/lakeformat"
)

// Lost notes. While the sink runs, a record retention deletes before the
// sink read it shows as a fetch below the log start, and the range goes
// into the next manifest's lost. While no node runs the queue, or across
// a restart, nobody fetches: the next owner would start each partition at
// the first record left and never know what went missing. So the broker's
// retention, when it trims records no committed window holds, writes a
// lost note in the same raft entry as the trim: the partition's deleted
// offsets, and the commit pointer's k they follow. The entry is fenced by
// checks of the sink's documents, so a note is exact: the records were in
// the log as it was written, and in no window the pointers name.
//
// A note about k (written while the pointer named window k) covers
// records the sink owes window k+1 or later. A node that restores the
// queue reads the notes once and puts those about k into window k+1's lost
// ranges; when window k+1 commits, the notes about k and earlier are done
// and the commit batch deletes them. While a window's intent is pending,
// the broker writes the records stamped below the intent's end as notes
// about k and the later ones as notes about k+1: a rebuilt window k+1
// reports the first, a finished upload (which holds what it read) makes
// them stale, and window k+2 reports the second.

// lostDoc is a lost note: offsets From..To (inclusive) of Partition were
// deleted while the commit pointer named window K (0: none).
type lostDoc struct {
	K         uint64 `json:"k"`
	Partition string `json:"partition"`
	From      int64  `json:"from"`
	To        int64  `json:"to"`
}

// maxNoteDeletes bounds the notes one commit batch deletes; the rest go
// with later commits (a note older than the pointer is never read again).
const maxNoteDeletes = 200

func lostPrefix(sink, queue string) string { return docKey(sink, queue, "lost:") }

// NoteKey is the KV key of the note about window k of one partition: a
// hash of the partition's name keeps it short whatever the name.
func NoteKey(sink, queue, partition string, k uint64) string {
	h := sha256.Sum256([]byte(partition))
	return lostPrefix(sink, queue) + hex.EncodeToString(h[:16]) + ":" + strconv.FormatUint(k, 10)
}

// note is a lost note as a restore read it.
type note struct {
	key     string
	version int64
	doc     lostDoc
	seeded  bool
}

// loadLost reads the queue's lost notes, at restore.
func (q *queueTask) loadLost(ctx context.Context) error {
	q.notes = nil
	prefix := lostPrefix(q.e.set.Sink, q.queue)
	for after := ""; ; {
		rows, next, err := q.e.kv.Prefix(ctx, q.e.tenant, Namespace, prefix, after, 500)
		if err != nil {
			return fmt.Errorf("read lost notes: %w", err)
		}
		for _, r := range rows {
			var d lostDoc
			if err := json.Unmarshal(r.Value, &d); err != nil || d.Partition == "" || d.From < 0 || d.To < d.From {
				return fmt.Errorf("lost note %s: %s", r.Key, r.Value)
			}
			q.notes = append(q.notes, note{key: r.Key, version: r.Version, doc: d})
		}
		if next == "" {
			return nil
		}
		after = next
	}
}

// seedLost puts the notes about window k (the one before the window being
// built) into the open window's lost ranges, each once. A partition's
// reads go on after the last offset any note of it names (the notes about
// later windows too): those offsets are gone, and noted.
func (q *queueTask) seedLost(k uint64) {
	last := map[string]int64{}
	for _, n := range q.notes {
		if n.doc.K >= k {
			last[n.doc.Partition] = max(last[n.doc.Partition], n.doc.To)
		}
	}
	for i := range q.notes {
		n := &q.notes[i]
		if n.doc.K != k || n.seeded {
			continue
		}
		n.seeded = true
		p := q.parts[n.doc.Partition]
		if p == nil {
			// Records after the deleted ones are stamped at or after them,
			// so after the window's start: read on from there.
			p = q.addPart(n.doc.Partition, last[n.doc.Partition]+1)
		}
		p.next = max(p.next, last[n.doc.Partition]+1)
		p.lost = append(p.lost, lakeformat.LostRange{Partition: n.doc.Partition, From: n.doc.From, To: n.doc.To})
		q.log.Warn("records deleted by retention while no node ran the queue", "partition", n.doc.Partition,
			"from", n.doc.From, "to", n.doc.To)
	}
}

// noteDeletes are the deletes of the notes that window k's commit makes
// done (those about k-1 and earlier), at most maxNoteDeletes.
func (q *queueTask) noteDeletes(k uint64) (ops []KVOp, keys []string) {
	for i := range q.notes {
		n := &q.notes[i]
		if n.doc.K >= k || len(ops) == maxNoteDeletes {
			continue
		}
		v := n.version
		ops = append(ops, KVOp{Kind: KVDelete, Key: n.key, Expect: &v})
		keys = append(keys, n.key)
	}
	return ops, keys
}

// dropNotes forgets the notes of keys, deleted by a commit.
func (q *queueTask) dropNotes(keys []string) {
	if len(keys) == 0 {
		return
	}
	gone := map[string]bool{}
	for _, k := range keys {
		gone[k] = true
	}
	kept := q.notes[:0]
	for _, n := range q.notes {
		if !gone[n.key] {
			kept = append(kept, n)
		}
	}
	q.notes = kept
}

// Debt is what one sink owes the lake of a queue, as its documents say:
// the records not in a committed window yet, by stamp, and the k a note
// of them is about. The broker's retention reads it (Debts) before it
// trims, and notes what it deletes of it (NoteOps).
type Debt struct {
	Sink string
	Cuts []Cut
	// Fence checks the documents the debt was read from: a note written
	// with them applies only while they still hold (the sink did not move
	// a pointer meanwhile).
	Fence []KVOp
}

// Cut is one stretch of a debt: the records stamped in [From, To) (From
// -1: from the first record), owed after window K.
type Cut struct {
	From, To int64
	K        uint64
}

// Debts reads, out of rows (any listing of Namespace that holds the
// queue's documents: a getPrefix of "s3:"), what each sink owes the lake
// of queue. A sink that has neither a commit pointer nor a start point
// for the queue owes nothing: it has not run it yet. Rows that do not
// decode are an error: a debt misread could delete records unnoted.
func Debts(rows []Row, queue string) ([]Debt, error) {
	esc := lakeformat.EscapeName(queue)
	type docs struct{ committed, intent, start *Row }
	bySink := map[string]*docs{}
	var sinks []string
	for i := range rows {
		r := &rows[i]
		parts := strings.Split(r.Key, ":")
		if len(parts) != 4 || parts[0] != "s3" || parts[2] != esc {
			continue
		}
		d := bySink[parts[1]]
		if d == nil {
			d = &docs{}
			bySink[parts[1]] = d
			sinks = append(sinks, parts[1])
		}
		switch parts[3] {
		case "committed":
			d.committed = r
		case "intent":
			d.intent = r
		case "start":
			d.start = r
		}
	}
	var out []Debt
	for _, sink := range sinks {
		d := bySink[sink]
		if d.committed == nil && d.start == nil {
			continue
		}
		debt := Debt{Sink: sink}
		var k uint64
		from := int64(-1)
		if d.committed != nil {
			ck, tEnd, err := decodeCommitted(d.committed.Value)
			if err != nil {
				return nil, err
			}
			k, from = ck, tEnd
		} else {
			var s startDoc
			if err := json.Unmarshal(d.start.Value, &s); err != nil {
				return nil, fmt.Errorf("s3sink: start point %s: %w", d.start.Value, err)
			}
			from = s.TStart
		}
		cut := Cut{From: from, To: math.MaxInt64, K: k}
		if d.intent != nil {
			var in intentDoc
			if err := json.Unmarshal(d.intent.Value, &in); err != nil {
				return nil, fmt.Errorf("s3sink: intent %s: %w", d.intent.Value, err)
			}
			if in.K == k+1 {
				// Window k+1 is being committed: what it holds goes with
				// it (or with its rebuild), the rest after it.
				debt.Cuts = append(debt.Cuts, Cut{From: from, To: in.TEnd, K: k})
				cut = Cut{From: in.TEnd, To: math.MaxInt64, K: k + 1}
			}
		}
		debt.Cuts = append(debt.Cuts, cut)
		for _, key := range []string{"committed", "intent", "start"} {
			var v int64
			if r := map[string]*Row{"committed": d.committed, "intent": d.intent, "start": d.start}[key]; r != nil {
				v = r.Version
			}
			debt.Fence = append(debt.Fence, KVOp{Kind: KVCheck, Key: docKey(sink, queue, key), Expect: &v, Required: true})
		}
		out = append(out, debt)
	}
	return out, nil
}

// NoteOp is the write that notes offsets [from, to] of partition deleted,
// owed after window k: the note at NoteKey merged with existing (the row
// there; Found false when none), required to find it as read.
func NoteOp(sink, queue, partition string, k uint64, from, to int64, existing Row) (KVOp, error) {
	d := lostDoc{K: k, Partition: partition, From: from, To: to}
	var v int64
	if existing.Found {
		var old lostDoc
		if err := json.Unmarshal(existing.Value, &old); err != nil || old.Partition != partition || old.K != k {
			return KVOp{}, fmt.Errorf("s3sink: lost note %s: %s", existing.Key, existing.Value)
		}
		// Trims delete a partition from its start on, so the offsets of two
		// trims meet: anything else is a note this code did not write.
		if from > old.To+1 || to+1 < old.From {
			return KVOp{}, fmt.Errorf("s3sink: lost note %s holds %d..%d, not next to %d..%d", existing.Key, old.From, old.To, from, to)
		}
		d.From, d.To = min(d.From, old.From), max(d.To, old.To)
		v = existing.Version
	}
	return KVOp{Kind: KVPut, Key: NoteKey(sink, queue, partition, k), Value: mustJSON(d), Expect: &v, Required: true}, nil
}

// LostNotes returns the KV ops a trim of partition's offsets from..to
// (inclusive) must apply in its own raft entry, so that the records it
// deletes that a sink still owes the lake are noted: for each debt that
// owes some of them, its fence and a note per cut they fall in. offsetAt
// answers the first offset among from..to stamped at or after ts (to+1
// when none), read before the trim; existing answers the row at a key
// (Found false when none), read with the debts. No ops means no sink owes
// any of the records.
func LostNotes(debts []Debt, queue, partition string, from, to int64, offsetAt func(ts int64) (int64, error),
	existing func(key string) Row) ([]KVOp, error) {
	if to < from {
		return nil, nil
	}
	at := func(ts int64) (int64, error) {
		switch {
		case ts <= -1:
			return from, nil
		case ts == math.MaxInt64:
			return to + 1, nil
		}
		o, err := offsetAt(ts)
		return min(max(o, from), to+1), err
	}
	var ops []KVOp
	for _, d := range debts {
		var notes []KVOp
		for _, c := range d.Cuts {
			a, err := at(c.From)
			if err != nil {
				return nil, err
			}
			b, err := at(c.To)
			if err != nil {
				return nil, err
			}
			if a > b-1 {
				continue
			}
			op, err := NoteOp(d.Sink, queue, partition, c.K, a, b-1, existing(NoteKey(d.Sink, queue, partition, c.K)))
			if err != nil {
				return nil, err
			}
			notes = append(notes, op)
		}
		if len(notes) > 0 {
			ops = append(append(ops, d.Fence...), notes...)
		}
	}
	return ops, nil
}
