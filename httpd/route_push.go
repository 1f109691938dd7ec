package httpd

import (
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/httpd/wire"
)

// DefaultPartition is the partition of an item or entry that names none.
const DefaultPartition = "Default"

// MaxTransactionIDBytes caps a push item's transactionId
// (contract.TransactionID's MaxBytes).
const MaxTransactionIDBytes = 65535

// push is POST /api/v1/push (API.md §1): 201 with one answer per item,
// in request order. The body is JSON, or the binary push (wire.PushMagic,
// route_push_binary.go), which may ask for the counts only.
func (s *server) push() http.Handler {
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		items, counts, err := s.pushItems(r)
		if err != nil {
			return err
		}
		stampProducer(r, items)
		results, err := s.b.Push(r.Context(), tenantOf(r), items)
		if err != nil {
			return err
		}
		if len(results) != len(items) {
			return fmt.Errorf("httpd: broker answered %d push results for %d items", len(results), len(items))
		}
		if c := s.countPush(tenantOf(r), results); counts {
			writeJSON(w, http.StatusCreated, c)
			return nil
		}
		writeRaw(w, http.StatusCreated, appendPushAnswers(make([]byte, 0, pushAnswerBytes*len(items)), items, results))
		return nil
	})
}

// stampProducer puts the request's subject on every item
// (PushItem.ProducerSub): with auth on, the credential's sub; else "".
func stampProducer(r *http.Request, items []PushItem) {
	sub := producerSub(r)
	for i := range items {
		items[i].ProducerSub = sub
	}
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
// as sent (one buffer holds the copies of a body's payloads). It reads
// the body in one pass (push_scan.go).
func decodePush(body []byte) ([]PushItem, error) { return scanPush(body) }

// decodePushItem reads one push item, the object at path in the body
// (POST /api/v1/push's items, and a transaction's push operations):
// queue, partition, payload, transactionId and traceId (a UUID, kept with
// the record and answered by pops; the 2.x client sends only UUIDs, so
// another string is 400). Other members are ignored.
func decodePushItem(o object, path string) (PushItem, error) {
	f := pushFields{queue: o["queue"], partition: o["partition"], payload: o["payload"],
		txn: o["transactionId"], trace: o["traceId"]}
	return f.item(path, -1, nil)
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
