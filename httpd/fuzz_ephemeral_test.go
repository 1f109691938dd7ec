package httpd

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/queen-mq/queen-go/contract"
)

// FuzzEphemeralDecode: the ephemeral body decoders (push, ack, configure)
// never panic on any bytes, refuse only with a 400 or 413 *Error with a
// code, and what they accept holds only checked names, payloads that are
// byte-exact JSON slices of the body, and statuses and options in range.
func FuzzEphemeralDecode(f *testing.F) {
	f.Add([]byte(`{"queue":"q","partition":"p","messages":[{"payload":{"a":1.50}}]}`))
	f.Add([]byte(`{"queue":"q","group":"g","acks":[{"id":"00000000000000e1-0-1-1-0","status":"failed","error":"x"}]}`))
	f.Add([]byte(`{"queue":"q","options":{"maxBytes":1,"policy":"drop_oldest","windowBuffer":{"ms":5,"count":2}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if parseJSON(body) != nil {
			return
		}
		refused := func(err error) bool {
			if err == nil {
				return false
			}
			bodyRefusalOK(t, err)
			return true
		}
		if p, err := decodeEphemeralPush(body); !refused(err) {
			if len(p.Payloads) == 0 || contract.Queue.Check("", p.Queue) != nil || contract.Partition.Check("", p.Partition) != nil {
				t.Fatalf("push %+v was let through", p)
			}
			for i, pl := range p.Payloads {
				if !json.Valid(pl) || !bytes.Contains(body, pl) {
					t.Fatalf("payload %d %q is not a JSON slice of the body", i, pl)
				}
			}
		}
		if a, err := decodeEphemeralAck(body); !refused(err) {
			if len(a.Acks) == 0 || len(a.Acks) > MaxEphemeralAcks || contract.ConsumerGroup.Check("", a.Group) != nil {
				t.Fatalf("ack %+v was let through", a)
			}
			for _, it := range a.Acks {
				if contract.ID.Check("", it.ID) != nil || (it.Status != AckCompleted && it.Status != AckFailed && it.Status != AckRetry) {
					t.Fatalf("ack item %+v was let through", it)
				}
			}
		}
		if c, err := decodeEphemeralConfigure(body); !refused(err) {
			if c.LeaseSeconds != nil && *c.LeaseSeconds < 1 || c.Policy != nil && *c.Policy != EphemeralPolicyReject && *c.Policy != EphemeralPolicyDropOldest ||
				c.WindowBuffer != nil && (c.WindowBuffer.Ms < 0 || c.WindowBuffer.Count < 0) {
				t.Fatalf("configure %+v was let through", c)
			}
		}
	})
}
