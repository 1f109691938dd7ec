package httpd

import (
	"net/http"

	"github.com/queen-mq/queen-go/httpd/wire"
)

// txnRequest reads a transaction's body, JSON or binary (wire.TxnMagic),
// into its request with every push's message id; counts says the binary
// body asked for the counted answer.
//
// A binary transaction is its head, the JSON body without the pushes
// (read as a JSON transaction body is; empty: none), then its groups of
// framed messages. Each message is an operation of its own after the
// head's: its index is the head's operation count plus its place among
// the messages, so the answer lists the head's operations first and the
// messages after them, in the order written, as the client expects.
func (s *server) txnRequest(r *http.Request) (req TxnRequest, counts bool, err error) {
	body, err := readBody(r, s.maxBody)
	if err != nil {
		return req, false, err
	}
	if !isBinary(r, body, wire.TxnMagic) {
		if err := parseJSON(body); err != nil {
			return req, false, err
		}
		if req, err = decodeTxn(body, s.horizon); err != nil {
			return req, false, err
		}
		return req, false, mintTxnIDs(&req)
	}
	t, err := s.wire.Transaction(body)
	if err != nil {
		return req, false, s.wireError(err)
	}
	ops := 0
	if len(t.Head) > 0 {
		if err := parseJSON(t.Head); err != nil {
			return req, false, err
		}
		if req, ops, err = decodeTxnHead(t.Head, s.horizon); err != nil {
			return req, false, err
		}
		if err := mintTxnIDs(&req); err != nil {
			return req, false, err
		}
	}
	var items []PushItem
	if len(t.Groups) > 0 { // a head of acks alone is a transaction too
		if items, err = groupItems(t.Groups, true); err != nil {
			return req, false, err
		}
	}
	for k, it := range items {
		req.Pushes = append(req.Pushes, TxnPush{OpIndex: ops + k, Item: it})
	}
	return req, t.Counts, finishTxn(&req)
}

// mintTxnIDs gives every push of req a message id (newMessageID).
func mintTxnIDs(req *TxnRequest) error {
	for i := range req.Pushes {
		if err := newMessageID(&req.Pushes[i].Item); err != nil {
			return err
		}
	}
	return nil
}
