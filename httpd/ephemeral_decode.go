package httpd

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/queen-mq/queen-go/contract"
)

// ephemeralOptions are the options of an ephemeral configure, in the
// order the wire and the answers list them. The list is closed, as the
// official client's is: an option outside it is refused, never dropped.
var ephemeralOptions = []string{"maxBytes", "maxLength", "policy", "ttlSeconds", "leaseSeconds", "retryLimit", "windowBuffer"}

// requiredQueue reads the body's queue, which must be there.
func requiredQueue(o object) (string, error) {
	return o.required("queue", "", contract.Queue)
}

// queueBody reads a body, which must be an object, and its required
// queue (requiredQueue) into queue.
func queueBody(body []byte, queue *string) (object, error) {
	o, err := asObject(body, "the body")
	if err != nil {
		return nil, err
	}
	*queue, err = requiredQueue(o)
	return o, err
}

// decodeEphemeralPush checks a push body: queue, partition, and a
// non-empty messages array of objects that each have a payload.
func decodeEphemeralPush(body []byte) (EphemeralPush, error) {
	var req EphemeralPush
	o, err := queueBody(body, &req.Queue)
	if err != nil {
		return req, err
	}
	if req.Partition, err = o.name("partition", "partition", contract.Partition); err != nil {
		return req, err
	}
	if req.Partition == "" {
		req.Partition = DefaultPartition
	}
	if isNull(o["messages"]) {
		return req, badRequest(`messages is required: [{"payload":…}, …]`)
	}
	list, err := asArray(o["messages"], "messages")
	if err != nil {
		return req, err
	}
	if len(list) == 0 {
		return req, badRequest("messages is empty")
	}
	req.Payloads = make([][]byte, len(list))
	for i, raw := range list {
		at := fmt.Sprintf("messages[%d]", i)
		m, err := asObject(raw, at)
		if err != nil {
			return req, err
		}
		p, ok := m["payload"]
		if !ok {
			return req, badRequest("%s.payload is required (null is a payload)", at)
		}
		req.Payloads[i] = p
	}
	return req, nil
}

// decodeEphemeralPop checks a pop's query string.
func decodeEphemeralPop(raw string) (EphemeralPop, error) {
	req := EphemeralPop{Group: QueueModeGroup}
	q, err := parseQuery(raw)
	if err != nil {
		return req, err
	}
	if req.Queue, err = q.name("queue", contract.Queue); err != nil {
		return req, err
	}
	if req.Queue == "" {
		return req, badRequest("queue is required")
	}
	if req.Partition, err = q.name("partition", contract.Partition); err != nil {
		return req, err
	}
	g, err := q.name("group", contract.ConsumerGroup)
	if err != nil {
		return req, err
	}
	cg, err := q.name("consumerGroup", contract.ConsumerGroup)
	if err != nil {
		return req, err
	}
	if g != "" && cg != "" && g != cg {
		return req, badRequest("group %q and consumerGroup %q disagree", g, cg)
	}
	if g == "" {
		g = cg
	}
	if g != "" {
		req.Group = g
	}
	batch, _, err := q.integer("batch", contract.PopBatch, 1)
	if err != nil {
		return req, err
	}
	req.Batch = int(batch)
	if req.Wait, req.Timeout, err = waitOf(q); err != nil {
		return req, err
	}
	req.AutoAck, err = autoAckOf(q)
	return req, err
}

// decodeEphemeralAck checks an ack body.
func decodeEphemeralAck(body []byte) (EphemeralAck, error) {
	req := EphemeralAck{Group: QueueModeGroup}
	o, err := asObject(body, "the body")
	if err != nil {
		return req, err
	}
	if req.Queue, err = requiredQueue(o); err != nil {
		return req, err
	}
	g, err := o.name("group", "group", contract.ConsumerGroup)
	if err != nil {
		return req, err
	}
	if g != "" {
		req.Group = g
	}
	if isNull(o["acks"]) {
		return req, badRequest(`acks is required: [{"id":…}, …]`)
	}
	list, err := arrayAtMost(o["acks"], "acks", MaxEphemeralAcks, "acks: %d acks, at most %d in one call")
	if err != nil {
		return req, err
	}
	if len(list) == 0 {
		return req, badRequest("acks is empty")
	}
	req.Acks, err = decodeEach(list, "acks", decodeEphemeralAckItem)
	return req, err
}

func decodeEphemeralAckItem(raw json.RawMessage, at string) (EphemeralAckItem, error) {
	var it EphemeralAckItem
	o, err := asObject(raw, at)
	if err != nil {
		return it, err
	}
	if it.ID, err = o.name("id", at+".id", contract.ID); err != nil {
		return it, err
	}
	if it.ID == "" {
		return it, badRequest("%s.id is required: the id the pop answered", at)
	}
	st, ok, err := o.str("status", at+".status")
	if err != nil {
		return it, err
	}
	switch {
	case !ok:
		it.Status = AckCompleted
	case st == AckCompleted || st == AckFailed || st == AckRetry:
		it.Status = st
	default:
		return it, badRequest("%s.status %q must be completed, failed or retry", at, st)
	}
	if it.Error, _, err = o.str("error", at+".error"); err != nil {
		return it, err
	}
	return it, nil
}

// decodeEphemeralConfigure checks a configure body: queue, and options,
// an object of the known options only, each in its range.
func decodeEphemeralConfigure(body []byte) (EphemeralConfigure, error) {
	var req EphemeralConfigure
	o, err := queueBody(body, &req.Queue)
	if err != nil {
		return req, err
	}
	if isNull(o["options"]) {
		return req, nil
	}
	opts, err := asObject(o["options"], "options")
	if err != nil {
		return req, err
	}
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		if !slices.Contains(ephemeralOptions, k) {
			return req, badRequest("options.%s is not an ephemeral queue option: %s", k, strings.Join(ephemeralOptions, ", "))
		}
	}
	ints := []struct {
		k   string
		r   *contract.Range
		dst **int64
	}{
		{"maxBytes", contract.EphemeralMaxBytes, &req.MaxBytes},
		{"maxLength", contract.EphemeralMaxLength, &req.MaxLength},
		{"ttlSeconds", contract.EphemeralTTLSeconds, &req.TTLSeconds},
		{"leaseSeconds", contract.EphemeralLeaseSeconds, &req.LeaseSeconds},
		{"retryLimit", contract.EphemeralRetryLimit, &req.RetryLimit},
	}
	for _, f := range ints {
		n, ok, err := opts.integer(f.k, "options."+f.k, f.r, 0)
		if err != nil {
			return req, err
		}
		if ok {
			*f.dst = &n
		}
	}
	p, ok, err := opts.str("policy", "options.policy")
	if err != nil {
		return req, err
	}
	if ok {
		if p != EphemeralPolicyReject && p != EphemeralPolicyDropOldest {
			return req, badRequest("options.policy %q must be reject or drop_oldest", p)
		}
		req.Policy = &p
	}
	if !isNull(opts["windowBuffer"]) {
		wb, err := asObject(opts["windowBuffer"], "options.windowBuffer")
		if err != nil {
			return req, err
		}
		var win EphemeralWindow
		if win.Ms, _, err = wb.integer("ms", "options.windowBuffer.ms", contract.EphemeralWindowMs, 0); err != nil {
			return req, err
		}
		if win.Count, _, err = wb.integer("count", "options.windowBuffer.count", contract.EphemeralWindowCount, 0); err != nil {
			return req, err
		}
		req.WindowBuffer = &win
	}
	return req, nil
}
