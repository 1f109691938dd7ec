package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/queen-mq/queen-go/httpd/wire"
)

// txnBody is -mode txn's request: one transaction pushing pushBody's
// records (one push operation of -batch items), as JSON, or with -body
// frames as the client's binary transaction (QTB1: no head, the records
// framed and compressed per partition, the counted answer).
func txnBody(o options, c, i int, payload string) ([]byte, error) {
	if o.body == bodyFrames {
		groups := recordGroups(o, c, i, payload, true)
		return wire.AppendTransaction(nil, nil, groups, true)
	}
	items := pushBody(o, c, i, payload) // {"items":[...]}
	var b strings.Builder
	b.WriteString(`{"operations":[{"type":"push","items":`)
	b.Write(items[len(`{"items":`) : len(items)-1])
	b.WriteString(`}]}`)
	return []byte(b.String()), nil
}

// transact sends one transaction and returns how many records it pushed.
func transact(ctx context.Context, client *http.Client, url string, body []byte) (int, error) {
	a, err := send(ctx, client, url+"/api/v1/transaction", body)
	if err != nil {
		return 0, err
	}
	var ans struct {
		Success bool              `json:"success"`
		Reason  string            `json:"reason"`
		Results []json.RawMessage `json:"results"`
		Pushed  *int              `json:"pushed"`
		Dups    *int              `json:"duplicate"`
	}
	if err := json.Unmarshal(a.body, &ans); err != nil {
		return 0, fmt.Errorf("transaction answered %.200s", a.body)
	}
	if !ans.Success {
		return 0, fmt.Errorf("transaction rolled back: %s", ans.Reason)
	}
	if ans.Pushed != nil && ans.Dups != nil {
		return *ans.Pushed + *ans.Dups, nil
	}
	return len(ans.Results), nil
}

// recordGroups is pushBody's records grouped by partition, in the order
// the partitions first appear; frames mints each message's version-7 id.
func recordGroups(o options, c, i int, payload string, frames bool) []wire.Group {
	var groups []wire.Group
	at := map[string]int{}
	now := time.Now().UnixNano()
	for j := 0; j < o.batch; j++ {
		part := fmt.Sprintf("p-%d", (c*7919+i+j)%o.partitions)
		g, ok := at[part]
		if !ok {
			g = len(groups)
			at[part] = g
			groups = append(groups, wire.Group{Queue: o.queue, Partition: part})
		}
		m := wire.Message{TransactionID: fmt.Sprintf("qb-%d-%d-%d-%d", now, c, i, j), Payload: []byte(payload)}
		if frames {
			m.ID = newV7()
		}
		groups[g].Messages = append(groups[g].Messages, m)
	}
	return groups
}
