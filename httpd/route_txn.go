package httpd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/contract"
)

// The types of a transaction's operations and results.
const (
	txnPush     = "push"
	txnAck      = "ack"
	txnKV       = "kv"
	txnTimer    = "timer"
	txnPosition = "position"
)

// transaction is POST /api/v1/transaction (API.md §3): 200 with the
// committed results, or with the reason of the rollback.
func (s *server) transaction() http.Handler {
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		req, counts, err := s.txnRequest(r)
		if err != nil {
			return err
		}
		if err := txnAllowed(r, &req); err != nil {
			return err
		}
		sub := producerSub(r)
		for i := range req.Pushes {
			req.Pushes[i].Item.ProducerSub = sub
		}
		ans, err := s.t.Transaction(r.Context(), tenantOf(r), req)
		if err != nil {
			return err
		}
		out, err := appendTxn(nil, &req, &ans, counts)
		if err != nil {
			return err
		}
		if ans.Success {
			s.countTxn(tenantOf(r), &req, &ans)
		}
		writeRaw(w, http.StatusOK, out)
		return nil
	})
}

// txnAllowed checks each part of a transaction against the request's
// principal (none: auth is off): the route's class (transaction) reaches
// its pushes; its acks and positions are a consumer's (consume), its KV
// ops shared, its timers timers. A part the credential does not reach is
// 403 forbidden naming it, so that a transaction never does what its
// credential could not do by the route of its own.
func txnAllowed(r *http.Request, req *TxnRequest) error {
	p := PrincipalOf(r)
	if p == nil {
		return nil
	}
	for _, part := range []struct {
		n    int
		what string
		c    Class
	}{{len(req.Acks), "acks", ClassConsume}, {len(req.Positions), "positions", ClassConsume},
		{len(req.KV), "kv", ClassShared}, {len(req.Timers), "timers", ClassTimers}} {
		if part.n == 0 {
			continue
		}
		if err := admit(p, part.c, fmt.Sprintf("a transaction's %s (class %s)", part.what, part.c)); err != nil {
			return err
		}
	}
	return nil
}

// countTxn counts a commit's pushes and acks in tenant's
// queen_messages_total (appendTxn checked that its results match the
// request).
func (s *server) countTxn(tenant string, req *TxnRequest, a *TxnAnswer) {
	for i, sl := range txnSlots(req) {
		switch {
		case sl.typ == txnPush && a.Results[i].Duplicate:
			s.m.count(tenant, msgDuplicate, 1)
		case sl.typ == txnPush:
			s.m.count(tenant, msgPushed, 1)
		case sl.typ == txnAck:
			s.m.count(tenant, ackEvent(sl.ack.Item.Status), 1)
		}
	}
}

// decodeTxn checks a transaction body, which must be valid JSON, and
// returns the request with its defaults and each ack's lease resolved;
// the pushes have no message ids yet. Unknown members are ignored.
// Refusals are *Error: 400 bad_request naming the field, except that
// the KV ops' own fields are refused in the KV shape as POST /api/v1/kv
// refuses them, and kv[] over MaxTxnKVOps ops or MaxTxnKVKeys keys is
// 413 kv_too_many_ops or kv_too_many_keys (KV shape).
func decodeTxn(body []byte, horizon time.Duration) (TxnRequest, error) {
	req, _, err := decodeTxnHead(body, horizon)
	if err != nil {
		return req, err
	}
	return req, finishTxn(&req)
}

// decodeTxnHead reads a transaction body as decodeTxn does, without its
// final checks (finishTxn); ops is the length of its operations[].
func decodeTxnHead(body []byte, horizon time.Duration) (req TxnRequest, ops int, err error) {
	o, err := asObject(body, "the body")
	if err != nil {
		return req, 0, err
	}
	if raw := o["operations"]; !isNull(raw) {
		list, err := asArray(raw, "operations")
		if err != nil {
			return req, 0, err
		}
		for i, raw := range list {
			if err := decodeTxnOp(raw, i, &req); err != nil {
				return req, 0, err
			}
		}
		ops = len(list)
	}
	return req, ops, decodeTxnRiders(o, &req, horizon)
}

// decodeTxnRiders reads requiredLeases and the riders: kv, timers and
// positions.
func decodeTxnRiders(o object, req *TxnRequest, horizon time.Duration) (err error) {
	if req.RequiredLeases, err = decodeRequiredLeases(o["requiredLeases"]); err != nil {
		return err
	}
	if req.KV, err = decodeTxnKV(o["kv"]); err != nil {
		return err
	}
	if raw := o["timers"]; !isNull(raw) {
		if req.Timers, err = decodeTimerOps(raw, "timers", horizon); err != nil {
			return err
		}
		if len(req.Timers) == 0 {
			req.Timers = nil
		}
	}
	if raw := o["positions"]; !isNull(raw) {
		if req.Positions, err = decodePositions(raw); err != nil {
			return err
		}
	}
	return nil
}

// finishTxn refuses a transaction of no operation and resolves its acks'
// leases.
func finishTxn(req *TxnRequest) error {
	if len(req.Pushes) == 0 && len(req.Acks) == 0 && len(req.KV) == 0 && len(req.Timers) == 0 && len(req.Positions) == 0 {
		return badRequest("a transaction needs at least one operation")
	}
	resolveLeases(req)
	return nil
}

// decodeTxnOp reads operations[i] into req.
func decodeTxnOp(raw json.RawMessage, i int, req *TxnRequest) error {
	path := fmt.Sprintf("operations[%d]", i)
	o, err := asObject(raw, path)
	if err != nil {
		return err
	}
	typ, _, err := o.str("type", path+".type")
	if err != nil {
		return err
	}
	switch typ {
	case txnPush:
		return decodeTxnPush(o, path, i, req)
	case txnAck:
		it, err := decodeAckItem(o, path, QueueModeGroup)
		if err != nil {
			return err
		}
		req.Acks = append(req.Acks, TxnAck{OpIndex: i, Item: it})
		return nil
	case "":
		return badRequest("%s.type is required", path)
	}
	return badRequest("%s.type %q must be push or ack", path, typ)
}

// txnInline are the members of the inline form of a push operation.
var txnInline = []string{"queue", "partition", "payload", "transactionId"}

// decodeTxnPush reads a push operation: items[] (push items as POST
// /api/v1/push takes them, traceId included) or one inline item; with
// items[], an inline member that is not null is refused as ambiguous.
func decodeTxnPush(o object, path string, i int, req *TxnRequest) error {
	raw := o["items"]
	if isNull(raw) {
		it, err := decodePushItem(o, path)
		if err != nil {
			return err
		}
		req.Pushes = append(req.Pushes, TxnPush{OpIndex: i, Item: it})
		return nil
	}
	for _, k := range txnInline {
		if !isNull(o[k]) {
			return badRequest("%s has both items and an inline %s", path, k)
		}
	}
	list, err := asArray(raw, path+".items")
	if err != nil {
		return err
	}
	if len(list) == 0 {
		return badRequest("%s.items is empty", path)
	}
	for j, raw := range list {
		p := fmt.Sprintf("%s.items[%d]", path, j)
		o, err := asObject(raw, p)
		if err != nil {
			return err
		}
		it, err := decodePushItem(o, p)
		if err != nil {
			return err
		}
		req.Pushes = append(req.Pushes, TxnPush{OpIndex: i, Item: it})
	}
	return nil
}

// decodeRequiredLeases reads requiredLeases: an array of non-empty
// strings, kept as sent (nil when absent or empty).
func decodeRequiredLeases(raw json.RawMessage) ([]string, error) {
	list, err := optionalArray(raw, "requiredLeases")
	if err != nil || len(list) == 0 {
		return nil, err
	}
	out := make([]string, len(list))
	for i, raw := range list {
		path := fmt.Sprintf("requiredLeases[%d]", i)
		if firstByte(raw) != '"' || json.Unmarshal(raw, &out[i]) != nil {
			return nil, badRequest("%s must be a string", path)
		}
		if out[i] == "" {
			return nil, badRequest("%s is empty", path)
		}
		if err := contract.ID.Check(path, out[i]); err != nil {
			return nil, contractError(err)
		}
	}
	return out, nil
}

// decodeTxnKV reads kv[]: KV ops as POST /api/v1/kv takes them, minus
// getPrefix, within MaxTxnKVOps ops and MaxTxnKVKeys keys (an op's key
// and keys[] count). nil when absent or empty.
func decodeTxnKV(raw json.RawMessage) ([]KVOp, error) {
	list, err := optionalArray(raw, "kv")
	if err != nil || len(list) == 0 {
		return nil, err
	}
	if len(list) > MaxTxnKVOps {
		return nil, kvError(http.StatusRequestEntityTooLarge, ReasonKVTooManyOps,
			"kv has %d ops, at most %d", len(list), MaxTxnKVOps)
	}
	ops := make([]KVOp, len(list))
	keys := 0
	for i, raw := range list {
		path := fmt.Sprintf("kv[%d]", i)
		o, err := asObject(raw, path)
		if err != nil {
			return nil, err
		}
		if err := decodeKVOp(o, path, &ops[i]); err != nil {
			return nil, err
		}
		if ops[i].Op == "getPrefix" {
			return nil, badRequest("%s: getPrefix is not allowed in a transaction", path)
		}
		keys += len(ops[i].Keys)
		if ops[i].Key != "" {
			keys++
		}
	}
	if keys > MaxTxnKVKeys {
		return nil, kvError(http.StatusRequestEntityTooLarge, ReasonKVTooManyKeys,
			"kv names %d keys, at most %d", keys, MaxTxnKVKeys)
	}
	return ops, nil
}

// resolveLeases gives each ack without a leaseId the transaction's lease:
// the one distinct lease id named by requiredLeases and the other acks,
// or none ("": unfenced) when they name none or several.
func resolveLeases(req *TxnRequest) {
	lease, several := "", false
	note := func(id string) {
		switch {
		case id == "" || id == lease:
		case lease == "":
			lease = id
		default:
			several = true
		}
	}
	for _, id := range req.RequiredLeases {
		note(id)
	}
	for _, a := range req.Acks {
		note(a.Item.LeaseID)
	}
	if several {
		return
	}
	for i := range req.Acks {
		if req.Acks[i].Item.LeaseID == "" {
			req.Acks[i].Item.LeaseID = lease
		}
	}
}

// txnSlot is what one result of a committed transaction answers: its
// index in the one index space (operations, then kv), its type and the
// request's push, ack or kv op (kv: its position in kv[]).
type txnSlot struct {
	index int
	typ   string
	push  *TxnPush
	ack   *TxnAck
	kv    int
}

// txnSlots lists the results a commit of req answers, in order: one per
// pushed item and per ack, by operation, then one per kv op.
func txnSlots(req *TxnRequest) []txnSlot {
	out := make([]txnSlot, 0, len(req.Pushes)+len(req.Acks)+len(req.KV)+len(req.Timers)+len(req.Positions))
	p, a, ops := 0, 0, 0
	for p < len(req.Pushes) || a < len(req.Acks) {
		var s txnSlot
		if a == len(req.Acks) || (p < len(req.Pushes) && req.Pushes[p].OpIndex < req.Acks[a].OpIndex) {
			s = txnSlot{index: req.Pushes[p].OpIndex, typ: txnPush, push: &req.Pushes[p]}
			p++
		} else {
			s = txnSlot{index: req.Acks[a].OpIndex, typ: txnAck, ack: &req.Acks[a]}
			a++
		}
		ops = s.index + 1
		out = append(out, s)
	}
	for j := range req.KV {
		out = append(out, txnSlot{index: ops + j, typ: txnKV, kv: j})
	}
	for j := range req.Timers {
		out = append(out, txnSlot{index: ops + len(req.KV) + j, typ: txnTimer, kv: j})
	}
	for j := range req.Positions {
		out = append(out, txnSlot{index: ops + len(req.KV) + len(req.Timers) + j, typ: txnPosition, kv: j})
	}
	return out
}

// appendTxn renders the answer of a transaction. Errors are broker
// faults (a 500): an answer without a transactionId, a rollback without a
// reason, a commit whose results are not one per pushed item, ack and kv
// op in order, a kv result that is not a JSON object.
//
// A result's index, opIndex, transactionId and queueName are the
// request's (the broker answers in order; its Type is checked); its
// messageId is the broker's, else the one httpd minted.
//
// counts (the binary transaction's flag 2) leaves the pushes' and acks'
// results out and counts them after results: pushed (stored, not
// duplicates), duplicate and acked; the riders' results stay.
func appendTxn(b []byte, req *TxnRequest, a *TxnAnswer, counts bool) ([]byte, error) {
	if a.TransactionID == "" {
		return nil, errors.New("httpd: broker answered a transaction without a transactionId")
	}
	b = append(b, '{')
	b = appendField(b, "transactionId", a.TransactionID)
	if !a.Success {
		return appendTxnRollback(b, req, a)
	}
	slots := txnSlots(req)
	if len(a.Results) != len(slots) {
		return nil, fmt.Errorf("httpd: broker committed a transaction with %d results for %d pushed items, acks and kv ops",
			len(a.Results), len(slots))
	}
	b = append(b, `"success":true,"results":[`...)
	var pushed, dups, acked int
	first := true
	for i, s := range slots {
		res := &a.Results[i]
		if res.Type != s.typ {
			return nil, fmt.Errorf("httpd: transaction result %d is of type %q, want %q", i, res.Type, s.typ)
		}
		if counts && (s.typ == txnPush || s.typ == txnAck) {
			switch {
			case s.typ == txnAck:
				acked++
			case res.Duplicate:
				dups++
			default:
				pushed++
			}
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '{')
		b = appendKey(b, "index")
		b = appendInt(b, int64(s.index))
		b = append(b, ',')
		b = appendField(b, "type", s.typ)
		switch s.typ {
		case txnPush:
			id := res.MessageID
			if id == ([16]byte{}) {
				id = s.push.Item.MessageID
			}
			b = append(b, `"success":true,`...)
			b = appendField(b, "transactionId", s.push.Item.TransactionID)
			b = appendField(b, "messageId", uuid.UUID(id).String())
			b = appendKey(b, "queueName")
			b = appendString(b, s.push.Item.Queue)
			if res.Duplicate {
				b = append(b, `,"duplicate":true`...)
			}
		case txnAck:
			b = append(b, `"success":true,`...)
			b = appendField(b, "transactionId", s.ack.Item.TransactionID)
			b = append(b, `"error":null,"dlq":`...)
			b = strconv.AppendBool(b, res.DLQ)
		case txnKV:
			b = appendKey(b, "opIndex")
			b = appendInt(b, int64(s.kv))
			var err error
			if b, err = appendKVMembers(b, res.KV); err != nil {
				return nil, fmt.Errorf("httpd: transaction result %d (kv[%d]): %w", i, s.kv, err)
			}
		case txnTimer:
			if res.Timer == nil {
				return nil, fmt.Errorf("httpd: transaction result %d (timers[%d]) has no timer result", i, s.kv)
			}
			b = appendKey(b, "opIndex")
			b = appendInt(b, int64(s.kv))
			b = append(b, ',')
			t := appendTimerResult(nil, &req.Timers[s.kv], res.Timer)
			b = append(b, t[1:len(t)-1]...)
		case txnPosition:
			b = appendKey(b, "opIndex")
			b = appendInt(b, int64(s.kv))
			b = append(b, `,"success":true`...)
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if counts {
		b = fmt.Appendf(b, `,"pushed":%d,"duplicate":%d,"acked":%d`, pushed, dups, acked)
	}
	return append(b, '}', '\n'), nil
}

// appendTxnRollback renders the rest of a rollback's answer, with the
// failed kv op's fields when the broker gave them.
//
// failedIndex is the failed op's place in the flat list a commit would
// have answered: one result per pushed item and per ack, then kv[] (the
// official client finds a lock's guard there, and tells its own renew
// from another holder's).
func appendTxnRollback(b []byte, req *TxnRequest, a *TxnAnswer) ([]byte, error) {
	if a.Reason == "" {
		return nil, errors.New("httpd: broker rolled back a transaction without a reason")
	}
	b = append(b, `"success":false,`...)
	b = appendField(b, "reason", a.Reason)
	b = appendField(b, "error", a.Error)
	if f := a.KVFailure; f != nil {
		if len(f.Value) > 0 && !json.Valid(f.Value) {
			return nil, errors.New("httpd: the kv_precondition value of a transaction is not JSON")
		}
		b = append(b, `"ok":false,`...)
		b = appendKey(b, "failedIndex")
		b = appendInt(b, int64(len(req.Pushes)+len(req.Acks)+f.FailedIndex))
		b = append(b, ',')
		b = appendField(b, "kvReason", f.KVReason)
		b = appendKey(b, "version")
		b = appendInt(b, f.Version)
		b = append(b, ',')
		b = appendKey(b, "value")
		b = appendRaw(b, bytes.TrimSpace(f.Value))
		b = append(b, ',')
	}
	return append(b, `"results":[]}`+"\n"...), nil
}

// txnOwnKeys are the members of a kv result the transaction's answer
// sets itself: the KV result's own index (its place in its call) would
// contradict the one index space.
var txnOwnKeys = map[string]bool{"index": true, "type": true, "opIndex": true}

// appendKVMembers appends, each after a comma, the members of the JSON
// object m marshals to, in its order and with their values byte for
// byte, except those named by txnOwnKeys.
func appendKVMembers(b []byte, m json.Marshaler) ([]byte, error) {
	if m == nil {
		return nil, errors.New("no KV result")
	}
	raw, err := m.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("marshal the KV result: %w", err)
	}
	if firstByte(raw) != '{' || !json.Valid(raw) {
		return nil, errors.New("the KV result is not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string) // an object's keys are strings
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if txnOwnKeys[k] {
			continue
		}
		b = append(b, ',')
		b = appendString(b, k)
		b = append(b, ':')
		b = append(b, bytes.TrimSpace(v)...)
	}
	return b, nil
}
