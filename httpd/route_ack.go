package httpd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/queen-mq/queen-go/contract"
)

// MaxAckBatch caps the acknowledgments of POST /api/v1/ack/batch
// (contract.AckBatch's Max).
const MaxAckBatch = 10000

// ackAnswer is one element of the answer of an ack. Error is null when
// the item was settled.
type ackAnswer struct {
	Index         int     `json:"index"`
	TransactionID string  `json:"transactionId"`
	Success       bool    `json:"success"`
	Error         *string `json:"error"`
	LeaseReleased bool    `json:"leaseReleased"`
	DLQ           bool    `json:"dlq"`
	// Noop is there, true, only for a completed ack of a message the
	// group had committed already (the 1.x field, kept by the 2.x client's
	// callers): an ack that settled something carries no noop.
	Noop bool `json:"noop,omitempty"`
}

// extendAnswer is the answer of a lease extension; ExpiresAt is null when
// nothing was renewed.
type extendAnswer struct {
	Success   bool    `json:"success"`
	LeaseID   string  `json:"leaseId"`
	Renewed   int     `json:"renewed"`
	ExpiresAt *string `json:"expiresAt"`
}

// ack is POST /api/v1/ack: one item, answered as an array of one.
//
// An ack is an offset commit per consumer group and partition (API.md §2
// is silent; the 2.x client and its callers decide): status completed of
// message N settles every earlier message of the same lease. In one call
// (here, or the items of /ack/batch), a failed or retry item clamps the
// commit just below it and releases the lease at once, so it and every
// later message are delivered again; a completed item past it answers
// success:false saying it is not committed. retry charges no retry. A
// nack of a message already committed answers success:false "already
// committed"; a completed ack of one answers success:true, "noop":true
// (an ack that settled something carries no noop). An ack whose
// transactionId names no message of the partition answers success:false
// saying it is unresolvable.
func (s *server) ack() http.Handler {
	read := func(r *http.Request) ([]AckItem, error) {
		o, err := s.bodyObject(r)
		if err != nil {
			return nil, err
		}
		it, err := decodeAckItem(o, "", QueueModeGroup)
		return []AckItem{it}, err
	}
	return route(http.StatusOK, read, s.runAck)
}

// ackBatch is POST /api/v1/ack/batch: {"acknowledgments":[…],
// "consumerGroup"?}, answered in request order. An item's own
// consumerGroup wins over the body's.
func (s *server) ackBatch() http.Handler {
	return route(http.StatusOK, bodyOf(s, decodeAckBatch), s.runAck)
}

// runAck settles items and answers 200 with one element per item, its
// index and transactionId those of the request.
func (s *server) runAck(r *http.Request, items []AckItem) ([]ackAnswer, error) {
	got, err := s.c.Ack(r.Context(), tenantOf(r), items)
	if err != nil {
		return nil, err
	}
	if len(got) != len(items) {
		return nil, fmt.Errorf("httpd: broker answered %d ack results for %d items", len(got), len(items))
	}
	out := make([]ackAnswer, len(items))
	for i, res := range got {
		a := ackAnswer{Index: i, TransactionID: items[i].TransactionID, Success: res.Success,
			LeaseReleased: res.LeaseReleased, DLQ: res.DLQ, Noop: res.Noop}
		if res.Success && !res.Noop {
			s.m.count(tenantOf(r), ackEvent(items[i].Status), 1)
		}
		a.Error = stringOrNull(res.Error)
		out[i] = a
	}
	return out, nil
}

// decodeAckBatch checks an ack/batch body, which must be valid JSON.
func decodeAckBatch(body []byte) ([]AckItem, error) {
	o, err := asObject(body, "the body")
	if err != nil {
		return nil, err
	}
	group, err := o.name("consumerGroup", "consumerGroup", contract.ConsumerGroup)
	if err != nil {
		return nil, err
	}
	if group == "" {
		group = QueueModeGroup
	}
	raw := o["acknowledgments"]
	if isNull(raw) {
		return nil, badRequest("acknowledgments is required")
	}
	list, err := arrayAtMost(raw, "acknowledgments", MaxAckBatch, "acknowledgments has %d items, at most %d")
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, badRequest("acknowledgments is empty")
	}
	return decodeEach(list, "acknowledgments", func(raw json.RawMessage, path string) (AckItem, error) {
		o, err := asObject(raw, path)
		if err != nil {
			return AckItem{}, err
		}
		return decodeAckItem(o, path, group)
	})
}

// decodeAckItem reads one ack item; path is where it sits in the body (""
// for the body itself) and group the consumer group of an item without
// one. status is a string: completed when absent or not one of the Ack
// constants.
func decodeAckItem(o object, path, group string) (AckItem, error) {
	it := AckItem{ConsumerGroup: group, Status: AckCompleted}
	txn, err := o.name("transactionId", field(path, "transactionId"), contract.TransactionID)
	if err != nil {
		return it, err
	}
	if txn == "" {
		return it, badRequest("%s is required", field(path, "transactionId"))
	}
	it.TransactionID = txn
	if it.PartitionID, err = partitionIDOf(o, field(path, "partitionId")); err != nil {
		return it, err
	}
	g, err := o.name("consumerGroup", field(path, "consumerGroup"), contract.ConsumerGroup)
	if err != nil {
		return it, err
	}
	if g != "" {
		it.ConsumerGroup = g
	}
	if it.LeaseID, err = o.name("leaseId", field(path, "leaseId"), contract.ID); err != nil {
		return it, err
	}
	if it.Error, _, err = o.str("error", field(path, "error")); err != nil {
		return it, err
	}
	st, _, err := o.str("status", field(path, "status"))
	if err != nil {
		return it, err
	}
	switch st {
	case AckFailed, AckRetry, AckDLQ:
		it.Status = st
	}
	return it, nil
}

// field is the path of member k of the object at path.
func field(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// partitionIDOf reads an ack item's partitionId, the decimal id a pop
// answered: a string of digits or a non-negative JSON integer, returned as
// its decimal digits without leading zeros.
func partitionIDOf(o object, path string) (string, error) {
	raw := o["partitionId"]
	if isNull(raw) {
		return "", badRequest("%s is required", path)
	}
	if firstByte(raw) == '"' {
		s, _, err := o.str("partitionId", path)
		if err != nil {
			return "", err
		}
		if s == "" || strings.Trim(s, "0123456789") != "" || len(s) > contract.ID.MaxBytes {
			return "", badRequest("%s %q must be a string of decimal digits", path, s)
		}
		if s = strings.TrimLeft(s, "0"); s == "" {
			s = "0"
		}
		return s, nil
	}
	text := strings.TrimSpace(string(raw))
	if u, err := strconv.ParseUint(text, 10, 64); err == nil {
		return strconv.FormatUint(u, 10), nil
	}
	// 3.0 and 3e0 are integers too.
	n, err := contract.ParseInteger(raw)
	if err != nil || n < 0 {
		return "", badRequest("%s %s must be a string of decimal digits or a non-negative integer", path, text)
	}
	return strconv.FormatInt(n, 10), nil
}

// extendLease is POST /api/v1/lease/:leaseId/extend {"seconds":N}: 200
// whether or not the lease was renewed.
func (s *server) extendLease() http.Handler {
	return route(http.StatusOK, pathOf("leaseId", contract.ID), func(r *http.Request, id string) (any, error) {
		body, err := readBody(r, s.maxBody)
		if err != nil {
			return nil, err
		}
		secs, err := decodeExtend(body)
		if err != nil {
			return nil, err
		}
		got, err := s.c.ExtendLease(r.Context(), tenantOf(r), id, secs)
		a := extendAnswer{Success: got.Success, LeaseID: got.LeaseID, Renewed: got.Renewed}
		if a.LeaseID == "" {
			a.LeaseID = id
		}
		a.ExpiresAt = stampOrNull(got.ExpiresAt)
		return a, err
	})
}

// decodeExtend reads an extension's body: {"seconds":N}, N an integer in
// 1..604800, or no body, {} or seconds null for the lease's own length (0;
// the official client sends {}). A body that is there must be valid JSON.
func decodeExtend(body []byte) (int, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return 0, nil
	}
	if err := parseJSON(body); err != nil {
		return 0, err
	}
	o, err := asObject(body, "the body")
	if err != nil {
		return 0, err
	}
	n, _, err := o.integer("seconds", "seconds", contract.ExtendSeconds, 0)
	return int(n), err
}
