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
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		q, err := queryOf(r)
		if err != nil {
			return err
		}
		limit, _, err := q.integer("limit", contract.ListLimit, DefaultDLQLimit)
		if err != nil {
			return err
		}
		queue, err := q.name("queue", contract.Queue)
		if err != nil {
			return err
		}
		group, err := q.name("consumerGroup", contract.ConsumerGroup)
		if err != nil {
			return err
		}
		dq := DLQQuery{Queue: queue, Group: group, Limit: int(limit)}
		if dq.Partition, err = q.name("partition", contract.Partition); err != nil {
			return err
		}
		offset, _, err := q.integer("offset", contract.MessagesOffset, 0)
		if err != nil {
			return err
		}
		dq.Offset = int(offset)
		if dq.From, dq.To, err = q.stampRange(); err != nil {
			return err
		}
		got, total, err := s.a.DLQ(r.Context(), tenantOf(r), dq)
		if err != nil {
			return err
		}
		b := append([]byte(nil), `{"messages":[`...)
		for i := range got {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendDeadLetter(b, &got[i])
		}
		b = append(b, ']', ',')
		b = appendKey(b, "total")
		b = appendInt(b, int64(total))
		writeRaw(w, http.StatusOK, append(b, '}', '\n'))
		return nil
	})
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
	b = appendKey(b, "offset")
	b = appendInt(b, d.Offset)
	b = append(b, ',')
	b = appendField(b, "transactionId", d.TransactionID)
	b = appendField(b, "messageId", uuid.UUID(d.MessageID).String())
	b = appendKey(b, "data")
	b = appendRaw(b, d.Data)
	b = append(b, ',')
	b = appendKey(b, "createdAt")
	b = appendStamp(b, d.CreatedAt)
	b = append(b, ',')
	b = appendKey(b, "failedAt")
	b = appendStamp(b, d.FailedAt)
	b = append(b, ',')
	b = appendKey(b, "attempts")
	b = appendInt(b, int64(d.Attempts))
	b = append(b, ',')
	for i, k := range []string{"error", "errorMessage"} { // errorMessage: what the official client reads
		if i > 0 {
			b = append(b, ',')
		}
		b = appendKey(b, k)
		if d.Error == "" {
			b = append(b, "null"...)
		} else {
			b = appendString(b, d.Error)
		}
	}
	return append(b, '}')
}

// replayDLQ is POST /api/v1/dlq/:id/replay with an optional body
// {"queue","partition"}: 200 with the verdict; 404 gone when the letter
// is not in the DLQ (any more).
func (s *server) replayDLQ() http.Handler {
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		id, err := pathParam(r, "id", contract.ID)
		if err != nil {
			return err
		}
		body, err := readBody(r, s.maxBody)
		if err != nil {
			return err
		}
		queue, partition, err := decodeReplay(body)
		if err != nil {
			return err
		}
		got, err := s.a.ReplayDLQ(r.Context(), tenantOf(r), id, queue, partition)
		if errors.Is(err, ErrGone) {
			return &Error{Status: http.StatusNotFound, Code: CodeGone, Message: fmt.Sprintf("dead letter %s is gone", clipped(id))}
		}
		if err != nil {
			return err
		}
		a := replayAnswer{ID: got.ID, Verdict: got.Verdict, Queue: got.Queue, Partition: got.Partition}
		if a.ID == "" {
			a.ID = id
		}
		writeJSON(w, http.StatusOK, a)
		return nil
	})
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
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		q, err := queryOf(r)
		if err != nil {
			return err
		}
		queue, err := q.name("queue", contract.Queue)
		if err != nil {
			return err
		}
		if queue == "" {
			return badRequest("queue is required")
		}
		group, err := q.name("consumerGroup", contract.ConsumerGroup)
		if err != nil {
			return err
		}
		n, err := s.a.PurgeDLQ(r.Context(), tenantOf(r), queue, group)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, purgeAnswer{Deleted: n, Queue: queue})
		return nil
	})
}
