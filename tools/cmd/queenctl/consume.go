package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// popAnswer is the 200 answer of a pop.
type popAnswer struct {
	LeaseID       string       `json:"leaseId"`
	ConsumerGroup string       `json:"consumerGroup"`
	Messages      []popMessage `json:"messages"`
}

// popMessage is one message of a pop.
type popMessage struct {
	TransactionID   string          `json:"transactionId"`
	PartitionID     string          `json:"partitionId"`
	Partition       string          `json:"partition"`
	LeaseID         string          `json:"leaseId"`
	ConsumerGroup   string          `json:"consumerGroup"`
	DeliveryAttempt int             `json:"deliveryAttempt"`
	Offset          int64           `json:"offset"`
	CreatedAt       string          `json:"createdAt"`
	Data            json.RawMessage `json:"data"`
}

// ackItem is one item of POST /api/v1/ack and /ack/batch.
type ackItem struct {
	TransactionID string `json:"transactionId"`
	PartitionID   string `json:"partitionId"`
	ConsumerGroup string `json:"consumerGroup,omitempty"`
	LeaseID       string `json:"leaseId,omitempty"`
	Status        string `json:"status,omitempty"`
	Error         string `json:"error,omitempty"`
}

// ackResult is one element of an ack's answer.
type ackResult struct {
	Index         int     `json:"index"`
	TransactionID string  `json:"transactionId"`
	Success       bool    `json:"success"`
	Error         *string `json:"error"`
	LeaseReleased bool    `json:"leaseReleased"`
	DLQ           bool    `json:"dlq"`
}

// pop is `queenctl pop <queue> [--group G] [--batch N] [--wait]
// [--timeout D] [--partition P] [--partitions N] [--mode new|all] [--ack]`: GET
// /api/v1/pop/queue/:queue[/partition/:partition]. Nothing to pop (204)
// prints no row, and {"messages":[]} with --json. With --ack, every
// message popped is acked completed at once (POST /api/v1/ack/batch);
// --json then prints {"pop":<the pop's answer>,"ack":<the ack's>}.
func (c *cli) pop(args []string) error {
	fs := c.flags("pop")
	group := fs.String("group", "", "consumer group (default queue mode)")
	batch := fs.Int("batch", 1, "messages at most")
	wait := fs.Bool("wait", false, "long-poll until a message comes or --timeout passes")
	timeout := fs.Duration("timeout", 0, "long-poll time (default the broker's, 30s)")
	partition := fs.String("partition", "", "pop this partition only")
	partitions := fs.Int("partitions", 1, "partitions to claim at once (1..64), under one lease")
	mode := fs.String("mode", "", "subscription mode of a new group: new or all (default the broker's)")
	doAck := fs.Bool("ack", false, "ack what was popped")
	pos, err := parse(fs, args, 1, 1, "<queue>")
	if err != nil {
		return err
	}
	if *batch < 1 {
		return usagef("pop: --batch %d: must be 1 or more", *batch)
	}
	if *partitions < 1 || *partitions > 64 {
		return usagef("pop: --partitions %d: must be 1..64", *partitions)
	}
	if *mode != "" && *mode != "new" && *mode != "all" {
		return usagef("pop: --mode %q: must be new or all", *mode)
	}
	path := "/api/v1/pop/queue/" + seg(pos[0])
	if *partition != "" {
		path += "/partition/" + seg(*partition)
	}
	q := url.Values{"batch": {strconv.Itoa(*batch)}}
	if *partitions > 1 {
		q.Set("partitions", strconv.Itoa(*partitions))
	}
	if *group != "" {
		q.Set("consumerGroup", *group)
	}
	if *mode != "" {
		q.Set("subscriptionMode", *mode)
	}
	w := time.Duration(0)
	if *wait {
		q.Set("wait", "true")
		w = 60 * time.Second
		if *timeout > 0 {
			q.Set("timeout", itoa(timeout.Milliseconds()))
			w = *timeout
		}
	}
	a, err := c.call(http.MethodGet, path, q, nil, w)
	if err != nil {
		return err
	}
	var p popAnswer
	if err := decode(a, path, &p); err != nil {
		return err
	}
	popBody := a.Body
	if a.Status == http.StatusNoContent {
		popBody = []byte(`{"messages":[]}`)
	}
	var ackBody []byte
	var acks []ackResult
	if *doAck && len(p.Messages) > 0 {
		items := make([]ackItem, len(p.Messages))
		for i, m := range p.Messages {
			items[i] = ackItem{TransactionID: m.TransactionID, PartitionID: m.PartitionID, ConsumerGroup: *group,
				LeaseID: m.LeaseID, Status: "completed"}
		}
		body := map[string]any{"acknowledgments": items}
		if *group != "" {
			body["consumerGroup"] = *group
		}
		a, err := c.send(http.MethodPost, "/api/v1/ack/batch", body, &acks)
		if err != nil {
			return err
		}
		ackBody = a.Body
	}
	if c.json {
		if *doAck {
			if ackBody == nil {
				ackBody = []byte("[]")
			}
			if err := c.printValue(map[string]json.RawMessage{"pop": popBody, "ack": ackBody}); err != nil {
				return err
			}
		} else if err := c.printJSON(popBody); err != nil {
			return err
		}
	} else {
		t := newTable(c.stdout, "PARTITION", "PARTITION ID", "OFFSET", "TRANSACTION ID", "LEASE ID", "ATTEMPT", "DATA")
		for _, m := range p.Messages {
			t.row(m.Partition, m.PartitionID, itoa(m.Offset), m.TransactionID, orDash(m.LeaseID),
				strconv.Itoa(m.DeliveryAttempt), clip(scalar(m.Data), 60))
		}
		if err := t.flush(); err != nil {
			return err
		}
		if len(p.Messages) == 0 {
			fmt.Fprintln(c.stderr, "queenctl: no message to pop")
		}
		if len(acks) > 0 {
			fmt.Fprintln(c.stdout)
			if err := c.printAcks(acks); err != nil {
				return err
			}
		}
	}
	return ackFailed(acks)
}

// ack is `queenctl ack <transactionId> <partitionId> [--lease L]
// [--group G] [--status S] [--error MSG]`: POST /api/v1/ack. The exit
// status is 1 when the broker answers success false.
func (c *cli) ack(args []string) error {
	fs := c.flags("ack")
	lease := fs.String("lease", "", "lease id the message was popped under")
	group := fs.String("group", "", "consumer group (default queue mode)")
	status := fs.String("status", "completed", "completed, failed, retry or dlq")
	msg := fs.String("error", "", "error message (with failed or dlq)")
	pos, err := parse(fs, args, 2, 2, "<transactionId> <partitionId>")
	if err != nil {
		return err
	}
	switch *status {
	case "completed", "failed", "retry", "dlq":
	default:
		return usagef("ack: --status %q: must be completed, failed, retry or dlq", *status)
	}
	item := ackItem{TransactionID: pos[0], PartitionID: pos[1], ConsumerGroup: *group, LeaseID: *lease, Status: *status, Error: *msg}
	var rs []ackResult
	a, err := c.send(http.MethodPost, "/api/v1/ack", item, &rs)
	if err != nil {
		return err
	}
	if c.json {
		if err := c.printJSON(a.Body); err != nil {
			return err
		}
	} else if err := c.printAcks(rs); err != nil {
		return err
	}
	return ackFailed(rs)
}

// printAcks writes an ack's answer as a table.
func (c *cli) printAcks(rs []ackResult) error {
	t := newTable(c.stdout, "INDEX", "TRANSACTION ID", "SUCCESS", "LEASE RELEASED", "DLQ", "ERROR")
	for _, r := range rs {
		t.row(strconv.Itoa(r.Index), r.TransactionID, strconv.FormatBool(r.Success), strconv.FormatBool(r.LeaseReleased),
			strconv.FormatBool(r.DLQ), strp(r.Error))
	}
	return t.flush()
}

// ackFailed is errFailed when an ack's item did not succeed.
func ackFailed(rs []ackResult) error {
	for _, r := range rs {
		if !r.Success {
			return errFailed
		}
	}
	return nil
}
