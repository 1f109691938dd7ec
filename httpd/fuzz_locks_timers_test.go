package httpd

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/queen-mq/queen-go/contract"
)

// refusalOK fails unless err is a 4xx *Error with a code.
func refusalOK(t *testing.T, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Status < 400 || e.Status > 499 || e.Code == "" {
		t.Fatalf("refusal %v is not a 4xx *Error with a code", err)
	}
}

// bodyRefusalOK fails unless err is a 400 or 413 *Error with a code: a
// decoder's refusal of a body parseJSON passed.
func bodyRefusalOK(t *testing.T, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || (e.Status != http.StatusBadRequest && e.Status != http.StatusRequestEntityTooLarge) || e.Code == "" {
		t.Fatalf("refusal %v is not a 400 or 413 *Error with a code", err)
	}
}

// fuzzDecode reads body as a route does, parseJSON then decode, and
// checks a refusal of either with refused (refusalOK or bodyRefusalOK).
// err is the refusal, nil when decode accepted the body.
func fuzzDecode[T any](t *testing.T, body []byte, decode func([]byte) (T, error), refused func(*testing.T, error)) (v T, err error) {
	t.Helper()
	if err = parseJSON(body); err == nil {
		v, err = decode(body)
	}
	if err != nil {
		refused(t, err)
	}
	return v, err
}

// FuzzLockOpsDecode: a locks body decodes to ops of known kinds with
// their fields in range, or to a 4xx refusal; never a panic.
func FuzzLockOpsDecode(f *testing.F) {
	f.Add([]byte(`{"operations":[{"op":"acquire","name":"a","ttlSeconds":30,"owner":"o","limit":3},{"op":"release","name":"b","token":9,"slot":1}]}`))
	f.Add([]byte(`{"operations":[{"op":"renew","name":"a","token":1e400,"ttlSeconds":1}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ops, err := fuzzDecode(t, body, decodeLockOps, refusalOK)
		if err != nil {
			return
		}
		if len(ops) > MaxLockOps {
			t.Fatalf("%d ops let through", len(ops))
		}
		for i, o := range ops {
			bad := o.Name == "" || o.Limit < 1 || o.Limit > 1024 || o.Slot < 0 || o.Slot > 1023
			switch o.Op {
			case "acquire":
				bad = bad || o.TTLSeconds < 1
			case "renew":
				bad = bad || o.TTLSeconds < 1 || o.Token < 1
			case "release":
				bad = bad || o.Token < 1
			case "get":
			default:
				bad = true
			}
			if bad {
				t.Fatalf("op %d: %+v was let through", i, o)
			}
		}
	})
}

// FuzzTimerOpsDecode: timer ops decode with their names valid, a
// schedule's payload one JSON value of at most 1 MiB and its delay within
// the horizon, or to a 4xx refusal; never a panic.
func FuzzTimerOpsDecode(f *testing.F) {
	f.Add([]byte(`[{"op":"schedule","queue":"q","timerKey":"k/1","delayMs":5,"txn":"x","payload":"eyJhIjoxfQ=="}]`))
	f.Add([]byte(`[{"op":"schedule","queue":"q","timerKey":"z","delayMs":-1,"payload":"KLUv/SACEQAAMQ==","payloadZstd":true},{"op":"cancel","queue":"q","timerKey":"k"}]`))
	f.Add([]byte(`[{"op":"schedule","queue":"q","timerKey":"k","delayMs":1,"payload":"e30=","messageId":"m"}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ops, err := fuzzDecode(t, body, func(b []byte) ([]TimerOp, error) { return decodeTimerOps(b, "operations", 0) }, refusalOK)
		if err != nil {
			var e *Error
			if errors.As(err, &e) && e.Status == http.StatusInternalServerError {
				t.Fatal("a 500")
			}
			return
		}
		for i, o := range ops {
			if contract.Queue.Check("", o.Queue) != nil || contract.TimerKey.Check("", o.TimerKey) != nil ||
				contract.TransactionID.Check("", o.Txn) != nil {
				t.Fatalf("op %d: names of %+v let through", i, o)
			}
			if o.Op == "cancel" {
				continue
			}
			if !json.Valid(o.Payload) || len(o.Payload) > MaxTimerPayloadBytes || o.DelayMs > DefaultTimerHorizon.Milliseconds() ||
				contract.Partition.Check("", o.Partition) != nil || o.Txn == "" {
				t.Fatalf("op %d: %+v was let through", i, o)
			}
		}
	})
}
