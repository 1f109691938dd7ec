package httpd

import (
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/contract"
)

// The statuses of a message for queue mode (MessagesQuery.Status and
// MessageInfo.Status).
const (
	MessagePending    = "pending"    // not yet delivered
	MessageProcessing = "processing" // under a lease
	MessageCompleted  = "completed"  // settled
	MessageDLQ        = "dlq"        // in the dead-letter queue
)

// messages is GET /api/v1/messages: a page of the records of a queue, or
// of the queues of a namespace or task (one of the three is required),
// filtered by partition, status and a time range [from, to).
func (s *server) messages() http.Handler {
	return route(http.StatusOK, queryFor(decodeMessages), func(r *http.Request, mq MessagesQuery) (rawJSON, error) {
		got, err := s.a.Messages(r.Context(), tenantOf(r), mq)
		if err != nil {
			return nil, err
		}
		b := appendEach(append([]byte(nil), `{"messages":[`...), got, appendMessageInfo)
		b = append(b, `],"limit":`...)
		b = appendInt(b, int64(mq.Limit))
		b = append(b, `,"offset":`...)
		b = appendInt(b, int64(mq.Offset))
		return append(b, '}', '\n'), nil
	})
}

// decodeMessages checks and defaults the query of GET /api/v1/messages.
// Every refusal is 400 bad_request naming the parameter and its value.
func decodeMessages(q query) (MessagesQuery, error) {
	mq := MessagesQuery{Status: q.get("status")}
	names := []struct {
		k string
		n *contract.Name
		p *string
	}{{"queue", contract.Queue, &mq.Queue}, {"partition", contract.Partition, &mq.Partition},
		{"namespace", contract.QueueNamespace, &mq.Namespace}, {"task", contract.QueueTask, &mq.Task}}
	for _, f := range names {
		v, err := q.name(f.k, f.n)
		if err != nil {
			return mq, err
		}
		*f.p = v
	}
	if mq.Queue == "" && mq.Namespace == "" && mq.Task == "" {
		return mq, badRequest("queue, namespace or task is required")
	}
	switch mq.Status {
	case "", MessagePending, MessageProcessing, MessageCompleted, MessageDLQ:
	default:
		return mq, badRequest("status %q must be pending, processing, completed or dlq", mq.Status)
	}
	p := params{q: q}
	mq.Limit = int(p.integer("limit", contract.ListLimit, DefaultMessagesLimit))
	mq.Offset = int(p.integer("offset", contract.MessagesOffset, 0))
	mq.From, mq.To = p.stampRange()
	return mq, p.err
}

// isoRange reads from and to as ISO-8601 times (iso), in µs; ok says
// each was given. from after to is 400.
func (q query) isoRange() (from int64, fromOK bool, to int64, toOK bool, err error) {
	if from, fromOK, err = q.iso("from"); err != nil {
		return
	}
	if to, toOK, err = q.iso("to"); err != nil {
		return
	}
	if fromOK && toOK && from > to {
		err = badRequest("from %q is after to %q", q.get("from"), q.get("to"))
	}
	return
}

// stampRange reads from and to (isoRange) as a range [from, to) of stamps
// where 0 is an open end: from at or before the epoch is open anyway, and
// to at or before it keeps the range (nearly) empty as 1 µs does.
func (q query) stampRange() (from, to int64, err error) {
	f, fromOK, t, toOK, err := q.isoRange()
	if err != nil {
		return 0, 0, err
	}
	if fromOK {
		from = max(f, 0)
	}
	if toOK {
		to = max(t, 1)
	}
	return from, to, nil
}

// iso reads parameter k as an ISO-8601 time (as parseISO reads it), in
// µs; ok is false when it is absent.
func (q query) iso(k string) (us int64, ok bool, err error) {
	v := q.get(k)
	if v == "" {
		return 0, false, nil
	}
	if us, err = parseISO(v); err != nil {
		return 0, false, badRequest("%s %q must be an ISO-8601 time", k, v)
	}
	return us, true, nil
}

// appendMessageInfo renders one message; its payload is written as the
// broker returns it (null when empty).
func appendMessageInfo(b []byte, m *MessageInfo) []byte {
	b = append(b, '{')
	b = appendField(b, "id", uuid.UUID(m.ID).String())
	b = appendField(b, "transactionId", m.TransactionID)
	b = appendField(b, "queue", m.Queue)
	b = appendField(b, "partition", m.Partition)
	b = appendField(b, "partitionId", m.PartitionID)
	b = appendIntField(b, "offset", m.Offset)
	b = appendRawField(b, "data", m.Data)
	b = appendStampField(b, "createdAt", m.CreatedAt)
	b = appendField(b, "status", m.Status)
	return closeObject(b)
}

// message is GET /api/v1/messages/:partitionId/*transactionId (the 2.x
// client's admin.get_message; API.md names only the list): the message as
// GET /api/v1/messages lists it, plus "consumerGroups" (its status for
// each group subscribed to its queue: [{"consumerGroup","status"}]) and
// "deadLetters" (the ids of its dead letters, for POST
// /api/v1/dlq/:id/replay). The transaction id is the rest of the path,
// "/" included: the client puts it there unescaped. A message is found by
// its queue's dedup index: one older than its queue's dedupWindowSeconds,
// or pushed without a transactionId, is not. 404 not_found when the ids
// name no message; 400 when partitionId is not decimal digits.
func (s *server) message() http.Handler {
	return route(http.StatusOK, messageIDs, func(r *http.Request, id messageID) (rawJSON, error) {
		got, ok, err := s.a.Message(r.Context(), tenantOf(r), id.pid, id.txid)
		if err != nil || !ok {
			return nil, orMissing(err, messageNotFound(id.txid, id.pid, "older than its queue's dedup window, or never pushed there"))
		}
		b := appendMessageInfo(nil, &got.MessageInfo)
		b = append(b[:len(b)-1], `,"consumerGroups":[`...)
		b = appendEach(b, got.Groups, func(b []byte, g *GroupStatus) []byte {
			b = append(b, '{')
			b = appendField(b, "consumerGroup", g.Group)
			b = appendKey(b, "status")
			b = appendString(b, g.Status)
			return append(b, '}')
		})
		b = append(b, `],"deadLetters":[`...)
		b = appendEach(b, got.DeadLetters, appendStringOf)
		return append(b, ']', '}', '\n'), nil
	})
}

// retryAnswer is the answer of POST
// /api/v1/messages/:partitionId/*transactionId/retry.
type retryAnswer struct {
	Success bool           `json:"success"`
	Retried int            `json:"retried"`
	Results []replayAnswer `json:"results"`
}

// retryMessage is POST /api/v1/messages/:partitionId/*transactionId/retry
// (the 2.x client's admin.retry_message, which sends {}): the message is
// put back from every dead-letter queue it is in, each letter as POST
// /api/v1/dlq/:id/replay puts it (a copy pushed to its partition with
// transactionId dlq:<id>, the letter taken out). 200
// {"success":true,"retried":n,"results":[{id,verdict,queue,partition}]};
// 404 not_found when the ids name no message, or a message in no
// dead-letter queue (only a dead letter can be retried: a failed message
// still in its retries comes back by itself). The body is ignored.
func (s *server) retryMessage() http.Handler {
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		id, err := messagePath(r)
		if err != nil {
			return err
		}
		txid, ok := strings.CutSuffix(id.txid, "/retry")
		if !ok {
			noRoute(w, r)
			return nil
		}
		if err := checkTxID(txid); err != nil {
			return err
		}
		got, found, err := s.a.RetryMessage(r.Context(), tenantOf(r), id.pid, txid)
		switch {
		case err != nil:
			return err
		case !found:
			return messageNotFound(txid, id.pid, "older than its queue's dedup window, or never pushed there")
		case len(got) == 0:
			return notFound("message %q of partition %s is in no dead-letter queue: only a dead letter can be retried", txid, id.pid)
		}
		a := retryAnswer{Success: true, Retried: len(got), Results: make([]replayAnswer, len(got))}
		for i, g := range got {
			a.Results[i] = newReplayAnswer(g)
		}
		writeJSON(w, http.StatusOK, a)
		return nil
	})
}

// messageID is the ids of a message route's path: the partition id and
// the transaction id.
type messageID struct{ pid, txid string }

// messagePath reads the partition id and the transaction id (the rest of
// the path, unescaped) of the message routes.
func messagePath(r *http.Request) (messageID, error) {
	pid, err := pathParam(r, "partitionId", contract.ID)
	if err != nil {
		return messageID{}, err
	}
	if pid == "" || strings.Trim(pid, "0123456789") != "" {
		return messageID{}, badRequest("partitionId %q must be a string of decimal digits", pid)
	}
	txid, ok := urlParam(r, "*")
	if !ok {
		return messageID{}, badRequest("the transactionId %q is not a valid path", txid)
	}
	return messageID{pid, txid}, nil
}

// messageIDs reads the ids of GET and DELETE
// /api/v1/messages/:partitionId/*transactionId, both checked.
func messageIDs(r *http.Request) (messageID, error) {
	id, err := messagePath(r)
	if err == nil {
		err = checkTxID(id.txid)
	}
	return id, err
}

// checkTxID checks a transaction id of a message route's path.
func checkTxID(txid string) error {
	if txid == "" {
		return badRequest("the transactionId is empty")
	}
	return contractError(contract.TransactionID.Check("transactionId", txid))
}

// deleteMessageAnswer is the answer of DELETE
// /api/v1/messages/:partitionId/*transactionId.
type deleteMessageAnswer struct {
	Deleted       bool   `json:"deleted"`
	TransactionID string `json:"transactionId"`
	PartitionID   string `json:"partitionId"`
	Queue         string `json:"queue"`
	Partition     string `json:"partition"`
	Offset        int64  `json:"offset"`
}

// deleteMessage is DELETE /api/v1/messages/:partitionId/*transactionId
// (the 2.x client's admin.delete_message): the message is deleted for
// every consumer group, now and to come: none is delivered it again, one
// that holds it under a lease has it settled, and GET of it answers 404.
// The record stays in the queue log for offset reads (POST /fetch) and the
// S3 sink until retention trims it, and its dead letters stay in the DLQ.
// 200 {"deleted":true,"transactionId","partitionId","queue","partition",
// "offset"}; 404 not_found when the ids name no message (or one deleted
// already).
func (s *server) deleteMessage() http.Handler {
	return route(http.StatusOK, messageIDs, func(r *http.Request, id messageID) (any, error) {
		got, ok, err := s.a.DeleteMessage(r.Context(), tenantOf(r), id.pid, id.txid)
		if err != nil || !ok {
			return nil, orMissing(err, messageNotFound(id.txid, id.pid, "deleted already, older than its queue's dedup window, or never pushed there"))
		}
		return deleteMessageAnswer{Deleted: true, TransactionID: id.txid, PartitionID: id.pid, Queue: got.Queue,
			Partition: got.Partition, Offset: got.Offset}, nil
	})
}
