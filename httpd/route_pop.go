package httpd

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/queen-mq/queen-go/contract"
)

// The subscription modes of a pop (API.md §2).
const (
	SubscriptionNew = "new" // a new group starts after the last record (default)
	SubscriptionAll = "all" // a new group starts at the first record
)

// pop is GET /api/v1/pop/queue/:queue and, when partitioned is true,
// GET /api/v1/pop/queue/:queue/partition/:partition: 200 with the leased
// messages, or 204 with no body when there was nothing to lease.
func (s *server) pop(partitioned bool) http.Handler {
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		req, err := decodePop(r.URL.RawQuery, s.subMode)
		if err != nil {
			return err
		}
		if req.Queue, err = pathParam(r, "queue", contract.Queue); err != nil {
			return err
		}
		if partitioned {
			if req.Partition, err = pathParam(r, "partition", contract.Partition); err != nil {
				return err
			}
		}
		return s.runPop(w, r, req)
	})
}

// popDiscover is GET /api/v1/pop?namespace=&task=: a pop from the queues
// of a namespace or task (one of them is required). It never long-polls:
// wait is read as false whatever the query says.
func (s *server) popDiscover() http.Handler {
	return handle(func(w http.ResponseWriter, r *http.Request) error {
		req, err := decodePop(r.URL.RawQuery, s.subMode)
		if err != nil {
			return err
		}
		q := query(r.URL.Query()) // decodePop has checked it
		if req.Namespace, err = q.name("namespace", contract.QueueNamespace); err != nil {
			return err
		}
		if req.Task, err = q.name("task", contract.QueueTask); err != nil {
			return err
		}
		if req.Namespace == "" && req.Task == "" {
			return badRequest("namespace or task is required")
		}
		req.Wait = false
		return s.runPop(w, r, req)
	})
}

// runPop asks the broker and answers: 200 with the messages, or a bare
// 204 (no body, no Content-Type; net/http sends no Content-Length on a
// 204).
//
// frames=true asks for the framed answer (route_pop_frames.go); an answer
// that cannot be framed exactly goes out as JSON, which the client reads
// as well.
func (s *server) runPop(w http.ResponseWriter, r *http.Request, req PopRequest) error {
	frames, _, err := query(r.URL.Query()).boolean("frames")
	if err != nil {
		return err
	}
	ans, ok, err := s.c.Pop(r.Context(), tenantOf(r), req)
	if err != nil {
		return err
	}
	if !ok && !(req.Conflation && (ans.Conflation || ans.ConflationConflict)) {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	s.m.count(tenantOf(r), msgDelivered, len(ans.Messages))
	if frames && len(ans.Messages) > 0 {
		if b, ok := appendPopFrames(nil, &ans, popOwnKeys(&ans, req)); ok {
			writeFrames(w, b)
			return nil
		}
	}
	b := appendPop(nil, &ans)
	if req.Autopilot {
		// The client's AutopilotDecision: the width and budget used (no
		// waitMs: the broker gives no pacing advice).
		b = b[:len(b)-2]
		b = append(b, ',')
		b = appendAutopilot(b, req)
		b = append(b, '}', '\n')
	}
	writeRaw(w, http.StatusOK, b)
	return nil
}

// appendAutopilot appends "autopilot":{"partitions","batch"}, the
// client's AutopilotDecision.
func appendAutopilot(b []byte, req PopRequest) []byte {
	b = appendKey(b, "autopilot")
	return fmt.Appendf(b, `{"partitions":%d,"batch":%d}`, req.Partitions, req.Batch)
}

// popOwnKeys is what a framed pop answer carries in its JSON object: what
// the JSON answer has beside its messages and the framed layout does not
// (partitionsClaimed, since a partition may take several claims there;
// the conflation flags; the autopilot's choice).
func popOwnKeys(a *PopAnswer, req PopRequest) []byte {
	b := append([]byte(`{"partitionsClaimed":`), strconv.Itoa(a.PartitionsClaimed)...)
	if a.Conflation {
		b = append(b, `,"conflation":true`...)
	}
	if a.ConflationConflict {
		b = append(b, `,"conflationConflict":true`...)
	}
	if req.Autopilot {
		b = appendAutopilot(append(b, ','), req)
	}
	return append(b, '}')
}

// query is a request's query string, decoded. A parameter given more than
// once counts with its first value, and an empty value reads as absent.
type query url.Values

// queryOf decodes r's query string (parseQuery).
func queryOf(r *http.Request) (query, error) { return parseQuery(r.URL.RawQuery) }

// parseQuery decodes the query string raw; a malformed one is 400.
func parseQuery(raw string) (query, error) {
	vs, err := url.ParseQuery(raw)
	if err != nil {
		return nil, badRequest("the query string is malformed: %v", err)
	}
	return query(vs), nil
}

// get returns parameter k's first value, "" when absent.
func (q query) get(k string) string { return url.Values(q).Get(k) }

// integer reads parameter k as a decimal integer of r's range (clamped
// into it when r.Clamp), def when absent; ok says it was given.
func (q query) integer(k string, r *contract.Range, def int64) (n int64, ok bool, err error) {
	v := q.get(k)
	if v == "" {
		return def, false, nil
	}
	n, err = r.ParseDecimal(k, v)
	return n, err == nil, contractError(err)
}

// boolean reads parameter k as true or false; ok is false when absent.
func (q query) boolean(k string) (b, ok bool, err error) {
	switch v := q.get(k); v {
	case "":
		return false, false, nil
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	default:
		return false, false, badRequest("%s %q must be true or false", k, v)
	}
}

// decodePop checks and defaults a pop's query string (API.md §2);
// defMode is the subscription mode of a pop that names none
// (DEFAULT_SUBSCRIPTION_MODE). autopilot=true with no batch sizes it
// AutopilotBatch (the client leaves to the broker what it does not send).
// Unknown parameters are ignored, and so are namespace and task
// (popDiscover reads them).
// Every refusal is 400 bad_request naming the parameter and its value.
func decodePop(raw, defMode string) (PopRequest, error) {
	req := PopRequest{ConsumerGroup: QueueModeGroup, SubscriptionMode: SubscriptionNew}
	q, err := parseQuery(raw)
	if err != nil {
		return req, err
	}
	g, err := q.name("consumerGroup", contract.ConsumerGroup)
	if err != nil {
		return req, err
	}
	if g != "" {
		req.ConsumerGroup = g
	}
	if req.Autopilot, _, err = q.boolean("autopilot"); err != nil {
		return req, err
	}
	defBatch := int64(1)
	if req.Autopilot {
		defBatch = AutopilotBatch
	}
	batch, _, err := q.integer("batch", contract.PopBatch, defBatch)
	if err != nil {
		return req, err
	}
	parts, _, err := q.integer("partitions", contract.PopPartitions, 1)
	if err != nil {
		return req, err
	}
	req.Batch, req.Partitions = int(batch), int(parts)
	if req.Wait, req.Timeout, err = waitOf(q); err != nil {
		return req, err
	}
	lease, _, err := q.integer("leaseSeconds", contract.LeaseSeconds, 0)
	if err != nil {
		return req, err
	}
	req.LeaseSeconds = int(lease)
	if err := decodeSubscription(q, &req, defMode); err != nil {
		return req, err
	}
	if req.AutoAck, err = autoAckOf(q); err != nil {
		return req, err
	}
	req.Conflation, err = checkConflation(q, req)
	return req, err
}

// waitOf reads a pop's wait (true long-polls) and timeout (ms, the
// longest wait: contract.PopTimeout, default DefaultPopTimeout).
func waitOf(q query) (wait bool, timeout time.Duration, err error) {
	if wait, _, err = q.boolean("wait"); err != nil {
		return false, 0, err
	}
	ms, _, err := q.integer("timeout", contract.PopTimeout, DefaultPopTimeout.Milliseconds())
	return wait, time.Duration(ms) * time.Millisecond, err
}

// decodeSubscription reads subscriptionMode (new, or its spelling
// new-only; all, or its spelling from_beginning, as the official client
// sends it; absent: defMode) and subscriptionFrom (ISO-8601, as parseISO
// reads it; "now" means mode new with no time, as the client sends it).
func decodeSubscription(q query, req *PopRequest, defMode string) error {
	m := q.get("subscriptionMode")
	if m == "" {
		m = defMode
	}
	switch mode, ok := SubscriptionModeOf(m); {
	case !ok:
		return badRequest("subscriptionMode %q must be new, all, new-only or from_beginning", m)
	default:
		req.SubscriptionMode = mode
	}
	switch from := q.get("subscriptionFrom"); from {
	case "":
	case "now":
		req.SubscriptionMode = SubscriptionNew
	default:
		us, err := parseISO(from)
		if err != nil {
			return badRequest("subscriptionFrom %q must be an ISO-8601 time or now", from)
		}
		// 0 means unset: a time at or before the epoch starts the group
		// at the first record, as 1 µs does.
		req.SubscriptionFrom = max(us, 1)
	}
	return nil
}

// SubscriptionModeOf reads a subscription mode as the API and
// DEFAULT_SUBSCRIPTION_MODE spell it: "" and new and new-only are
// SubscriptionNew, all and from_beginning SubscriptionAll (case ignored).
func SubscriptionModeOf(s string) (string, bool) {
	switch strings.ToLower(s) {
	case "", SubscriptionNew, "new-only":
		return SubscriptionNew, true
	case SubscriptionAll, "from_beginning":
		return SubscriptionAll, true
	}
	return "", false
}

// autoAckOf reads commitOnDelivery and its deprecated alias autoAck; when
// both are given they must agree.
func autoAckOf(q query) (bool, error) {
	c, cok, err := q.boolean("commitOnDelivery")
	if err != nil {
		return false, err
	}
	a, aok, err := q.boolean("autoAck")
	if err != nil {
		return false, err
	}
	if cok && aok && a != c {
		return false, badRequest("commitOnDelivery %q and autoAck %q disagree", q.get("commitOnDelivery"), q.get("autoAck"))
	}
	return c || a, nil
}

// checkConflation reads conflation: true asks the group to conflate, and
// is refused without a consumer group or with commitOnDelivery (API.md
// §2).
func checkConflation(q query, req PopRequest) (bool, error) {
	on, _, err := q.boolean("conflation")
	switch {
	case err != nil || !on:
		return false, err
	case req.ConsumerGroup == QueueModeGroup:
		return false, badRequest("conflation %q needs a consumerGroup", q.get("conflation"))
	case req.AutoAck:
		return false, badRequest("conflation %q cannot be used with commitOnDelivery", q.get("conflation"))
	}
	return true, nil
}

// appendPop renders the 200 answer of a pop. Payloads are written as the
// broker returns them, byte for byte.
func appendPop(b []byte, a *PopAnswer) []byte {
	b = append(b, `{"success":true,`...)
	b = appendField(b, "queue", a.Queue)
	b = appendField(b, "partition", a.Partition)
	b = appendField(b, "partitionId", a.PartitionID)
	b = appendField(b, "leaseId", a.LeaseID)
	b = appendField(b, "consumerGroup", a.ConsumerGroup)
	b = appendEach(append(b, `"messages":[`...), a.Messages, appendPopMessage)
	b = append(b, ']', ',')
	b = appendIntField(b, "partitionsClaimed", int64(a.PartitionsClaimed))
	if a.Conflation {
		b = append(b, `"conflation":true,`...)
	}
	if a.ConflationConflict {
		b = append(b, `"conflationConflict":true,`...)
	}
	return append(closeObject(b), '\n')
}

// appendPopMessage renders one leased message. traceId is the pushed one
// and producerSub the subject of the push's credential (each null when
// none).
func appendPopMessage(b []byte, m *PopMessage) []byte {
	b = append(b, '{')
	b = appendField(b, "id", m.ID)
	b = appendField(b, "transactionId", m.TransactionID)
	b = appendFieldOrNull(b, "traceId", m.TraceID)
	b = appendRawField(b, "data", m.Data)
	b = appendFieldOrNull(b, "producerSub", m.ProducerSub)
	b = appendStampField(b, "createdAt", m.CreatedAt)
	b = appendField(b, "partitionId", m.PartitionID)
	b = appendField(b, "partition", m.Partition)
	b = appendField(b, "leaseId", m.LeaseID)
	b = appendField(b, "consumerGroup", m.ConsumerGroup)
	b = appendIntField(b, "deliveryAttempt", int64(m.DeliveryAttempt))
	b = appendIntField(b, "offset", m.Offset)
	return closeObject(b)
}

// appendFieldOrNull appends "k":"v", or "k":null, when v is "".
func appendFieldOrNull(b []byte, k, v string) []byte {
	if v == "" {
		return append(appendKey(b, k), "null,"...)
	}
	return appendField(b, k, v)
}

// appendField appends "k":"v", (k needs no escaping; v is escaped).
func appendField(b []byte, k, v string) []byte {
	b = appendKey(b, k)
	b = appendString(b, v)
	return append(b, ',')
}
