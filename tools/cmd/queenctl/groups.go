package main

import (
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// groupSummary is one group of GET /api/v1/consumer-groups[/lagging].
type groupSummary struct {
	Name   string `json:"name"`
	Lag    int64  `json:"lag"`
	Queues []struct {
		Queue            string `json:"queue"`
		SubscribedAt     string `json:"subscribedAt"`
		SubscriptionMode string `json:"subscriptionMode"`
		Lag              int64  `json:"lag"`
		Partitions       int    `json:"partitions"`
	} `json:"queues"`
}

// groupDetail is GET /api/v1/consumer-groups/:group.
type groupDetail struct {
	Name   string `json:"name"`
	Queues []struct {
		Queue            string `json:"queue"`
		SubscriptionMode string `json:"subscriptionMode"`
		Partitions       []struct {
			Partition     string  `json:"partition"`
			Cursor        int64   `json:"cursor"`
			HighWatermark int64   `json:"highWatermark"`
			Lag           int64   `json:"lag"`
			LeaseID       *string `json:"leaseId"`
		} `json:"partitions"`
	} `json:"queues"`
}

// groups is `queenctl groups [<group>]`, `groups lag [--min-lag N]` and
// `groups seek <group> <queue> (--to RFC3339 | --to-end) [--partition P]`.
func (c *cli) groups(args []string) error {
	switch name, rest := sub(args, "lag", "seek"); name {
	case "lag":
		return c.groupsLag(rest)
	case "seek":
		return c.groupsSeek(rest)
	}
	fs := c.flags("groups")
	pos, err := parse(fs, args, 0, 1, "[<group>] | lag | seek")
	if err != nil {
		return err
	}
	if len(pos) == 1 {
		return c.group(pos[0])
	}
	return c.groupList("/api/v1/consumer-groups", nil)
}

// groupsLag is `queenctl groups lag [--min-lag N]`: GET
// /api/v1/consumer-groups/lagging?minLag=N, the groups whose lag (the
// messages they have still to read, over their queues) is N or more.
// The broker measures lag in messages, not seconds.
func (c *cli) groupsLag(args []string) error {
	fs := c.flags("groups lag")
	minLag := fs.Int64("min-lag", 1, "least lag, in messages")
	if _, err := parse(fs, args, 0, 0, "[--min-lag N]"); err != nil {
		return err
	}
	if *minLag < 0 {
		return usagef("groups lag: --min-lag %d: must be 0 or more", *minLag)
	}
	return c.groupList("/api/v1/consumer-groups/lagging", url.Values{"minLag": {itoa(*minLag)}})
}

// groupList prints the groups of path: a row per group and queue.
func (c *cli) groupList(path string, q url.Values) error {
	var out struct {
		ConsumerGroups []groupSummary `json:"consumerGroups"`
	}
	return c.show(http.MethodGet, path, q, nil, &out, func() error {
		t := newTable(c.stdout, "GROUP", "QUEUE", "MODE", "SUBSCRIBED", "PARTITIONS", "LAG", "GROUP LAG")
		for _, g := range out.ConsumerGroups {
			if len(g.Queues) == 0 {
				t.row(g.Name, "-", "-", "-", "0", "0", itoa(g.Lag))
			}
			for _, q := range g.Queues {
				t.row(g.Name, q.Queue, q.SubscriptionMode, q.SubscribedAt, strconv.Itoa(q.Partitions), itoa(q.Lag), itoa(g.Lag))
			}
		}
		return t.flush()
	})
}

// group is `queenctl groups <group>`: its place on every partition.
func (c *cli) group(name string) error {
	var g groupDetail
	return c.show(http.MethodGet, "/api/v1/consumer-groups/"+seg(name), nil, nil, &g, func() error {
		t := newTable(c.stdout, "QUEUE", "MODE", "PARTITION", "CURSOR", "HIGH WATERMARK", "LAG", "LEASE")
		for _, q := range g.Queues {
			for _, p := range q.Partitions {
				t.row(q.Queue, q.SubscriptionMode, p.Partition, itoa(p.Cursor), itoa(p.HighWatermark), itoa(p.Lag), strp(p.LeaseID))
			}
		}
		return t.flush()
	})
}

// groupsSeek is `queenctl groups seek <group> <queue> (--to RFC3339 |
// --to-end) [--partition P]`: POST
// /api/v1/consumer-groups/:group/queues/:queue[/partitions/:p]/seek with
// {"timestamp"} or {"toEnd":true}.
func (c *cli) groupsSeek(args []string) error {
	fs := c.flags("groups seek")
	to := fs.String("to", "", "the time to seek to, RFC 3339")
	toEnd := fs.Bool("to-end", false, "seek past the last message")
	partition := fs.String("partition", "", "seek this partition only")
	pos, err := parse(fs, args, 2, 2, "<group> <queue> (--to RFC3339 | --to-end)")
	if err != nil {
		return err
	}
	var body map[string]any
	switch {
	case *to != "" && *toEnd:
		return usagef("groups seek: --to and --to-end: give one of them")
	case *toEnd:
		body = map[string]any{"toEnd": true}
	case *to != "":
		ts, err := time.Parse(time.RFC3339Nano, *to)
		if err != nil {
			return usagef("groups seek: --to %q: not an RFC 3339 time (2006-01-02T15:04:05Z)", *to)
		}
		body = map[string]any{"timestamp": ts.UTC().Format("2006-01-02T15:04:05.000000Z")}
	default:
		return usagef("groups seek: --to RFC3339 or --to-end is required")
	}
	path := "/api/v1/consumer-groups/" + seg(pos[0]) + "/queues/" + seg(pos[1])
	if *partition != "" {
		path += "/partitions/" + seg(*partition)
	}
	path += "/seek"
	var r struct {
		Success       bool   `json:"success"`
		ConsumerGroup string `json:"consumerGroup"`
		Queue         string `json:"queue"`
		Partitions    int    `json:"partitions"`
	}
	return c.show(http.MethodPost, path, nil, body, &r, func() error {
		t := newTable(c.stdout, "GROUP", "QUEUE", "PARTITIONS MOVED", "SUCCESS")
		t.row(r.ConsumerGroup, r.Queue, strconv.Itoa(r.Partitions), strconv.FormatBool(r.Success))
		if err := t.flush(); err != nil {
			return err
		}
		if !r.Success {
			return errFailed
		}
		return nil
	})
}
