package s3sink

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/queen-mq/queen-go/lakeformat"
)

// The KV documents of one sink and queue (SINK-CONFIG.md §3), in the
// namespace queen-s3 of the queue's tenant:
//
//	s3:<sink>:<queue>:lease      who writes the queue (TTL)
//	s3:<sink>:<queue>:intent     the window being committed (forever)
//	s3:<sink>:<queue>:committed  the last committed window (forever)
//	s3:<sink>:<queue>:start      where the lake of the queue begins (forever)
//	s3:<sink>:<queue>:lost:<h>:<k>  offsets of one partition retention deleted
//	                             before they reached the lake (forever, until
//	                             the sink reports them)
//	s3:<sink>:node=<instance>    a node running the sink (TTL)
//
// The queue and instance are percent-encoded like object keys; <h> is a
// hash of the partition's name (its value holds the name) and <k> the
// commit pointer's k the note is about (lost.go).
func docKey(sink, queue, what string) string {
	return "s3:" + sink + ":" + lakeformat.EscapeName(queue) + ":" + what
}

func presencePrefix(sink string) string { return "s3:" + sink + ":node=" }

func presenceKey(sink, instance string) string {
	return presencePrefix(sink) + lakeformat.EscapeName(instance)
}

// leaseDoc is the value of a lease row and of a presence row.
type leaseDoc struct {
	Instance    string `json:"instance"`
	Incarnation string `json:"incarnation"`
	SinceMs     int64  `json:"sinceMs"`
}

// intentDoc fixes a window's end before anything is uploaded.
type intentDoc struct {
	K           uint64 `json:"k"`
	TStart      int64  `json:"tStart"`
	TEnd        int64  `json:"tEnd"`
	Format      string `json:"format"`
	Compression string `json:"compression"`
	Layout      string `json:"layout"`
	Writer      string `json:"writer"`
}

// startDoc fixes, the first time the sink runs a queue that has no commit
// pointer, where its lake begins: TStart (µs on the broker clock) for
// start=latest, -1 (the log's first record) for earliest. A restart, a
// failover or a move to another node before the first commit starts there
// again, never at a new "latest".
type startDoc struct {
	TStart int64  `json:"tStart"`
	Start  string `json:"start"` // latest or earliest, as configured then
}

// committedDoc is the commit pointer: only it makes a window real.
type committedDoc struct {
	K             uint64 `json:"k"`
	TEnd          string `json:"tEnd"` // ISO-8601 UTC, 6 digits, Z
	Manifest      string `json:"manifest"`
	Records       int64  `json:"records"`
	Bytes         int64  `json:"bytes"`
	CommittedAtMs int64  `json:"committedAtMs"`
}

// committedEnd reads the pointer's tEnd: an ISO string, or (from the
// standalone 1.5 sink) an integer of microseconds.
func committedEnd(raw json.RawMessage) (int64, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return lakeformat.ParseTs(s)
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("s3sink: committed tEnd %s is neither ISO nor microseconds", raw)
	}
	return n, nil
}

// DecodeCommitted reads a commit pointer row, the value under
// CommittedKey: its k, its tEnd (µs on the broker clock), and legacy when
// that tEnd is the standalone 1.5 sink's integer of microseconds rather
// than the ISO string this sink writes. It is the one reader of the
// document: the engine's restore and lost notes, and the broker's
// retention hold, read it here.
func DecodeCommitted(v []byte) (k uint64, tEnd int64, legacy bool, err error) {
	var d struct {
		K    uint64          `json:"k"`
		TEnd json.RawMessage `json:"tEnd"`
	}
	if err := json.Unmarshal(v, &d); err != nil {
		return 0, 0, false, fmt.Errorf("s3sink: commit pointer %s: %w", v, err)
	}
	tEnd, err = committedEnd(d.TEnd)
	return d.K, tEnd, err == nil && d.TEnd[0] != '"', err
}

// decodeCommitted is DecodeCommitted for the engine, which reads a 1.5
// pointer's tEnd as its own.
func decodeCommitted(v []byte) (k uint64, tEnd int64, err error) {
	k, tEnd, _, err = DecodeCommitted(v)
	return k, tEnd, err
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the documents are plain structs
	}
	return b
}

// CommittedKey is the KV key of a sink's commit pointer of a queue, for
// the broker's retention hold.
func CommittedKey(sink, queue string) string { return docKey(sink, queue, "committed") }

// StartKey is the KV key of a sink's start point of a queue (startDoc),
// for the lake's verifier: records stamped at or after it belong in the
// lake.
func StartKey(sink, queue string) string { return docKey(sink, queue, "start") }
