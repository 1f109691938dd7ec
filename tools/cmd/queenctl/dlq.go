package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
)

// deadLetter is one message of GET /api/v1/dlq.
type deadLetter struct {
	ID            string          `json:"id"`
	Queue         string          `json:"queue"`
	ConsumerGroup string          `json:"consumerGroup"`
	Partition     string          `json:"partition"`
	Offset        int64           `json:"offset"`
	TransactionID string          `json:"transactionId"`
	Data          json.RawMessage `json:"data"`
	FailedAt      string          `json:"failedAt"`
	Attempts      int             `json:"attempts"`
	Error         *string         `json:"error"`
}

// dlq is `queenctl dlq [--queue Q] [--group G] [--partition P]
// [--limit N]` (GET /api/v1/dlq) and `dlq replay <id> [--queue Q]
// [--partition P]` (POST /api/v1/dlq/:id/replay).
func (c *cli) dlq(args []string) error {
	if name, rest := sub(args, "replay"); name == "replay" {
		return c.dlqReplay(rest)
	}
	fs := c.flags("dlq")
	queue := fs.String("queue", "", "queue (default every one)")
	group := fs.String("group", "", "consumer group (default every one)")
	partition := fs.String("partition", "", "partition (default every one)")
	limit := fs.Int("limit", 100, "dead letters at most (1..1000)")
	if _, err := parse(fs, args, 0, 0, "[--queue Q] [--group G] | replay <id>"); err != nil {
		return err
	}
	q := url.Values{"limit": {strconv.Itoa(*limit)}}
	for k, v := range map[string]string{"queue": *queue, "consumerGroup": *group, "partition": *partition} {
		if v != "" {
			q.Set(k, v)
		}
	}
	var out struct {
		Messages []deadLetter `json:"messages"`
		Total    int          `json:"total"`
	}
	return c.show(http.MethodGet, "/api/v1/dlq", q, nil, &out, func() error {
		t := newTable(c.stdout, "ID", "QUEUE", "GROUP", "PARTITION", "OFFSET", "TRANSACTION ID", "ATTEMPTS", "FAILED AT", "ERROR", "DATA")
		for _, d := range out.Messages {
			t.row(d.ID, d.Queue, orDash(d.ConsumerGroup), d.Partition, itoa(d.Offset), d.TransactionID, strconv.Itoa(d.Attempts),
				d.FailedAt, clip(strp(d.Error), 40), clip(scalar(d.Data), 40))
		}
		if err := t.flush(); err != nil {
			return err
		}
		if out.Total > len(out.Messages) {
			_, err := c.stdout.Write([]byte("(" + strconv.Itoa(len(out.Messages)) + " of " + strconv.Itoa(out.Total) + "; --limit for more)\n"))
			return err
		}
		return nil
	})
}

// dlqReplay is `queenctl dlq replay <id> [--queue Q] [--partition P]`.
func (c *cli) dlqReplay(args []string) error {
	fs := c.flags("dlq replay")
	queue := fs.String("queue", "", "push the copy to this queue (default the letter's)")
	partition := fs.String("partition", "", "and this partition (needs --queue)")
	pos, err := parse(fs, args, 1, 1, "<id>")
	if err != nil {
		return err
	}
	if *partition != "" && *queue == "" {
		return usagef("dlq replay: --partition needs --queue")
	}
	var body any
	if *queue != "" {
		b := map[string]string{"queue": *queue}
		if *partition != "" {
			b["partition"] = *partition
		}
		body = b
	}
	path := "/api/v1/dlq/" + seg(pos[0]) + "/replay"
	var r struct {
		ID        string `json:"id"`
		Verdict   string `json:"verdict"`
		Queue     string `json:"queue"`
		Partition string `json:"partition"`
	}
	return c.show(http.MethodPost, path, nil, body, &r, func() error {
		t := newTable(c.stdout, "ID", "VERDICT", "QUEUE", "PARTITION")
		t.row(r.ID, r.Verdict, r.Queue, r.Partition)
		return t.flush()
	})
}
