package httpd

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/contract"
)

// The trace routes' defaults (their bounds are contract.TraceData,
// TraceNames, TraceLimit and TraceOffset).
const (
	DefaultTraceLimit        = 100
	DefaultMessageTraceLimit = 1000
	DefaultTraceEventType    = "info"
)

// traceRecord is POST /api/v1/traces (read-write): one trace event of a
// popped message, as the official client's message.trace(…) sends it.
//
//	Req:  {"transactionId", "partitionId" (decimal string or integer, as the pop answered),
//	       "consumerGroup"? (default __QUEUE_MODE__), "traceNames"? ([string] or null),
//	       "eventType"? (default "info"), "data" (any JSON value, ≤64 KiB as sent)}
//	Resp: 201 {"success":true,"id","transactionId","partitionId","queue","partition",
//	       "consumerGroup","eventType","traceNames","createdAt","expiresAt"}
//
// queue and partition are null when no consumer of the tenant popped the
// partition of that id: the event is stored all the same, as it is when
// the partition holds no such transactionId. A repeated name counts once;
// more than 16 distinct names, a name over 256 bytes, an eventType over
// 64, data over 64 KiB, or a field of the wrong type is 400 bad_request
// naming the field. Unknown members are ignored.
func (s *server) traceRecord() http.Handler {
	return route(http.StatusCreated, bodyOf(s, decodeTraceEvent), func(r *http.Request, ev TraceEvent) (rawJSON, error) {
		row, err := s.tr.RecordTrace(r.Context(), tenantOf(r), ev)
		if err != nil {
			return nil, err
		}
		b := append([]byte(`{"success":true,`), appendTraceRow(nil, &row, false)[1:]...)
		return append(b, '\n'), nil
	})
}

// tracesOf is GET /api/v1/traces/:partitionId/*transactionId
// (read-only): a message's events, oldest first.
//
//	Query: limit? (1..1000 clamped, default 1000)
//	Resp:  200 {"partitionId","transactionId","traces":[event…],"count","truncated"}
//	event: {"id","transactionId","partitionId","queue"|null,"partition"|null,"consumerGroup",
//	        "eventType","data","traceNames":[…],"createdAt","expiresAt"}
//
// A message without events answers "traces":[] (never 404). Events whose
// lifetime ended (QUEEN_TRACES_RETENTION_S) are not shown.
func (s *server) tracesOf() http.Handler {
	return reply(http.StatusOK, func(r *http.Request) (rawJSON, error) {
		pid, _ := urlParam(r, "partitionId")
		uid, err := partitionUID(pid, "partitionId")
		if err != nil {
			return nil, err
		}
		txid, err := restOfPath(r, "transactionId", "transactionId", "/api/v1/traces/<partitionId>/<transactionId>", contract.TransactionID)
		if err != nil {
			return nil, err
		}
		p := paramsOf(r)
		limit := p.integer("limit", contract.TraceLimit, DefaultMessageTraceLimit)
		if p.err != nil {
			return nil, p.err
		}
		rows, truncated, err := s.tr.TracesOf(r.Context(), tenantOf(r), uid, txid, int(limit))
		if err != nil {
			return nil, err
		}
		b := append([]byte(nil), '{')
		b = appendField(b, "partitionId", strconv.FormatUint(uid, 10))
		b = appendField(b, "transactionId", txid)
		b = appendTraceRows(b, rows)
		b = append(b, `,"truncated":`...)
		b = strconv.AppendBool(b, truncated)
		return append(b, '}', '\n'), nil
	})
}

// restOfPath reads the rest of the path ("*", unescaped), the route's
// what, as a name of kind n checked as field; an empty one is 400
// showing the route's shape.
func restOfPath(r *http.Request, what, field, shape string, n *contract.Name) (string, error) {
	v, ok := urlParam(r, "*")
	if !ok {
		return "", badRequest("the %s %q is not a valid path", what, v)
	}
	if v == "" {
		return "", badRequest("the %s is empty: %s", what, shape)
	}
	return v, contractError(n.Check(field, v))
}

// tracesByName is GET /api/v1/traces/by-name/*name (read-only): a page
// of one trace name's events, newest first.
//
//	Query: limit? (1..1000 clamped, default 100), offset? (0..10000, default 0),
//	       from?, to? (ISO-8601: events created in [from, to))
//	Resp:  200 {"traceName","traces":[event…],"count","limit","offset","hasMore"}
//
// The next page is offset+count, or, past 10000, to = the createdAt of
// the page's last event. from after to is 400; a name nobody used
// answers "traces":[].
func (s *server) tracesByName() http.Handler {
	return reply(http.StatusOK, func(r *http.Request) (rawJSON, error) {
		name, err := restOfPath(r, "trace name", "traceName", "/api/v1/traces/by-name/<name>", contract.TraceName)
		if err != nil {
			return nil, err
		}
		p := paramsOf(r)
		tq := TraceNameQuery{Name: name, Limit: int(p.integer("limit", contract.TraceLimit, DefaultTraceLimit))}
		tq.Offset = int(p.integer("offset", contract.TraceOffset, 0))
		tq.From, tq.To = p.stampRange()
		if p.err != nil {
			return nil, p.err
		}
		rows, more, err := s.tr.TracesByName(r.Context(), tenantOf(r), tq)
		if err != nil {
			return nil, err
		}
		b := append([]byte(nil), '{')
		b = appendField(b, "traceName", name)
		b = appendTraceRows(b, rows)
		b = append(b, `,"limit":`...)
		b = appendInt(b, int64(tq.Limit))
		b = append(b, `,"offset":`...)
		b = appendInt(b, int64(tq.Offset))
		b = append(b, `,"hasMore":`...)
		b = strconv.AppendBool(b, more)
		return append(b, '}', '\n'), nil
	})
}

// traceNames is GET /api/v1/traces/names (read-only): the tenant's trace
// names in byte order, with how many events each holds.
//
//	Query: limit? (1..1000 clamped, default 100), search? (a prefix of the name, case counts),
//	       after? (exclusive: the previous page's nextAfter)
//	Resp:  200 {"names":[{"name","count","lastSeenAt"}],"count","truncated","nextAfter"|null}
//
// count is the names on the page; a name's count is its events stored,
// which may include some whose lifetime ended that the leader's sweep
// has not deleted yet (it runs every RETENTION_INTERVAL); lastSeenAt is
// when its newest event was recorded. A name leaves the list with its
// last event.
func (s *server) traceNames() http.Handler {
	return reply(http.StatusOK, func(r *http.Request) (rawJSON, error) {
		p := paramsOf(r)
		tq := TraceNamesQuery{Search: p.name("search", contract.TraceName)}
		tq.After = p.name("after", contract.TraceName)
		tq.Limit = int(p.integer("limit", contract.TraceLimit, DefaultTraceLimit))
		if p.err != nil {
			return nil, p.err
		}
		names, truncated, err := s.tr.TraceNames(r.Context(), tenantOf(r), tq)
		if err != nil {
			return nil, err
		}
		b := appendEach(append([]byte(nil), `{"names":[`...), names, func(b []byte, n *TraceNameCount) []byte {
			b = append(b, '{')
			b = appendField(b, "name", n.Name)
			b = append(b, `"count":`...)
			b = appendInt(b, n.Count)
			b = append(b, `,"lastSeenAt":`...)
			b = appendStamp(b, n.LastSeenAt)
			return append(b, '}')
		})
		b = append(b, `],"count":`...)
		b = appendInt(b, int64(len(names)))
		b = append(b, `,"truncated":`...)
		b = strconv.AppendBool(b, truncated)
		b = append(b, `,"nextAfter":`...)
		if truncated && len(names) > 0 {
			b = appendString(b, names[len(names)-1].Name)
		} else {
			b = append(b, "null"...)
		}
		return append(b, '}', '\n'), nil
	})
}

// decodeTraceEvent checks a POST /api/v1/traces body, which must be
// valid JSON. Every refusal is 400 bad_request naming the field.
func decodeTraceEvent(body []byte) (TraceEvent, error) {
	var ev TraceEvent
	o, err := asObject(body, "the body")
	if err != nil {
		return ev, err
	}
	if ev.TransactionID, err = o.name("transactionId", "transactionId", contract.TransactionID); err != nil {
		return ev, err
	} else if ev.TransactionID == "" {
		return ev, badRequest("transactionId is required: the traced message's")
	}
	pid, err := partitionIDOf(o, "partitionId")
	if err != nil {
		return ev, err
	}
	if ev.PartitionID, err = partitionUID(pid, "partitionId"); err != nil {
		return ev, err
	}
	if ev.ConsumerGroup, err = o.name("consumerGroup", "consumerGroup", contract.ConsumerGroup); err != nil {
		return ev, err
	} else if ev.ConsumerGroup == "" {
		ev.ConsumerGroup = QueueModeGroup
	}
	if ev.EventType, err = o.name("eventType", "eventType", contract.TraceEventType); err != nil {
		return ev, err
	} else if ev.EventType == "" {
		ev.EventType = DefaultTraceEventType
	}
	if ev.TraceNames, err = traceNamesOf(o); err != nil {
		return ev, err
	}
	raw, ok := o["data"]
	if !ok {
		return ev, badRequest("data is required: the trace's JSON (null too)")
	}
	raw = bytes.TrimSpace(raw)
	if max := contract.TraceData.Max; int64(len(raw)) > max {
		return ev, badRequest("data is %d bytes, at most %d (%s)", len(raw), max, contract.TraceData.Doc)
	}
	ev.Data = raw
	return ev, nil
}

// traceNamesOf reads traceNames: absent or null is none, else an array of
// names, a repeated one kept once where it first appears.
func traceNamesOf(o object) ([]string, error) {
	raw := o["traceNames"]
	if isNull(raw) {
		return nil, nil
	}
	list, err := asArray(raw, "traceNames")
	if err != nil {
		return nil, badRequest("traceNames must be an array of strings or null")
	}
	var names []string
	seen := map[string]bool{}
	for i, raw := range list {
		at := "traceNames[" + strconv.Itoa(i) + "]"
		if isNull(raw) {
			return nil, badRequest("%s must be a string", at)
		}
		n, err := object{"n": raw}.name("n", at, contract.TraceName)
		if err != nil {
			return nil, err
		}
		if n == "" {
			return nil, badRequest("%s is empty", at)
		}
		if seen[n] {
			continue
		}
		if len(names) == int(contract.TraceNames.Max) {
			return nil, badRequest("%s: more than %d distinct names in traceNames", at, contract.TraceNames.Max)
		}
		seen[n] = true
		names = append(names, n)
	}
	return names, nil
}

// partitionUID reads a partition id's digits as the number they are.
func partitionUID(digits, field string) (uint64, error) {
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, badRequest("%s %q must be a string of decimal digits", field, digits)
	}
	uid, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return 0, badRequest("%s %s is beyond every partition id (at most %d)", field, digits, uint64(1<<64-1))
	}
	return uid, nil
}

// appendTraceRows appends "traces":[…],"count":n.
func appendTraceRows(b []byte, rows []TraceRow) []byte {
	b = appendEach(append(b, `"traces":[`...), rows, func(b []byte, t *TraceRow) []byte { return appendTraceRow(b, t, true) })
	b = append(b, `],"count":`...)
	return appendInt(b, int64(len(rows)))
}

// appendTraceRow renders one event; its data is written as stored.
func appendTraceRow(b []byte, t *TraceRow, data bool) []byte {
	b = append(b, '{')
	b = appendField(b, "id", uuid.UUID(t.ID).String())
	b = appendField(b, "transactionId", t.TransactionID)
	b = appendField(b, "partitionId", strconv.FormatUint(t.PartitionID, 10))
	if t.Known {
		b = appendField(b, "queue", t.Queue)
		b = appendField(b, "partition", t.Partition)
	} else {
		b = append(b, `"queue":null,"partition":null,`...)
	}
	b = appendField(b, "consumerGroup", t.ConsumerGroup)
	b = appendField(b, "eventType", t.EventType)
	if data {
		b = appendKey(b, "data")
		b = appendRaw(b, t.Data)
		b = append(b, ',')
	}
	b = appendEach(append(b, `"traceNames":[`...), t.TraceNames, appendStringOf)
	b = append(b, `],"createdAt":`...)
	b = appendStamp(b, t.CreatedAt)
	b = append(b, `,"expiresAt":`...)
	b = appendStamp(b, t.ExpiresAt)
	return append(b, '}')
}
