package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The fixed data set goes to two tenants, in the same rounds: the default
// tenant (pushed without x-queen-tenant), whose sink is the environment's
// (QUEEN_S3_*), and cpTenant, a broker tenant of the control plane's
// cluster cpCluster, whose sink is PUT through /api/cp. Each gets every
// item; the variety is in queues, partitions and payloads.
const (
	defaultTenant = "00000000-0000-0000-0000-000000000001"
	cpTenant      = "c0ffee00-0000-4000-8000-000000000015"
)

// tenants are the tenants pushed to, the default one first.
var tenants = []string{defaultTenant, cpTenant}

// queues are the queues pushed to, with names that need no escaping, so that
// the queue= column reads back as the queue's name in every engine.
var queues = []string{"orders", "events", "audit"}

// partitions are the partitions of every queue: ten plain names, one that
// needs escaping in a per-partition key (a space and a slash) and one that
// is not ASCII.
var partitions = []string{"p-00", "p-01", "p-02", "p-03", "p-04", "p-05", "p-06", "p-07", "p-08", "p-09",
	"eu west/1", "zürich"}

// Rounds of pushes before and after the hour boundary. A round pushes one
// record to every partition of every queue, one push per queue, so every
// push gets a stamp of its own.
const (
	roundsBefore = 3
	roundsAfter  = 2
)

// payloads are the payload templates, each holding one %d (the item's
// sequence number) but null and true. Each is valid JSON as the HTTP push
// requires; an empty payload cannot be pushed over HTTP (the field is
// required), so the lake's null for an empty payload is covered by the
// null payload, which both formats render the same way.
var payloads = []string{
	// Decimals whose text a re-rendering engine changes (42.00 -> 42.0).
	`{"order":%d,"status":"new","total":42.00}`,
	`{"order":%d,"status":"paid","total":17.50,"tax":0.10}`,
	// Nested objects and arrays, for JSON paths.
	`{"order":%d,"customer":{"id":"c-7","address":{"city":"Zürich","zip":"8001"}},"lines":[{"sku":"A-1","qty":2,"price":9.99},{"sku":"B-2","qty":1,"price":100.00}],"tags":["new","vip"]}`,
	// Unicode: accents, CJK, an emoji outside the BMP.
	`{"text":"café é 日本語 🎉","seq":%d}`,
	// Pretty-printed, with LF and with CRLF line breaks: JSONL writes each
	// raw line break as a space, Parquet keeps them.
	"{\n  \"pretty\": true,\n  \"n\": 1.50,\n  \"seq\": %d\n}",
	"{\r\n  \"crlf\": true,\r\n  \"seq\": %d\r\n}",
	`null`,
	// A JSON string with escapes a parser turns into other text.
	`"plain string %d with \"quotes\", a \\ backslash and \u00e9"`,
	// A bare number with a trailing zero.
	`%d.250`,
	`[%d,2.50,{"deep":[[["x"]]]},null,true,false]`,
	// Escaped control characters and slash inside strings (no raw line break).
	`{"escaped":"tab\there, newline\nthere","slash":"a\/b","empty":{},"list":[],"seq":%d}`,
	`true`,
}

// item is one record to push.
type item struct {
	Queue, Partition, TransactionID string
	Payload                         string
}

// batch returns the items of rounds [from, to): the records of one side of
// the hour boundary, one slice per push (one queue of one round). seq
// numbers items across the whole data set.
func batch(from, to int) [][]item {
	var pushes [][]item
	seq := from * len(queues) * len(partitions)
	for r := from; r < to; r++ {
		for _, q := range queues {
			var push []item
			for _, p := range partitions {
				push = append(push, newItem(q, p, seq))
				seq++
			}
			pushes = append(pushes, push)
		}
	}
	return pushes
}

// newItem is item seq: a payload template, and a transaction id of our
// own for three in four items (the broker's UUIDv7 for the rest; a few of
// ours are not ASCII).
func newItem(queue, partition string, seq int) item {
	// Mixed by round and queue as well, so each partition gets every kind.
	tpl := payloads[(seq+seq/len(partitions))%len(payloads)]
	payload := tpl
	if strings.Contains(tpl, "%d") {
		payload = fmt.Sprintf(tpl, seq)
	}
	it := item{Queue: queue, Partition: partition, Payload: payload}
	switch seq % 4 {
	case 0, 1:
		it.TransactionID = fmt.Sprintf("tx-%s-%04d", queue, seq)
	case 2:
		it.TransactionID = fmt.Sprintf("tx-ü-%s-%04d", queue, seq)
	}
	return it
}

// pushBody renders a push of items by hand, so that each payload's bytes
// reach the broker exactly as written here.
func pushBody(items []item) []byte {
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		q, _ := json.Marshal(it.Queue)
		p, _ := json.Marshal(it.Partition)
		fmt.Fprintf(&b, `{"queue":%s,"partition":%s,`, q, p)
		if it.TransactionID != "" {
			t, _ := json.Marshal(it.TransactionID)
			fmt.Fprintf(&b, `"transactionId":%s,`, t)
		}
		b.WriteString(`"payload":`)
		b.WriteString(it.Payload)
		b.WriteByte('}')
	}
	b.WriteString("]}")
	return []byte(b.String())
}
