package httpd

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/contract"
)

// The limits of GET /api/v1/dlq.
const (
	DefaultDLQLimit = 100
	MaxDLQLimit     = 1000
)

// replayAnswer is the answer of a replay.
type replayAnswer struct {
	ID        string `json:"id"`
	Verdict   string `json:"verdict"`
	Queue     string `json:"queue"`
	Partition string `json:"partition"`
}

// purgeAnswer is the answer of DELETE /api/v1/dlq.
type purgeAnswer struct {
	Deleted int    `json:"deleted"`
	Queue   string `json:"queue"`
}

// dlq is GET /api/v1/dlq?queue=&consumerGroup=&partition=&from=&to=
// &offset=&limit=: the dead letters of a queue, group and partition
// (absent or empty: all) filed in [from, to) (ISO; from after to is 400),
// the page after offset (0..2^53-1) of up to limit (1..1000, default 100),
// and "total", how many the filters select before paging: the 2.x
// client's DLQResponse {messages, total}.
func (s *server) dlq() http.Handler {
	return route(http.StatusOK, queryFor(decodeDLQ), func(r *http.Request, dq DLQQuery) (rawJSON, error) {
		got, total, err := s.a.DLQ(r.Context(), tenantOf(r), dq)
		if err != nil {
			return nil, err
		}
		b := appendEach(append([]byte(nil), `{"messages":[`...), got, appendDeadLetter)
		b = append(b, `],"total":`...)
		b = appendInt(b, int64(total))
		return append(b, '}', '\n'), nil
	})
}

// decodeDLQ checks and defaults the query of GET /api/v1/dlq.
func decodeDLQ(q query) (DLQQuery, error) {
	p := params{q: q}
	dq := DLQQuery{Limit: int(p.integer("limit", contract.ListLimit, DefaultDLQLimit))}
	dq.Queue = p.name("queue", contract.Queue)
	dq.Group = p.name("consumerGroup", contract.ConsumerGroup)
	dq.Partition = p.name("partition", contract.Partition)
	dq.Offset = int(p.integer("offset", contract.MessagesOffset, 0))
	dq.From, dq.To = p.stampRange()
	return dq, p.err
}

// appendDeadLetter renders one dead letter; its payload is written as the
// broker returns it (null when empty), and error (and errorMessage, the
// same, the name the official client reads) is null when "".
func appendDeadLetter(b []byte, d *DeadLetter) []byte {
	b = append(b, '{')
	b = appendField(b, "id", d.ID)
	b = appendField(b, "queue", d.Queue)
	b = appendField(b, "consumerGroup", d.ConsumerGroup)
	b = appendField(b, "partition", d.Partition)
	b = appendIntField(b, "offset", d.Offset)
	b = appendField(b, "transactionId", d.TransactionID)
	b = appendField(b, "messageId", uuid.UUID(d.MessageID).String())
	b = appendRawField(b, "data", d.Data)
	b = appendStampField(b, "createdAt", d.CreatedAt)
	b = appendStampField(b, "failedAt", d.FailedAt)
	b = appendIntField(b, "attempts", int64(d.Attempts))
	b = appendFieldOrNull(b, "error", d.Error)
	b = appendFieldOrNull(b, "errorMessage", d.Error) // what the official client reads
	return closeObject(b)
}

// replayDLQ is POST /api/v1/dlq/:id/replay with an optional body
// {"queue","partition"}: 200 with the verdict; 404 gone when the letter
// is not in the DLQ (any more).
func (s *server) replayDLQ() http.Handler {
	return route(http.StatusOK, pathOf("id", contract.ID), func(r *http.Request, id string) (any, error) {
		body, err := readBody(r, s.maxBody)
		if err != nil {
			return nil, err
		}
		queue, partition, err := decodeReplay(body)
		if err != nil {
			return nil, err
		}
		got, err := s.a.ReplayDLQ(r.Context(), tenantOf(r), id, queue, partition)
		if errors.Is(err, ErrGone) {
			return nil, &Error{Status: http.StatusNotFound, Code: CodeGone, Message: fmt.Sprintf("dead letter %s is gone", clipped(id))}
		}
		a := newReplayAnswer(got)
		if a.ID == "" {
			a.ID = id
		}
		return a, err
	})
}

func newReplayAnswer(got ReplayAnswer) replayAnswer {
	return replayAnswer{ID: got.ID, Verdict: got.Verdict, Queue: got.Queue, Partition: got.Partition}
}

// decodeReplay reads a replay's optional body: empty (or white space, or
// null) for none, else a JSON object whose queue and partition are
// strings ("" and null read as absent). A partition needs a queue.
func decodeReplay(body []byte) (queue, partition string, err error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return "", "", nil
	}
	if err := parseJSON(body); err != nil {
		return "", "", err
	}
	if isNull(body) {
		return "", "", nil
	}
	o, err := asObject(body, "the body")
	if err != nil {
		return "", "", err
	}
	if queue, err = o.name("queue", "queue", contract.Queue); err != nil {
		return "", "", err
	}
	if partition, err = o.name("partition", "partition", contract.Partition); err != nil {
		return "", "", err
	}
	if partition != "" && queue == "" {
		return "", "", badRequest("partition %q needs a queue", partition)
	}
	return queue, partition, nil
}

// purgeDLQ is DELETE /api/v1/dlq?queue=&consumerGroup=: the queue's dead
// letters (of the group, or all when absent) are deleted; queue is
// required. A body is ignored.
func (s *server) purgeDLQ() http.Handler {
	read := queryFor(func(q query) (DLQQuery, error) {
		p := params{q: q}
		dq := DLQQuery{Queue: p.name("queue", contract.Queue)}
		if p.err == nil && dq.Queue == "" {
			return dq, badRequest("queue is required")
		}
		dq.Group = p.name("consumerGroup", contract.ConsumerGroup)
		return dq, p.err
	})
	return route(http.StatusOK, read, func(r *http.Request, dq DLQQuery) (any, error) {
		n, err := s.a.PurgeDLQ(r.Context(), tenantOf(r), dq.Queue, dq.Group)
		return purgeAnswer{Deleted: n, Queue: dq.Queue}, err
	})
}
