package httpd

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/klauspost/compress/zstd"

	"github.com/queen-mq/queen-go/contract"
)

// The timer routes' bounds (API.md §7).
const (
	MaxTimerOps          = 256
	MaxTimerPayloadBytes = 1 << 20
	// DefaultTimerHorizon is QUEEN_TIMERS_MAX_HORIZON_S's default: 90 days.
	DefaultTimerHorizon = 90 * 24 * time.Hour
	// CodeTimerHorizon is the 403 of a delay past the horizon.
	CodeTimerHorizon = "timer_beyond_horizon"
	// CodeTimerServerOwned is the 400 of a field only the broker sets.
	CodeTimerServerOwned = "timers_server_owned_field"
)

// timerServerOwned are the fields a timer op must not carry: the broker
// sets them (the message id, the tenant, the producer, deliverAt) or no
// such field exists on the wire (only the relative delayMs does).
var timerServerOwned = []string{"producerSub", "producer_sub", "messageId", "message_id", "tenant", "tenantId",
	"tenant_id", "deliverAt", "deliver_at", "delaySeconds", "delay_seconds", "attempts", "claimToken", "claim_token",
	"claimedUntil"}

// timersCall is POST /api/v1/timers: {"operations":[…]} → 200
// {"results":[…]}, index-aligned.
func (s *server) timersCall() http.Handler {
	read := func(r *http.Request) ([]TimerOp, error) {
		o, err := s.bodyObject(r)
		if err != nil {
			return nil, err
		}
		if _, ok := o["operations"]; !ok {
			return nil, badRequest("operations is required: {\"operations\":[…]}")
		}
		return decodeTimerOps(o["operations"], "operations", s.horizon)
	}
	return route(http.StatusOK, read, func(r *http.Request, ops []TimerOp) (rawJSON, error) {
		got, err := s.tm.Timers(r.Context(), tenantOf(r), ops)
		if err != nil {
			return nil, err
		}
		b := append([]byte(nil), `{"results":[`...)
		for i := range got {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendTimerResult(b, &ops[i], &got[i])
		}
		return append(b, "]}\n"...), nil
	})
}

// timerCancel is DELETE /api/v1/timers/:queue/*timerKey?txn=: the cancel
// that no quota or rate limit refuses.
func (s *server) timerCancel() http.Handler {
	return route(http.StatusOK, timerPath, func(r *http.Request, t timerID) (rawJSON, error) {
		txn, err := query(r.URL.Query()).name("txn", contract.TransactionID)
		if err != nil {
			return nil, err
		}
		op := TimerOp{Op: "cancel", Queue: t.queue, TimerKey: t.key, Txn: txn}
		got, err := s.tm.Timers(r.Context(), tenantOf(r), []TimerOp{op})
		if err != nil {
			return nil, err
		}
		if len(got) != 1 {
			return nil, fmt.Errorf("httpd: timers answered %d results for one cancel", len(got))
		}
		return append(appendTimerResult(nil, &op, &got[0]), '\n'), nil
	})
}

// timerPeek is GET /api/v1/timers/:queue/*timerKey: the timer, or
// {"found":false}.
func (s *server) timerPeek() http.Handler {
	return route(http.StatusOK, timerPath, func(r *http.Request, t timerID) (any, error) {
		row, ok, err := s.tm.PeekTimer(r.Context(), tenantOf(r), t.queue, t.key)
		if !ok {
			return map[string]any{"found": false, "queue": t.queue, "timerKey": t.key}, err
		}
		return timerRowJSON(&row, true), err
	})
}

// timersList is GET /api/v1/timers/:queue: a page {rows,truncated,
// nextAfter} (limit, after), or with mode=count {count} (prefix).
func (s *server) timersList() http.Handler {
	return route(http.StatusOK, pathQueue, func(r *http.Request, queue string) (any, error) {
		q := query(r.URL.Query())
		switch mode := q.get("mode"); mode {
		case "count":
			n, err := s.tm.CountTimers(r.Context(), tenantOf(r), queue, q.get("prefix"))
			return map[string]any{"count": n}, err
		case "", "list":
		default:
			return nil, badRequest("mode %q is not a timers listing: count, or none for a page", mode)
		}
		limit, _, err := q.integer("limit", contract.TimerLimit, 100)
		if err != nil {
			return nil, err
		}
		rows, truncated, err := s.tm.ListTimers(r.Context(), tenantOf(r), queue, q.get("after"), int(limit))
		out := make([]map[string]any, len(rows))
		next := any(nil)
		for i := range rows {
			out[i] = timerRowJSON(&rows[i], false)
		}
		if truncated && len(rows) > 0 {
			next = rows[len(rows)-1].TimerKey
		}
		return map[string]any{"rows": out, "truncated": truncated, "nextAfter": next}, err
	})
}

// timerID is the ids of a timer route's path: :queue and the timerKey.
type timerID struct{ queue, key string }

// timerPath reads :queue and the timerKey after it (which may hold '/').
func timerPath(r *http.Request) (timerID, error) {
	queue, err := pathParam(r, "queue", contract.Queue)
	if err != nil {
		return timerID{}, err
	}
	key, err := restOfPath(r, "timerKey", "timerKey", "/api/v1/timers/<queue>/<timerKey>", contract.TimerKey)
	return timerID{queue, key}, err
}

func timerRowJSON(t *TimerRow, payload bool) map[string]any {
	m := map[string]any{"found": true, "queue": t.Queue, "partition": t.Partition, "timerKey": t.TimerKey, "txn": t.Txn,
		"messageId": uuid.UUID(t.MessageID).String(), "createdAt": formatStamp(t.CreatedAt),
		"deliverAt": formatStamp(t.DeliverAt), "nextAttemptAt": formatStamp(t.NextAttemptAt),
		"attempts": t.Attempts, "lastError": nil, "encrypted": t.Encrypted}
	if t.LastError != "" {
		m["lastError"] = t.LastError
	}
	if payload {
		m["payload"] = base64.StdEncoding.EncodeToString(t.Payload)
	}
	return m
}

func appendTimerResult(b []byte, op *TimerOp, r *TimerResult) []byte {
	b = append(b, `{"ok":`...)
	b = strconv.AppendBool(b, r.OK)
	b = append(b, ',')
	b = appendField(b, "status", r.Status)
	b = appendField(b, "queue", op.Queue)
	b = appendField(b, "timerKey", op.TimerKey)
	b = appendKey(b, "txn")
	b = appendString(b, r.Txn)
	if r.DeliverAt != 0 {
		b = append(b, ',')
		b = appendField(b, "messageId", uuid.UUID(r.MessageID).String())
		b = appendKey(b, "deliverAt")
		b = appendString(b, formatStamp(r.DeliverAt))
	}
	return append(b, '}')
}

// decodeTimerOps checks timer ops (the route's operations, or a
// transaction's timers[]): at most MaxTimerOps, one per (queue,
// timerKey), each with a known op, its names, and a schedule's delay
// within horizon (else 403), payload (base64 of JSON, zstd-compressed
// when payloadZstd, at most MaxTimerPayloadBytes decoded: else 413) and
// no field the server owns (400 timers_server_owned_field).
func decodeTimerOps(raw json.RawMessage, path string, horizon time.Duration) ([]TimerOp, error) {
	list, err := arrayAtMost(raw, path, MaxTimerOps, path+": %d operations, at most %d in one call")
	if err != nil {
		return nil, err
	}
	if horizon <= 0 {
		horizon = DefaultTimerHorizon
	}
	ops := make([]TimerOp, len(list))
	seen := map[[2]string]int{}
	for i, raw := range list {
		at := fmt.Sprintf("%s[%d]", path, i)
		op, err := decodeTimerOp(raw, at, horizon)
		if err != nil {
			return nil, err
		}
		k := [2]string{op.Queue, op.TimerKey}
		if j, dup := seen[k]; dup {
			return nil, badRequest("%s: timer %q of queue %q is in %s[%d] already; one operation per timer in a call", at, op.TimerKey, op.Queue, path, j)
		}
		seen[k] = i
		op.OpIndex = i
		ops[i] = op
	}
	return ops, nil
}

func decodeTimerOp(raw json.RawMessage, at string, horizon time.Duration) (TimerOp, error) {
	var op TimerOp
	o, err := asObject(raw, at)
	if err != nil {
		return op, err
	}
	for _, f := range timerServerOwned {
		if _, ok := o[f]; ok {
			return op, &Error{Status: http.StatusBadRequest, Code: CodeTimerServerOwned,
				Message: fmt.Sprintf("%s.%s is the server's: the message id, tenant and producer are set by the broker, and deliverAt is not expressible (send delayMs)", at, f)}
		}
	}
	for f := range o {
		if strings.HasPrefix(f, "_") {
			return op, &Error{Status: http.StatusBadRequest, Code: CodeTimerServerOwned, Message: fmt.Sprintf("%s.%s: fields starting with _ are the server's", at, f)}
		}
	}
	if op.Op, _, err = o.str("op", at+".op"); err != nil {
		return op, err
	}
	if op.Op != "schedule" && op.Op != "reschedule" && op.Op != "cancel" {
		return op, badRequest("%s.op %q is not a timer operation: schedule, reschedule or cancel", at, op.Op)
	}
	if op.Queue, err = o.required("queue", at, contract.Queue); err != nil {
		return op, err
	}
	if op.TimerKey, err = o.required("timerKey", at, contract.TimerKey); err != nil {
		return op, err
	}
	if op.Txn, err = o.name("txn", at+".txn", contract.TransactionID); err != nil {
		return op, err
	}
	if op.Op == "cancel" {
		return op, nil
	}
	if op.Partition, err = o.name("partition", at+".partition", contract.Partition); err != nil {
		return op, err
	} else if op.Partition == "" {
		op.Partition = "Default"
	}
	if op.Txn == "" {
		op.Txn = uuid.Must(uuid.NewV7()).String()
	}
	var given bool
	if op.DelayMs, given, err = o.integer("delayMs", at+".delayMs", contract.TimerDelayMs, 0); err != nil {
		return op, err
	} else if !given {
		return op, badRequest("%s.delayMs is required: the delay in milliseconds (deliverAt is the broker's clock + delayMs)", at)
	}
	if op.DelayMs > horizon.Milliseconds() {
		return op, &Error{Status: http.StatusForbidden, Code: CodeTimerHorizon,
			Message: fmt.Sprintf("%s.delayMs %d is past the horizon of %d ms (QUEEN_TIMERS_MAX_HORIZON_S)", at, op.DelayMs, horizon.Milliseconds())}
	}
	if op.Payload, err = timerPayload(o, at); err != nil {
		return op, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return op, fmt.Errorf("httpd: message id: %w", err)
	}
	op.MessageID = id
	return op, nil
}

// timerPayload decodes a schedule's payload: base64, then zstd when
// payloadZstd, then it must be one JSON value.
func timerPayload(o object, at string) (json.RawMessage, error) {
	text, ok, err := o.str("payload", at+".payload")
	if err != nil {
		return nil, err
	} else if !ok {
		return nil, badRequest("%s.payload is required: base64 of the message's JSON", at)
	}
	if base64.StdEncoding.DecodedLen(len(text)) > 4*MaxTimerPayloadBytes {
		return nil, timerTooLarge(at)
	}
	b, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return nil, badRequest("%s.payload is not base64: %v", at, err)
	}
	compressed, _, err := o.boolean("payloadZstd", at+".payloadZstd")
	if err != nil {
		return nil, err
	}
	if compressed {
		dec, err := timerZstd()
		if err != nil {
			return nil, err
		}
		if b, err = dec.DecodeAll(b, nil); err != nil {
			if errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) {
				return nil, timerTooLarge(at)
			}
			return nil, badRequest("%s.payload is not zstd (payloadZstd is true): %v", at, err)
		}
	}
	if len(b) > MaxTimerPayloadBytes {
		return nil, timerTooLarge(at)
	}
	b = bytes.TrimSpace(b)
	if err := contract.CheckJSON(b, contract.MaxJSONDepth); err != nil || len(b) == 0 {
		return nil, badRequest("%s.payload must be base64 of one JSON value (a timer becomes a message): %v", at, err)
	}
	return b, nil
}

// timerZstd is the decoder of every payloadZstd, made once: DecodeAll is
// safe for concurrent use, and a decoder costs allocations to make. Its
// memory bound stops a payload that decompresses past the limit.
var timerZstd = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderMaxMemory(MaxTimerPayloadBytes+1))
})

func timerTooLarge(at string) error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Code: "payload_too_large",
		Message: fmt.Sprintf("%s.payload is over %d bytes decoded", at, MaxTimerPayloadBytes)}
}
