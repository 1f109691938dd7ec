package httpd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/contract"
)

// CodeConfigHashMismatch refuses a registration whose config hash is not
// the query's (409), and CodeQueryNotFound names no query (404).
const (
	CodeConfigHashMismatch = "config_hash_mismatch"
	CodeQueryNotFound      = "query_not_found"
)

// MaxStreamStateRows bounds the rows one state read answers: past it,
// 413 payload_too_large (the SDK reads a partition's rows whole).
const MaxStreamStateRows = 100000

// streamRoutes registers the routes of Streamer under /streams/v1. A
// worker's routes are a consumer's (ClassConsume); a cycle is a
// transaction's (ClassTxn), and its ack a consumer's besides; the list is
// a read, a delete an admin's.
func (s *server) streamRoutes(rt *routes) {
	rt.add(ClassConsume, http.MethodPost, "/queries", s.streamRegister())
	rt.add(ClassRead, http.MethodGet, "/queries", s.streamList(false))
	rt.add(ClassRead, http.MethodGet, "/queries/{name}", s.streamList(true))
	rt.add(ClassAdmin, http.MethodDelete, "/queries/{name}", s.streamDelete())
	rt.add(ClassConsume, http.MethodPost, "/state/get", s.streamState())
	rt.add(ClassTxn, http.MethodPost, "/cycle", s.streamCycle())
}

// streamRegister is POST /streams/v1/queries.
func (s *server) streamRegister() http.Handler {
	return route(http.StatusOK, bodyOf(s, decodeStreamRegister), func(r *http.Request, req StreamRegister) (any, error) {
		a, err := s.sm.RegisterStream(r.Context(), tenantOf(r), req)
		if err != nil {
			return nil, err
		}
		if a.Mismatch {
			return nil, &Error{Status: http.StatusConflict, Code: CodeConfigHashMismatch, Message: fmt.Sprintf(
				"query %q is registered with config_hash %s, this registration has %s: the operator chain changed; pass reset=true to wipe the query's state, or pick a new name",
				req.Name, contract.Clip(a.ConfigHash), contract.Clip(req.ConfigHash))}
		}
		return map[string]any{"success": true, "query_id": a.QueryID, "name": a.Name, "fresh": a.Fresh, "reset": a.Reset}, nil
	})
}

func decodeStreamRegister(body []byte) (StreamRegister, error) {
	var req StreamRegister
	o, err := asObject(body, "the body")
	if err != nil {
		return req, err
	}
	for _, f := range []struct {
		k   string
		n   *contract.Name
		dst *string
		req bool
	}{{"name", contract.StreamQuery, &req.Name, true}, {"source_queue", contract.Queue, &req.SourceQueue, true},
		{"sink_queue", contract.Queue, &req.SinkQueue, false}, {"config_hash", contract.StreamConfigHash, &req.ConfigHash, true}} {
		if *f.dst, err = o.name(f.k, f.k, f.n); err != nil {
			return req, err
		}
		if f.req && *f.dst == "" {
			return req, badRequest("%s is required", f.k)
		}
	}
	if req.Reset, _, err = o.boolean("reset", "reset"); err != nil {
		return req, err
	}
	return req, nil
}

// streamList is GET /streams/v1/queries and /streams/v1/queries/{name}.
func (s *server) streamList(one bool) http.Handler {
	if !one {
		return reply(http.StatusOK, func(r *http.Request) (any, error) {
			qs, err := s.sm.StreamQueries(r.Context(), tenantOf(r), "")
			return map[string]any{"queries": orEmpty(qs)}, err
		})
	}
	return route(http.StatusOK, pathQuery, func(r *http.Request, name string) (any, error) {
		qs, err := s.sm.StreamQueries(r.Context(), tenantOf(r), name)
		if err != nil {
			return nil, err
		}
		if len(qs) == 0 {
			return nil, noStreamQuery(name)
		}
		return qs[0], nil
	})
}

// pathQuery reads the path's stream query :name.
var pathQuery = pathOf("name", contract.StreamQuery)

// noStreamQuery is the 404 of a query name nobody registered.
func noStreamQuery(name string) *Error {
	return queryNotFound("no stream query %q is registered", name)
}

// streamDelete is DELETE /streams/v1/queries/{name}.
func (s *server) streamDelete() http.Handler {
	return route(http.StatusOK, pathQuery, func(r *http.Request, name string) (any, error) {
		found, rows, err := s.sm.DeleteStream(r.Context(), tenantOf(r), name)
		if err != nil || !found {
			return nil, orMissing(err, noStreamQuery(name))
		}
		return map[string]any{"deleted": true, "name": name, "rows": rows}, nil
	})
}

// streamState is POST /streams/v1/state/get.
func (s *server) streamState() http.Handler {
	return route(http.StatusOK, bodyOf(s, decodeStreamState), func(r *http.Request, req StreamStateRequest) (any, error) {
		rows, found, err := s.sm.StreamState(r.Context(), tenantOf(r), req)
		if err != nil || !found {
			return nil, orMissing(err, queryNotFound(
				"query_id %s names no registered query (never registered, or reset or deleted since): register the query again", req.QueryID))
		}
		return map[string]any{"success": true, "rows": orEmpty(rows)}, nil
	})
}

func decodeStreamState(body []byte) (StreamStateRequest, error) {
	var req StreamStateRequest
	o, err := streamBody(body, &req.QueryID, &req.PartitionID)
	if err != nil {
		return req, err
	}
	if !isNull(o["keys"]) {
		list, err := arrayAtMost(o["keys"], "keys", MaxStreamStateRows, "keys: %d keys, at most %d")
		if err != nil {
			return req, err
		}
		for i, raw := range list {
			var k string
			at := fmt.Sprintf("keys[%d]", i)
			if firstByte(raw) != '"' || json.Unmarshal(raw, &k) != nil {
				return req, badRequest("%s must be a string", at)
			}
			if err := checkStateKey(at, k); err != nil {
				return req, err
			}
			req.Keys = append(req.Keys, k)
		}
	}
	if req.KeyPrefix, _, err = o.str("key_prefix", "key_prefix"); err != nil {
		return req, err
	}
	if len(req.KeyPrefix) > contract.StreamStateKey.MaxBytes {
		return req, badRequest("key_prefix: %d bytes, a state key has at most %d", len(req.KeyPrefix), contract.StreamStateKey.MaxBytes)
	}
	if req.RipeAt, req.Ripe, err = o.integer("ripe_at_or_before", "ripe_at_or_before", contract.StreamRipe, 0); err != nil {
		return req, err
	}
	return req, nil
}

// streamBody reads a state or cycle body, which must be an object, and
// its query_id and partition_id (queryAndPartition) into query and
// partition.
func streamBody(body []byte, query, partition *string) (object, error) {
	o, err := asObject(body, "the body")
	if err != nil {
		return nil, err
	}
	*query, *partition, err = queryAndPartition(o)
	return o, err
}

// queryAndPartition reads the query_id and partition_id every state and
// cycle body names.
func queryAndPartition(o object) (query, partition string, err error) {
	if query, _, err = o.str("query_id", "query_id"); err != nil {
		return "", "", err
	}
	if query == "" {
		return "", "", badRequest("query_id is required: the id POST /streams/v1/queries answered")
	}
	if partition, err = o.name("partition_id", "partition_id", contract.StreamPartition); err != nil {
		return "", "", err
	}
	if partition == "" {
		return "", "", badRequest("partition_id is required: the source partition's id (a popped message's partitionId)")
	}
	return query, partition, nil
}

// checkStateKey checks a state row's key: 1..1024 bytes of UTF-8 without
// NUL (the SDK's keys separate their parts with U+001F).
func checkStateKey(path, k string) error {
	if err := contract.StreamStateKey.Check(path, k); err != nil {
		return refusal(err.Error())
	}
	return nil
}

// streamCycle is POST /streams/v1/cycle: 200 with success true when the
// cycle applied, or false with the reason when nothing of it did.
func (s *server) streamCycle() http.Handler {
	return route(http.StatusOK, bodyOf(s, decodeStreamCycle), func(r *http.Request, req StreamCycle) (rawJSON, error) {
		if p := PrincipalOf(r); p != nil && req.Ack != nil {
			if err := admit(p, ClassConsume, "a cycle's ack (class consume)"); err != nil {
				return nil, err
			}
		}
		sub := producerSub(r)
		for i := range req.Pushes {
			req.Pushes[i].ProducerSub = sub
			if err := newMessageID(&req.Pushes[i]); err != nil {
				return nil, err
			}
		}
		a, err := s.sm.StreamCycle(r.Context(), tenantOf(r), req)
		if err != nil {
			return nil, err
		}
		outcome := "committed"
		if !a.Success {
			outcome = a.Reason
		} else {
			s.m.count(tenantOf(r), msgPushed, len(a.Pushes))
		}
		s.m.cycles.WithLabelValues(outcome, tenantLabel(tenantOf(r))).Inc()
		return appendStreamCycle(nil, &req, &a), nil
	})
}

func decodeStreamCycle(body []byte) (StreamCycle, error) {
	var req StreamCycle
	o, err := streamBody(body, &req.QueryID, &req.PartitionID)
	if err != nil {
		return req, err
	}
	if req.ConsumerGroup, err = o.name("consumer_group", "consumer_group", contract.ConsumerGroup); err != nil {
		return req, err
	}
	if err := decodeStateOps(o, &req); err != nil {
		return req, err
	}
	if err := decodeCyclePushes(o, &req); err != nil {
		return req, err
	}
	if !isNull(o["ack"]) {
		if req.Ack, err = decodeCycleAck(o["ack"], req); err != nil {
			return req, err
		}
		a, _ := asObject(o["ack"], "ack")
		n, _, err := a.integer("count", "ack.count", contract.PopBatch, 0)
		if err != nil {
			return req, err
		}
		req.AckCount = int(n)
	}
	release, given, err := o.boolean("release_lease", "release_lease")
	if err != nil {
		return req, err
	}
	req.ReleaseLease = release || !given
	return req, nil
}

// eachObjectOf calls one with each object of o's array k (absent or
// null: none) of at most max, and its path k[i]; tooMany is arrayAtMost's.
func eachObjectOf(o object, k string, max int, tooMany string, one func(at string, it object) error) error {
	if isNull(o[k]) {
		return nil
	}
	list, err := arrayAtMost(o[k], k, max, tooMany)
	if err != nil {
		return err
	}
	for i, raw := range list {
		at := fmt.Sprintf("%s[%d]", k, i)
		it, err := asObject(raw, at)
		if err != nil {
			return err
		}
		if err := one(at, it); err != nil {
			return err
		}
	}
	return nil
}

func decodeStateOps(o object, req *StreamCycle) error {
	return eachObjectOf(o, "state_ops", int(contract.StreamStateOps.Max), "state_ops: %d ops, at most %d in one cycle", func(at string, op object) error {
		kind, _, err := op.str("type", at+".type")
		if err != nil {
			return err
		}
		key, _, err := op.str("key", at+".key")
		if err != nil {
			return err
		}
		if err := checkStateKey(at+".key", key); err != nil {
			return err
		}
		so := StreamStateOp{Key: key}
		switch kind {
		case "upsert":
			raw, ok := op["value"]
			if !ok {
				return badRequest("%s.value is required for an upsert", at)
			}
			var c bytes.Buffer
			if err := json.Compact(&c, raw); err != nil {
				return badRequest("%s.value must be JSON", at)
			}
			if int64(c.Len()) > contract.StreamValue.Max {
				return &Error{Status: http.StatusRequestEntityTooLarge, Code: CodePayloadTooLarge,
					Message: fmt.Sprintf("%s.value: %d bytes, at most %d", at, c.Len(), contract.StreamValue.Max)}
			}
			so.Value = c.Bytes()
		case "delete":
			so.Delete = true
		default:
			return badRequest("%s.type must be \"upsert\" or \"delete\"", at)
		}
		req.StateOps = append(req.StateOps, so)
		return nil
	})
}

func decodeCyclePushes(o object, req *StreamCycle) error {
	return eachObjectOf(o, "push_items", int(contract.StreamPushes.Max), "push_items: %d items, at most %d in one cycle", func(at string, it object) error {
		var p PushItem
		var err error
		if p.Queue, err = it.required("queue", at, contract.Queue); err != nil {
			return err
		}
		if p.Partition, err = it.name("partition", at+".partition", contract.Partition); err != nil {
			return err
		}
		if p.Partition == "" {
			p.Partition = "Default"
		}
		if p.TransactionID, err = it.name("transactionId", at+".transactionId", contract.TransactionID); err != nil {
			return err
		}
		p.Dedup = p.TransactionID != ""
		payload, ok := it["payload"]
		if !ok {
			return badRequest("%s.payload is required", at)
		}
		if err := checkPayload(at+".payload", payload); err != nil {
			return err
		}
		p.Payload = bytes.TrimSpace(payload)
		req.Pushes = append(req.Pushes, p)
		return nil
	})
}

func decodeCycleAck(raw json.RawMessage, req StreamCycle) (*AckItem, error) {
	a, err := asObject(raw, "ack")
	if err != nil {
		return nil, err
	}
	it := &AckItem{PartitionID: req.PartitionID, ConsumerGroup: req.ConsumerGroup, Status: AckCompleted}
	if it.TransactionID, err = a.name("transactionId", "ack.transactionId", contract.TransactionID); err != nil {
		return nil, err
	}
	if it.TransactionID == "" {
		return nil, badRequest("ack.transactionId is required: the last source message the cycle settles")
	}
	if it.LeaseID, err = a.name("leaseId", "ack.leaseId", contract.ID); err != nil {
		return nil, err
	}
	if it.LeaseID == "" {
		return nil, badRequest("ack.leaseId is required: a cycle's ack is fenced by the lease of its pop")
	}
	if st, _, err := a.str("status", "ack.status"); err != nil {
		return nil, err
	} else if st != "" && st != AckCompleted {
		return nil, badRequest("ack.status: %q, a cycle's ack is \"completed\" (it settles what the cycle consumed)", st)
	}
	if req.ConsumerGroup == "" {
		return nil, badRequest("consumer_group is required with an ack: the group that popped the source")
	}
	return it, nil
}

// appendStreamCycle renders a cycle's answer.
func appendStreamCycle(b []byte, req *StreamCycle, a *StreamCycleAnswer) []byte {
	m := map[string]any{"success": a.Success, "query_id": req.QueryID}
	if !a.Success {
		m["reason"], m["error"] = a.Reason, a.Error
	} else {
		items := make([]map[string]any, len(a.Pushes))
		for i, p := range a.Pushes {
			it := req.Pushes[i]
			items[i] = map[string]any{"queue": it.Queue, "partition": it.Partition, "messageId": uuid.UUID(p.MessageID).String(),
				"transactionId": it.TransactionID, "offset": p.Offset}
		}
		m["state_ops"], m["push_items"], m["lease_released"] = len(req.StateOps), items, a.LeaseReleased
		m["state"] = a.State
	}
	out, err := encodeJSON(m)
	if err != nil {
		panic("httpd: marshal answer: " + err.Error())
	}
	return append(b, out...)
}
