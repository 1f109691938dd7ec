package httpd

import (
	"fmt"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/contract"
)

// The push body decoder as it was before push_scan.go, word for word but
// for its names: encoding/json into maps of json.RawMessage, one map per
// item. FuzzPushDecode holds the scanner to its answers, and
// BenchmarkDecodePush measures the two.

// decodePushRef checks a push body, which must be valid JSON, and returns
// its items with their defaults: partition "Default", and, without a
// transactionId, Dedup false (newMessageIDs fills the ids). Errors are
// *Error 400 bad_request naming the field.
//
// Each item's Payload is a copy of the payload's bytes in body, exactly
// as sent.
func decodePushRef(body []byte) ([]PushItem, error) {
	o, err := asObject(body, "the body")
	if err != nil {
		return nil, err
	}
	raw, ok := o["items"]
	if !ok || isNull(raw) {
		return nil, badRequest("items is required")
	}
	list, err := asArray(raw, "items")
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, badRequest("items is empty")
	}
	items := make([]PushItem, len(list))
	for i, raw := range list {
		path := fmt.Sprintf("items[%d]", i)
		o, err := asObject(raw, path)
		if err != nil {
			return nil, err
		}
		if items[i], err = decodePushItemRef(o, path); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// decodePushItemRef reads one push item, the object at path in the body
// (POST /api/v1/push's items, and a transaction's push operations):
// queue, partition, payload, transactionId and traceId (a UUID, kept with
// the record and answered by pops; the 2.x client sends only UUIDs, so
// another string is 400). Other members are ignored.
func decodePushItemRef(o object, path string) (PushItem, error) {
	q, err := o.name("queue", path+".queue", contract.Queue)
	if err != nil {
		return PushItem{}, err
	}
	if q == "" {
		return PushItem{}, badRequest("%s.queue is required", path)
	}
	p, err := o.name("partition", path+".partition", contract.Partition)
	if err != nil {
		return PushItem{}, err
	}
	if p == "" {
		p = DefaultPartition
	}
	payload, ok := o["payload"]
	if !ok {
		return PushItem{}, badRequest("%s.payload is required", path)
	}
	txn, err := o.name("transactionId", path+".transactionId", contract.TransactionID)
	if err != nil {
		return PushItem{}, err
	}
	it := PushItem{Queue: q, Partition: p, TransactionID: txn, Dedup: txn != "", Payload: payload}
	trace, _, err := o.str("traceId", path+".traceId")
	if err != nil {
		return PushItem{}, err
	}
	if trace != "" {
		id, err := uuid.Parse(trace)
		if err != nil {
			return PushItem{}, badRequest("%s.traceId %q must be a UUID", path, clipped(trace))
		}
		it.TraceID = id
	}
	return it, nil
}
