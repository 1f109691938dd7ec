package httpd

import (
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/httpd/wire"
)

// DefaultPartition is the partition of an item or entry that names none.
const DefaultPartition = "Default"

// MaxTransactionIDBytes caps a push item's transactionId
// (contract.TransactionID's MaxBytes).
const MaxTransactionIDBytes = 65535

// pushAnswer is one element of the answer of POST /api/v1/push.
type pushAnswer struct {
	Index         int    `json:"index"`
	MessageID     string `json:"message_id"`
	TransactionID string `json:"transaction_id"`
	QueueName     string `json:"queueName"`
	Status        string `json:"status"`
	Error         string `json:"error,omitempty"`
	Offset        *int64 `json:"offset"`
}

// push is POST /api/v1/push (API.md §1): 201 with one answer per item,
// in request order. The body is JSON, or the binary push (wire.PushMagic,
// route_push_binary.go), which may ask for the counts only.
func (s *server) push() http.Handler {
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		items, counts, err := s.pushItems(r)
		if err != nil {
			return err
		}
		results, err := s.b.Push(r.Context(), tenantOf(r), items)
		if err != nil {
			return err
		}
		if len(results) != len(items) {
			return fmt.Errorf("httpd: broker answered %d push results for %d items", len(results), len(items))
		}
		if counts {
			writeJSON(w, http.StatusCreated, s.countPush(results))
			return nil
		}
		out := make([]pushAnswer, len(items))
		for i, res := range results {
			id := res.MessageID
			if id == ([16]byte{}) {
				id = items[i].MessageID
			}
			a := pushAnswer{
				Index:         i,
				MessageID:     uuid.UUID(id).String(),
				TransactionID: items[i].TransactionID,
				QueueName:     items[i].Queue,
				Status:        "queued",
			}
			switch {
			case res.Error != "":
				a.Status, a.Error = "error", res.Error
			case res.Duplicate:
				a.Status, a.Offset = "duplicate", &res.Offset
				s.m.count(msgDuplicate, 1)
			default:
				a.Offset = &res.Offset
				s.m.count(msgPushed, 1)
			}
			out[i] = a
		}
		writeJSON(w, http.StatusCreated, out)
		return nil
	})
}

// pushItems reads a push's body, JSON or binary, into its items with
// their message ids; counts says the binary body asked for the counts.
func (s *server) pushItems(r *http.Request) (items []PushItem, counts bool, err error) {
	body, err := readBody(r, s.maxBody)
	if err != nil {
		return nil, false, err
	}
	if isBinary(r, body, wire.PushMagic) {
		p, items, err := s.binaryPushItems(body)
		return items, p.Counts, err
	}
	if err := parseJSON(body); err != nil {
		return nil, false, err
	}
	if items, err = decodePush(body); err != nil {
		return nil, false, err
	}
	return items, false, newMessageIDs(items)
}

// decodePush checks a push body, which must be valid JSON, and returns
// its items with their defaults: partition "Default", and, without a
// transactionId, Dedup false (newMessageIDs fills the ids). Errors are
// *Error 400 bad_request naming the field.
//
// Each item's Payload is a copy of the payload's bytes in body, exactly
// as sent.
func decodePush(body []byte) ([]PushItem, error) {
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
		if items[i], err = decodePushItem(o, path); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// decodePushItem reads one push item, the object at path in the body
// (POST /api/v1/push's items, and a transaction's push operations):
// queue, partition, payload, transactionId and traceId (a UUID, kept with
// the record and answered by pops; the 2.x client sends only UUIDs, so
// another string is 400). Other members are ignored.
func decodePushItem(o object, path string) (PushItem, error) {
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

// newMessageIDs gives every item a UUIDv7 message id, and the items that
// sent no transactionId that id's text as theirs.
func newMessageIDs(items []PushItem) error {
	for i := range items {
		if err := newMessageID(&items[i]); err != nil {
			return err
		}
	}
	return nil
}

// newMessageID gives it a UUIDv7 message id, and when it sent no
// transactionId that id's text as its.
func newMessageID(it *PushItem) error {
	id, err := uuid.NewV7()
	if err != nil {
		return fmt.Errorf("httpd: message id: %w", err)
	}
	it.MessageID = id
	if !it.Dedup {
		it.TransactionID = id.String()
	}
	return nil
}
