package httpd

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/queen-mq/queen-go/contract"
)

// MaxEntries caps the entries of fetch, fetch/offsets and
// partitions/changed (the 2.x figure; API.md §4 leaves 64 or 1024 open
// for partitions/changed, and 1024 refuses no client the 1.5 code served).
const MaxEntries = 1024

// decodeEntries reads the entries of a body {"entries":[{…},…]}. Absent
// or null entries are none.
func decodeEntries(o object) ([]object, error) {
	if isNull(o["entries"]) {
		return nil, nil
	}
	list, err := arrayAtMost(o["entries"], "entries", MaxEntries, "%d entries, at most %d")
	if err != nil {
		return nil, err
	}
	return decodeEach(list, "entries", asObject)
}

// decodeEach decodes each element of list, the array at path k, with
// one, which is given the element's path k[i]; the first refusal stops
// it.
func decodeEach[T any](list []json.RawMessage, k string, one func(raw json.RawMessage, at string) (T, error)) ([]T, error) {
	out := make([]T, len(list))
	for i, raw := range list {
		var err error
		if out[i], err = one(raw, fmt.Sprintf("%s[%d]", k, i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// eachEntry decodes each of entries with one, which reads the entry o
// (at path entries[i]) into q; the first refusal stops it.
func eachEntry[Q any](entries []object, one func(o object, path string, q *Q) error) ([]Q, error) {
	qs := make([]Q, len(entries))
	for i, o := range entries {
		if err := one(o, fmt.Sprintf("entries[%d]", i), &qs[i]); err != nil {
			return nil, err
		}
	}
	return qs, nil
}

// decodeEntriesOf reads a body {"entries":[…]} (decodeEntries), each
// entry with one (eachEntry).
func decodeEntriesOf[Q any](body []byte, one func(o object, path string, q *Q) error) ([]Q, error) {
	_, entries, err := entriesBody(body)
	if err != nil {
		return nil, err
	}
	return eachEntry(entries, one)
}

// entriesBody reads a body, which must be an object, and its entries
// (decodeEntries).
func entriesBody(body []byte) (object, []object, error) {
	o, err := asObject(body, "the body")
	if err != nil {
		return nil, nil, err
	}
	entries, err := decodeEntries(o)
	return o, entries, err
}

// queueOf reads an entry's queue: a non-empty string, a queue's name.
func queueOf(o object, path string) (string, error) {
	return o.required("queue", path, contract.Queue)
}

// partitionOf reads an entry's partition: a string, a number (its text as
// sent), or absent, null or "" for DefaultPartition.
func partitionOf(o object, path string) (string, error) {
	raw := o["partition"]
	if isNull(raw) {
		return DefaultPartition, nil
	}
	switch c := firstByte(raw); {
	case c == '"':
		p, err := o.name("partition", path+".partition", contract.Partition)
		if p == "" && err == nil {
			p = DefaultPartition
		}
		return p, err
	case c == '-' || c >= '0' && c <= '9':
		p := strings.TrimSpace(string(raw))
		return p, contractError(contract.Partition.Check(path+".partition", p))
	}
	return "", badRequest("%s.partition must be a string or a number", path)
}

// parseISO reads an ISO-8601 time: RFC 3339 with any fraction, or without
// a zone (UTC), or a date alone; it answers µs since the epoch.
func parseISO(s string) (int64, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMicro(), nil
		}
	}
	return 0, fmt.Errorf("%s is not an ISO-8601 time", contract.Quote(s))
}

// timestampOf reads fetch/offsets' timestamp: epoch ms as a number (or a
// string of digits), or an ISO-8601 string. It answers µs.
func timestampOf(o object, path string) (int64, error) {
	raw := o["timestamp"]
	if isNull(raw) {
		return 0, badRequest("%s.timestamp is required", path)
	}
	text := raw
	if firstByte(raw) == '"' {
		s, _, err := o.str("timestamp", path+".timestamp")
		if err != nil {
			return 0, err
		}
		if us, err := parseISO(s); err == nil {
			return us, nil
		}
		text = []byte(s)
		if _, err := strconv.ParseInt(s, 10, 64); err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, badRequest("%s.timestamp must be epoch milliseconds or an ISO-8601 time", path)
		}
	} else if _, err := contract.ParseInteger(raw); errors.Is(err, contract.ErrNotInteger) {
		return 0, badRequest("%s.timestamp must be epoch milliseconds or an ISO-8601 time", path)
	}
	ms, err := contract.Timestamp.Parse(path+".timestamp", text)
	if err != nil {
		return 0, contractError(err)
	}
	return ms * 1000, nil
}
