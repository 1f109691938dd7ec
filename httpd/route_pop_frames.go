package httpd

import (
	"net/http"
	"strconv"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/httpd/wire"
)

// appendPopFrames renders a pop's answer as the framed one (frames=true,
// wire.AppendPop): one claim per run of messages of one partition and
// delivery attempt, one record per run of consecutive offsets of one
// stamp, every record raw. own is the answer's own keys (a JSON object).
// ok is false when the answer cannot be framed exactly (a message of
// another queue or lease, an id that is not a UUID, a name too long for
// the layout): the caller then answers JSON, which the client reads as
// well.
func appendPopFrames(b []byte, a *PopAnswer, own []byte) (_ []byte, ok bool) {
	p := wire.Pop{Own: own, Queue: a.Queue, LeaseID: a.LeaseID, ConsumerGroup: a.ConsumerGroup}
	var c *wire.Claim
	var rec *wire.Record
	for i := range a.Messages {
		m := &a.Messages[i]
		if m.Queue != a.Queue || m.LeaseID != a.LeaseID || m.ConsumerGroup != a.ConsumerGroup || m.Offset < 0 {
			return nil, false
		}
		pid, err := strconv.ParseUint(m.PartitionID, 10, 64)
		if err != nil {
			return nil, false
		}
		f, ok := frameOf(m)
		if !ok {
			return nil, false
		}
		off := uint64(m.Offset)
		if c == nil || c.PartitionID != pid || c.Partition != m.Partition || c.DeliveryAttempt != uint32(m.DeliveryAttempt) || off <= c.End {
			p.Claims = append(p.Claims, wire.Claim{PartitionID: pid, Partition: m.Partition, Start: off, End: off, DeliveryAttempt: uint32(m.DeliveryAttempt)})
			c, rec = &p.Claims[len(p.Claims)-1], nil
		}
		if rec == nil || rec.CreatedAt != m.CreatedAt || rec.BaseOffset+uint64(len(rec.Frames)) != off {
			c.Records = append(c.Records, wire.Record{BaseOffset: off, CreatedAt: m.CreatedAt})
			rec = &c.Records[len(c.Records)-1]
		}
		rec.Frames = append(rec.Frames, f)
		c.End = off
	}
	out, err := wire.AppendPop(b, &p)
	return out, err == nil
}

// frameOf is m as a frame; ok is false when its ids are not UUIDs.
func frameOf(m *PopMessage) (f wire.Frame, ok bool) {
	id, err := uuid.Parse(m.ID)
	if err != nil {
		return f, false
	}
	f = wire.Frame{ID: id, TransactionID: m.TransactionID, Payload: m.Data}
	if m.TraceID != "" {
		t, err := uuid.Parse(m.TraceID)
		if err != nil {
			return f, false
		}
		f.TraceID, f.HasTrace = t, true
	}
	if m.ProducerSub != "" {
		f.Producer, f.HasProducer = m.ProducerSub, true
	}
	return f, true
}

// writeFrames answers 200 with a framed pop answer.
func writeFrames(w http.ResponseWriter, body []byte) {
	h := w.Header()
	h.Set("Content-Type", wire.PopContentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
