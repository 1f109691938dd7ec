package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// pushBatch is how many stdin lines go in one POST /api/v1/push.
const pushBatch = 500

// pushItem is one item of POST /api/v1/push.
type pushItem struct {
	Queue         string          `json:"queue"`
	Partition     string          `json:"partition,omitempty"`
	Payload       json.RawMessage `json:"payload"`
	TransactionID string          `json:"transactionId,omitempty"`
}

// pushResult is one element of the push's answer.
type pushResult struct {
	Index         int    `json:"index"`
	MessageID     string `json:"message_id"`
	TransactionID string `json:"transaction_id"`
	Status        string `json:"status"`
	Offset        *int64 `json:"offset"`
	Error         string `json:"error"`
}

// push is `queenctl push <queue> [<json>|-] [--partition P] [--txn ID]`:
// one payload from the argument, or, with "-" or none, one per stdin line
// (blank lines skipped), pushed pushBatch at a time. --json prints one
// array of every item's answer, in order. The exit status is 1 when an
// item's status is "error".
func (c *cli) push(args []string) error {
	fs := c.flags("push")
	partition := fs.String("partition", "", "partition (default Default)")
	txn := fs.String("txn", "", "transaction id")
	pos, err := parse(fs, args, 1, 2, "<queue> [<json-payload>|-]")
	if err != nil {
		return err
	}
	queue := pos[0]
	item := func(payload []byte) pushItem {
		return pushItem{Queue: queue, Partition: *partition, Payload: payload, TransactionID: *txn}
	}
	var results []json.RawMessage
	if len(pos) == 2 && pos[1] != "-" {
		if !json.Valid([]byte(pos[1])) {
			return usagef("push: the payload %q is not JSON", clip(pos[1], 40))
		}
		rs, err := c.pushItems([]pushItem{item([]byte(pos[1]))})
		if err != nil {
			return err
		}
		results = rs
	} else {
		if *txn != "" {
			return usagef("push: --txn names one message; it cannot go with payloads from stdin")
		}
		rs, err := c.pushLines(c.stdin, item)
		if err != nil {
			return err
		}
		results = rs
	}
	if c.json {
		if results == nil {
			results = []json.RawMessage{}
		}
		if err := c.printValue(results); err != nil {
			return err
		}
	}
	t := newTable(c.stdout, "INDEX", "STATUS", "OFFSET", "MESSAGE ID", "TRANSACTION ID", "ERROR")
	failed := false
	for _, raw := range results {
		var r pushResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return fmt.Errorf("/api/v1/push: %v", err)
		}
		failed = failed || r.Status == "error"
		off := "-"
		if r.Offset != nil {
			off = itoa(*r.Offset)
		}
		t.row(strconv.Itoa(r.Index), r.Status, off, orDash(r.MessageID), orDash(r.TransactionID), orDash(r.Error))
	}
	if !c.json {
		if err := t.flush(); err != nil {
			return err
		}
	}
	if failed {
		return errFailed
	}
	return nil
}

// pushLines pushes one payload per non-blank line of r; an answer's
// indexes are renumbered from the first line.
func (c *cli) pushLines(r io.Reader, item func([]byte) pushItem) ([]json.RawMessage, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	var (
		out   []json.RawMessage
		batch []pushItem
		line  int
	)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		rs, err := c.pushItems(batch)
		if err != nil {
			return err
		}
		base := len(out)
		for _, raw := range rs {
			var m map[string]json.RawMessage
			if json.Unmarshal(raw, &m) == nil {
				var i int
				if json.Unmarshal(m["index"], &i) == nil {
					m["index"] = json.RawMessage(strconv.Itoa(base + i))
					raw, _ = json.Marshal(m)
				}
			}
			out = append(out, raw)
		}
		batch = batch[:0]
		return nil
	}
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if !json.Valid(b) {
			return out, usagef("push: stdin line %d is not JSON: %q", line, clip(string(b), 40))
		}
		batch = append(batch, item(bytes.Clone(b)))
		if len(batch) == pushBatch {
			if err := flush(); err != nil {
				return out, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("push: reading stdin: %v", err)
	}
	if err := flush(); err != nil {
		return out, err
	}
	if line == 0 || len(out) == 0 {
		return out, usagef("push: no payload (give one as an argument, or one JSON value per stdin line)")
	}
	return out, nil
}

// pushItems sends one POST /api/v1/push and returns its answer's items.
func (c *cli) pushItems(items []pushItem) ([]json.RawMessage, error) {
	var rs []json.RawMessage
	if _, err := c.send(http.MethodPost, "/api/v1/push", map[string]any{"items": items}, &rs); err != nil {
		return nil, err
	}
	return rs, nil
}
