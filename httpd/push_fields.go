package httpd

import (
	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/contract"
)

// pushFields are the raw JSON values of the members of a push item that
// httpd reads, each the last one of its name; nil when absent. Both
// readers of items fill it: the scanner of push bodies (push_scan.go),
// with slices of the body, and decodePushItem, from a decoded object.
type pushFields struct {
	queue, partition, payload, txn, trace []byte
}

// item checks f as decodePushItem says, in this order: queue, partition,
// payload, transactionId, traceId; the first refusal wins. The item is
// itemPath(base, index) in messages, a path made only for a refusal.
// Payload is f.payload itself.
//
// seen, when not nil, holds queues and partitions of the items checked
// before: a name of the same text is that string, not a new one.
func (f *pushFields) item(base string, index int, seen *seenNames) (PushItem, error) {
	var pq, pp *names8
	if seen != nil {
		pq, pp = &seen.queues, &seen.partitions
	}
	q, err := f.name(f.queue, base, index, ".queue", contract.Queue, pq)
	if err != nil {
		return PushItem{}, err
	}
	if q == "" {
		return PushItem{}, badRequest("%s.queue is required", itemPath(base, index))
	}
	p, err := f.name(f.partition, base, index, ".partition", contract.Partition, pp)
	if err != nil {
		return PushItem{}, err
	}
	if p == "" {
		p = DefaultPartition
	}
	if f.payload == nil {
		return PushItem{}, badRequest("%s.payload is required", itemPath(base, index))
	}
	txn, err := f.name(f.txn, base, index, ".transactionId", contract.TransactionID, nil)
	if err != nil {
		return PushItem{}, err
	}
	it := PushItem{Queue: q, Partition: p, TransactionID: txn, Dedup: txn != "", Payload: f.payload}
	if isNull(f.trace) {
		return it, nil
	}
	if firstByte(f.trace) != '"' {
		return PushItem{}, badRequest("%s.traceId must be a string", itemPath(base, index))
	}
	if t := jsonText(f.trace); len(t) > 0 {
		id, err := uuid.ParseBytes(t)
		if err != nil {
			return PushItem{}, badRequest("%s.traceId %q must be a UUID", itemPath(base, index), clipped(t))
		}
		it.TraceID = id
	}
	return it, nil
}

// name reads raw, the value of the member field (".queue") of the item,
// as a name of kind n, as object.name does: absent, null and "" give "";
// another JSON type is 400 "must be a string"; a string that n refuses is
// the contract's answer. A name seen holds is its string there, and one
// n passes is added to seen.
func (f *pushFields) name(raw []byte, base string, index int, field string, n *contract.Name, seen *names8) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	if firstByte(raw) != '"' {
		return "", badRequest("%s must be a string", itemPath(base, index)+field)
	}
	t := jsonText(raw)
	if len(t) == 0 {
		return "", nil
	}
	if s, ok := seen.find(t); ok {
		return s, nil
	}
	s := string(t)
	if n.Check(field[1:], s) != nil {
		return "", contractError(n.Check(itemPath(base, index)+field, s))
	}
	seen.add(s)
	return s, nil
}

// seenNames are the queues and partitions a push body named so far, the
// first eight of each: a batch names few, and its items share their
// strings.
type seenNames struct{ queues, partitions names8 }

// names8 holds up to eight names, each checked already.
type names8 struct {
	n     int
	names [8]string
}

// find is the name whose text is t; a nil set holds none.
func (s *names8) find(t []byte) (string, bool) {
	if s == nil {
		return "", false
	}
	for _, name := range s.names[:s.n] {
		if string(t) == name {
			return name, true
		}
	}
	return "", false
}

// add keeps name while there is room; a nil set keeps none.
func (s *names8) add(name string) {
	if s != nil && s.n < len(s.names) {
		s.names[s.n] = name
		s.n++
	}
}
