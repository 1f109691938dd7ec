package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// counts is a "messages" block of the status routes.
type counts struct {
	Total      int64 `json:"total"`
	Pending    int64 `json:"pending"`
	Processing int64 `json:"processing"`
	Completed  int64 `json:"completed"`
}

// queueRow is one queue of GET /api/v1/status/queues.
type queueRow struct {
	Name           string  `json:"name"`
	Namespace      string  `json:"namespace"`
	Task           string  `json:"task"`
	Partitions     int     `json:"partitions"`
	ConsumerGroups int     `json:"consumerGroups"`
	Messages       counts  `json:"messages"`
	LastWriteAt    *string `json:"lastWriteAt"`
}

// queueDetail is GET /api/v1/status/queues/:queue.
type queueDetail struct {
	Queue struct {
		Name      string  `json:"name"`
		Namespace string  `json:"namespace"`
		Task      string  `json:"task"`
		CreatedAt *string `json:"createdAt"`
	} `json:"queue"`
	Totals struct {
		Partitions  int     `json:"partitions"`
		Messages    counts  `json:"messages"`
		LastWriteAt *string `json:"lastWriteAt"`
	} `json:"totals"`
	Partitions []struct {
		PartitionID string  `json:"partitionId"`
		Name        string  `json:"name"`
		LastOffset  int64   `json:"lastOffset"`
		LogStart    int64   `json:"logStart"`
		LastWriteAt *string `json:"lastWriteAt"`
		Messages    counts  `json:"messages"`
	} `json:"partitions"`
	ConsumerGroups []struct {
		Name             string `json:"name"`
		SubscriptionMode string `json:"subscriptionMode"`
		Messages         counts `json:"messages"`
		Partitions       []struct {
			Partition  string  `json:"partition"`
			Cursor     int64   `json:"cursor"`
			Pending    int64   `json:"pending"`
			Processing int64   `json:"processing"`
			LeaseID    *string `json:"leaseId"`
		} `json:"partitions"`
	} `json:"consumerGroups"`
}

// queuesPage is how many queues one GET /api/v1/status/queues asks for
// (the route's most).
const queuesPage = 1000

// queues is `queenctl queues [<queue>]`: every queue (GET
// /api/v1/status/queues, page by page) with its depth (pending: what the
// slowest group has still to settle), or one queue (GET
// /api/v1/status/queues/:queue) with its partitions and groups.
func (c *cli) queues(args []string) error {
	fs := c.flags("queues")
	pos, err := parse(fs, args, 0, 1, "[<queue>]")
	if err != nil {
		return err
	}
	if len(pos) == 1 {
		return c.queue(pos[0])
	}
	var all []json.RawMessage
	for offset := 0; ; {
		var page struct {
			Queues     []json.RawMessage `json:"queues"`
			Pagination struct {
				Total int `json:"total"`
			} `json:"pagination"`
		}
		q := url.Values{"limit": {strconv.Itoa(queuesPage)}, "offset": {strconv.Itoa(offset)}}
		if _, err := c.get("/api/v1/status/queues", q, &page); err != nil {
			return err
		}
		all = append(all, page.Queues...)
		offset += len(page.Queues)
		if len(page.Queues) == 0 || offset >= page.Pagination.Total {
			break
		}
	}
	if c.json {
		if all == nil {
			all = []json.RawMessage{}
		}
		return c.printValue(map[string]any{"queues": all})
	}
	t := newTable(c.stdout, "QUEUE", "PARTITIONS", "GROUPS", "TOTAL", "PENDING", "PROCESSING", "COMPLETED", "LAST WRITE")
	for _, raw := range all {
		var q queueRow
		if err := json.Unmarshal(raw, &q); err != nil {
			return fmt.Errorf("/api/v1/status/queues: %v", err)
		}
		t.row(q.Name, strconv.Itoa(q.Partitions), strconv.Itoa(q.ConsumerGroups), itoa(q.Messages.Total),
			itoa(q.Messages.Pending), itoa(q.Messages.Processing), itoa(q.Messages.Completed), strp(q.LastWriteAt))
	}
	return t.flush()
}

// queue is `queenctl queues <queue>`.
func (c *cli) queue(name string) error {
	var d queueDetail
	return c.show(http.MethodGet, "/api/v1/status/queues/"+seg(name), nil, nil, &d, func() error {
		m := d.Totals.Messages
		head := newTable(c.stdout)
		head.row("queue", d.Queue.Name)
		head.row("namespace", orDash(d.Queue.Namespace))
		head.row("task", orDash(d.Queue.Task))
		head.row("created", strp(d.Queue.CreatedAt))
		head.row("partitions", strconv.Itoa(d.Totals.Partitions))
		head.row("messages", fmt.Sprintf("total %d, pending %d, processing %d, completed %d", m.Total, m.Pending, m.Processing, m.Completed))
		head.row("last write", strp(d.Totals.LastWriteAt))
		if err := head.flush(); err != nil {
			return err
		}
		fmt.Fprintln(c.stdout)
		t := newTable(c.stdout, "PARTITION", "ID", "LOG START", "LAST OFFSET", "TOTAL", "PENDING", "PROCESSING", "COMPLETED", "LAST WRITE")
		for _, p := range d.Partitions {
			t.row(p.Name, p.PartitionID, itoa(p.LogStart), itoa(p.LastOffset), itoa(p.Messages.Total), itoa(p.Messages.Pending),
				itoa(p.Messages.Processing), itoa(p.Messages.Completed), strp(p.LastWriteAt))
		}
		if err := t.flush(); err != nil {
			return err
		}
		if len(d.ConsumerGroups) == 0 {
			return nil
		}
		fmt.Fprintln(c.stdout)
		g := newTable(c.stdout, "GROUP", "MODE", "PARTITION", "CURSOR", "PENDING", "PROCESSING", "LEASE")
		for _, cg := range d.ConsumerGroups {
			for _, p := range cg.Partitions {
				g.row(cg.Name, cg.SubscriptionMode, p.Partition, itoa(p.Cursor), itoa(p.Pending), itoa(p.Processing), strp(p.LeaseID))
			}
		}
		return g.flush()
	})
}
