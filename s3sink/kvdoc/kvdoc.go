package kvdoc

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/queen-mq/queen-go/lakeformat"
)

// Namespace is the KV namespace of the sink's documents.
const Namespace = "queen-s3"

// Key is the key of document what of a sink and queue:
// "s3:<sink>:<queue>:<what>", the queue percent-encoded.
func Key(sink, queue, what string) string {
	return "s3:" + sink + ":" + lakeformat.EscapeName(queue) + ":" + what
}

// CommittedKey is the key of a sink's commit pointer of a queue.
func CommittedKey(sink, queue string) string { return Key(sink, queue, "committed") }

// StartKey is the key of a sink's start point of a queue: records stamped
// at or after it belong in the lake.
func StartKey(sink, queue string) string { return Key(sink, queue, "start") }

// DecodeCommitted reads a commit pointer, the value under CommittedKey:
// its k, its tEnd (µs on the broker clock), and legacy when that tEnd is
// the standalone 1.5 sink's integer of microseconds rather than the ISO
// string this sink writes.
func DecodeCommitted(v []byte) (k uint64, tEnd int64, legacy bool, err error) {
	var d struct {
		K uint64 `json:"k"`
	}
	if err := json.Unmarshal(v, &d); err != nil {
		return 0, 0, false, fmt.Errorf("s3sink: commit pointer %s: %w", v, err)
	}
	tEnd, legacy, err = CommittedEnd(v)
	return d.K, tEnd, legacy, err
}

// CommittedEnd reads a commit pointer's tEnd alone, whatever its k holds:
// the end (µs on the broker clock), and legacy when it is the standalone
// 1.5 sink's integer of microseconds. Retention's hold reads only this.
func CommittedEnd(v []byte) (tEnd int64, legacy bool, err error) {
	var d struct {
		TEnd json.RawMessage `json:"tEnd"`
	}
	if err := json.Unmarshal(v, &d); err != nil {
		return 0, false, fmt.Errorf("s3sink: commit pointer %s: %w", v, err)
	}
	tEnd, err = committedEnd(d.TEnd)
	return tEnd, err == nil && d.TEnd[0] != '"', err
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
