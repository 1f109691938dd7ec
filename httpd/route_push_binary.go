package httpd

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/http"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/httpd/wire"
)

// isBinary says whether a body is the binary one of magic: it starts
// with it (a JSON body cannot), or the request says its Content-Type is
// the binary push's. A body of that type without the magic is refused by
// the binary decoder, naming what it lacks.
func isBinary(r *http.Request, body []byte, magic string) bool {
	if bytes.HasPrefix(body, []byte(magic)) {
		return true
	}
	t, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return t == wire.PushContentType
}

// wireError maps a wire decoding error: ErrTooLarge is 413, an *Error
// 400 bad_body naming the place.
func (s *server) wireError(err error) error {
	var we *wire.Error
	switch {
	case errors.Is(err, wire.ErrTooLarge):
		return tooLarge(-1, s.maxBody)
	case errors.As(err, &we):
		return badBody("%s", we.Error())
	}
	return err
}

// binaryPushItems decodes a binary push body into its items, checked as
// a JSON push's are: names by the contract, each payload one JSON
// document. A plain item without a transaction id gets a minted message
// id and that id's text (Dedup false); a framed message keeps the id the
// client minted, and its transaction id (the id's text when it had none
// of its own) deduplicates it, so a retry of the same bytes is answered
// as a duplicate.
func (s *server) binaryPushItems(body []byte) (wire.Push, []PushItem, error) {
	p, err := s.wire.Push(body)
	if err != nil {
		return p, nil, s.wireError(err)
	}
	items, err := groupItems(p.Groups, p.Framed)
	return p, items, err
}

// groupItems turns decoded groups into push items (see binaryPushItems).
func groupItems(groups []wire.Group, framed bool) ([]PushItem, error) {
	n := 0
	for _, g := range groups {
		n += len(g.Messages)
	}
	if n == 0 {
		return nil, badRequest("the binary body has no messages")
	}
	items := make([]PushItem, 0, n)
	for i, g := range groups {
		at := fmt.Sprintf("groups[%d]", i)
		if g.Queue == "" {
			return nil, badRequest("%s.queue is required", at)
		}
		if err := contractError(contract.Queue.Check(at+".queue", g.Queue)); err != nil {
			return nil, err
		}
		if g.Partition == "" {
			g.Partition = DefaultPartition
		}
		if err := contractError(contract.Partition.Check(at+".partition", g.Partition)); err != nil {
			return nil, err
		}
		for j, m := range g.Messages {
			mat := fmt.Sprintf("%s.messages[%d]", at, j)
			it := PushItem{Queue: g.Queue, Partition: g.Partition, TransactionID: m.TransactionID, Dedup: m.TransactionID != "", Payload: m.Payload}
			if it.Dedup {
				if err := contractError(contract.TransactionID.Check(mat+".transactionId", it.TransactionID)); err != nil {
					return nil, err
				}
			}
			if err := checkPayload(mat+".payload", m.Payload); err != nil {
				return nil, err
			}
			if framed {
				it.MessageID = m.ID
				if !it.Dedup {
					it.TransactionID = uuid.UUID(m.ID).String()
				}
				it.Dedup = true // the client minted the id: a retry sends it again
			} else if err := newMessageID(&it); err != nil {
				return nil, err
			}
			items = append(items, it)
		}
	}
	return items, nil
}

// checkPayload requires p to be one JSON document of valid UTF-8, as
// parseJSON requires of a JSON body, naming path in the refusal.
func checkPayload(path string, p []byte) error {
	if len(bytes.TrimSpace(p)) == 0 {
		return badBody("%s is empty: a payload is one JSON document", path)
	}
	// As deep as a JSON push's payload may be: the body's object, items[]
	// and the item take three of the body's levels.
	err := contract.CheckJSON(p, contract.MaxJSONDepth-3)
	var je *contract.JSONError
	if !errors.As(err, &je) {
		return err
	}
	switch je.Problem {
	case contract.JSONInvalidUTF8:
		return refusal(path + ": " + je.Error())
	case contract.JSONTooDeep:
		return badBody("%s is too deep: %s", path, je.Error())
	}
	return badBody("%s is not JSON: %s", path, je.Error())
}

// pushCounts is the answer of a push that asked for the counts only
// (flag 2): 201 {"count","queued","duplicate","error"}.
type pushCounts struct {
	Count     int `json:"count"`
	Queued    int `json:"queued"`
	Duplicate int `json:"duplicate"`
	Error     int `json:"error"`
}

// countPush counts a push's results, and its messages in tenant's metrics (of
// every push: JSON or binary, counted answer or not).
func (s *server) countPush(tenant string, results []PushResult) pushCounts {
	c := pushCounts{Count: len(results)}
	for _, res := range results {
		switch {
		case res.Error != "":
			c.Error++
		case res.Duplicate:
			c.Duplicate++
		default:
			c.Queued++
		}
	}
	s.m.count(tenant, msgDuplicate, c.Duplicate)
	s.m.count(tenant, msgPushed, c.Queued)
	return c
}
