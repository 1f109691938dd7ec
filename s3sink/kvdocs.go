package s3sink

import (
	"encoding/json"

	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/s3sink/kvdoc"
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
func docKey(sink, queue, what string) string { return kvdoc.Key(sink, queue, what) }

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

// decodeCommitted is kvdoc.DecodeCommitted for the engine, which reads a
// 1.5 pointer's tEnd as its own.
func decodeCommitted(v []byte) (k uint64, tEnd int64, err error) {
	k, tEnd, _, err = kvdoc.DecodeCommitted(v)
	return k, tEnd, err
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the documents are plain structs
	}
	return b
}
