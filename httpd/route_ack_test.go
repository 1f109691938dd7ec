package httpd

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestAckItem(t *testing.T) {
	def := func(f func(*AckItem)) AckItem {
		it := AckItem{TransactionID: "t", PartitionID: "12", ConsumerGroup: QueueModeGroup, Status: AckCompleted}
		if f != nil {
			f(&it)
		}
		return it
	}
	cases := []struct {
		name, body string
		want       AckItem
	}{
		{"defaults", `{"transactionId":"t","partitionId":"12"}`, def(nil)},
		{"nulls are absent", `{"transactionId":"t","partitionId":"12","consumerGroup":null,"leaseId":null,"status":null,"error":null}`, def(nil)},
		{"all given", `{"transactionId":"t","partitionId":"12","consumerGroup":"g","leaseId":"l","status":"failed","error":"boom"}`,
			def(func(it *AckItem) { it.ConsumerGroup, it.LeaseID, it.Status, it.Error = "g", "l", AckFailed, "boom" })},
		{"empty group is the queue's", `{"transactionId":"t","partitionId":"12","consumerGroup":""}`, def(nil)},
		{"retry", `{"transactionId":"t","partitionId":"12","status":"retry"}`, def(func(it *AckItem) { it.Status = AckRetry })},
		{"dlq", `{"transactionId":"t","partitionId":"12","status":"dlq"}`, def(func(it *AckItem) { it.Status = AckDLQ })},
		{"completed", `{"transactionId":"t","partitionId":"12","status":"completed"}`, def(nil)},
		{"unknown status is completed", `{"transactionId":"t","partitionId":"12","status":"FAILED"}`, def(nil)},
		{"empty status is completed", `{"transactionId":"t","partitionId":"12","status":""}`, def(nil)},
		{"partitionId a number", `{"transactionId":"t","partitionId":12}`, def(nil)},
		{"partitionId 12.0", `{"transactionId":"t","partitionId":12.0}`, def(nil)},
		{"partitionId 1.2e1", `{"transactionId":"t","partitionId":1.2e1}`, def(nil)},
		{"partitionId leading zeros", `{"transactionId":"t","partitionId":"0012"}`, def(nil)},
		{"partitionId 0", `{"transactionId":"t","partitionId":"000"}`, def(func(it *AckItem) { it.PartitionID = "0" })},
		{"partitionId uint64 max", `{"transactionId":"t","partitionId":18446744073709551615}`,
			def(func(it *AckItem) { it.PartitionID = "18446744073709551615" })},
		{"partitionId long digits", `{"transactionId":"t","partitionId":"123456789012345678901234567890"}`,
			def(func(it *AckItem) { it.PartitionID = "123456789012345678901234567890" })},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil, Options{})
			wantStatus(t, e.do(t, "POST", "/api/v1/ack", c.body), http.StatusOK)
			e.fb.wantCall(t, "Ack", []AckItem{c.want})
		})
	}
}

func TestAckRefusals(t *testing.T) {
	wantRefusals(t, "POST", "/api/v1/ack", []refusalCase{
		{"empty body", ``, CodeBadBody, "the body is empty"},
		{"malformed", `{"transactionId":`, CodeBadBody, "not JSON"},
		{"an array", `[{"transactionId":"t","partitionId":"1"}]`, CodeBadRequest, "the body must be an object"},
		{"no transactionId", `{"partitionId":"1"}`, CodeBadRequest, "transactionId is required"},
		{"empty transactionId", `{"transactionId":"","partitionId":"1"}`, CodeBadRequest, "transactionId is required"},
		{"transactionId a number", `{"transactionId":5,"partitionId":"1"}`, CodeBadRequest, "transactionId must be a string"},
		{"no partitionId", `{"transactionId":"t"}`, CodeBadRequest, "partitionId is required"},
		{"null partitionId", `{"transactionId":"t","partitionId":null}`, CodeBadRequest, "partitionId is required"},
		{"empty partitionId", `{"transactionId":"t","partitionId":""}`, CodeBadRequest, `partitionId "" must be a string of decimal digits`},
		{"partitionId a name", `{"transactionId":"t","partitionId":"Default"}`, CodeBadRequest, `partitionId "Default" must be`},
		{"partitionId a uuid", `{"transactionId":"t","partitionId":"0199718d-1e2b"}`, CodeBadRequest, `partitionId "0199718d-1e2b" must be`},
		{"partitionId signed", `{"transactionId":"t","partitionId":"-1"}`, CodeBadRequest, `partitionId "-1" must be`},
		{"partitionId spaced", `{"transactionId":"t","partitionId":" 1"}`, CodeBadRequest, `partitionId " 1" must be`},
		{"partitionId negative", `{"transactionId":"t","partitionId":-1}`, CodeBadRequest, "partitionId -1 must be a string of decimal digits or a non-negative integer"},
		{"partitionId a fraction", `{"transactionId":"t","partitionId":1.5}`, CodeBadRequest, "partitionId 1.5 must be"},
		{"partitionId huge", `{"transactionId":"t","partitionId":1e30}`, CodeBadRequest, "partitionId 1e30 must be"},
		{"partitionId a bool", `{"transactionId":"t","partitionId":true}`, CodeBadRequest, "partitionId true must be"},
		{"status a number", `{"transactionId":"t","partitionId":"1","status":1}`, CodeBadRequest, "status must be a string"},
		{"consumerGroup a number", `{"transactionId":"t","partitionId":"1","consumerGroup":1}`, CodeBadRequest, "consumerGroup must be a string"},
		{"leaseId an object", `{"transactionId":"t","partitionId":"1","leaseId":{}}`, CodeBadRequest, "leaseId must be a string"},
		{"error a bool", `{"transactionId":"t","partitionId":"1","error":false}`, CodeBadRequest, "error must be a string"},
	})
}

// TestAckAnswer: the single ack answers an array of one, byte for byte.
func TestAckAnswer(t *testing.T) {
	cases := []struct {
		res  AckResult
		want string
	}{
		{AckResult{Index: 0, TransactionID: "t", Success: true, LeaseReleased: true},
			`[{"index":0,"transactionId":"t<1>","success":true,"error":null,"leaseReleased":true,"dlq":false}]`},
		{AckResult{Error: "lease lease-1 is not held"},
			`[{"index":0,"transactionId":"t<1>","success":false,"error":"lease lease-1 is not held","leaseReleased":false,"dlq":false}]`},
		{AckResult{Success: true, DLQ: true},
			`[{"index":0,"transactionId":"t<1>","success":true,"error":null,"leaseReleased":false,"dlq":true}]`},
		{AckResult{Success: true, Noop: true},
			`[{"index":0,"transactionId":"t<1>","success":true,"error":null,"leaseReleased":false,"dlq":false,"noop":true}]`},
	}
	for _, c := range cases {
		fb := &fakeBroker{ack: func(context.Context, string, []AckItem) ([]AckResult, error) { return []AckResult{c.res}, nil }}
		e := newEnv(t, fb, Options{})
		w := e.do(t, "POST", "/api/v1/ack", `{"transactionId":"t<1>","partitionId":"1","status":"dlq"}`)
		wantBody(t, w, http.StatusOK, c.want+"\n")
		if ct := w.Header().Get("Content-Type"); ct != "application/json" {
			t.Fatalf("Content-Type = %q", ct)
		}
	}
}

// TestAckBatch: items in order, an item's consumerGroup over the body's,
// answered by request position.
func TestAckBatch(t *testing.T) {
	fb := &fakeBroker{ack: func(_ context.Context, _ string, items []AckItem) ([]AckResult, error) {
		return []AckResult{
			{Index: 0, TransactionID: items[0].TransactionID, Success: true},
			{Index: 1, TransactionID: items[1].TransactionID, Error: "lease mismatch"},
			{Index: 2, TransactionID: items[2].TransactionID, Success: true, LeaseReleased: true, DLQ: true},
		}, nil
	}}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "POST", "/api/v1/ack/batch", `{"consumerGroup":"top","acknowledgments":[
		{"transactionId":"a","partitionId":"1","consumerGroup":"own"},
		{"transactionId":"b","partitionId":2,"leaseId":"l","status":"retry"},
		{"transactionId":"c","partitionId":"3","consumerGroup":"","status":"dlq","error":"bad"}]}`)
	wantJSON(t, w, http.StatusOK, `[
		{"index":0,"transactionId":"a","success":true,"error":null,"leaseReleased":false,"dlq":false},
		{"index":1,"transactionId":"b","success":false,"error":"lease mismatch","leaseReleased":false,"dlq":false},
		{"index":2,"transactionId":"c","success":true,"error":null,"leaseReleased":true,"dlq":true}]`)
	want := []AckItem{
		{TransactionID: "a", PartitionID: "1", ConsumerGroup: "own", Status: AckCompleted},
		{TransactionID: "b", PartitionID: "2", ConsumerGroup: "top", LeaseID: "l", Status: AckRetry},
		{TransactionID: "c", PartitionID: "3", ConsumerGroup: "top", Status: AckDLQ, Error: "bad"},
	}
	if got := fb.only(t); !reflect.DeepEqual(got.arg, want) {
		t.Fatalf("broker got %+v, want %+v", got.arg, want)
	}
}

func TestAckBatchQueueMode(t *testing.T) {
	e := newEnv(t, nil, Options{})
	w := e.do(t, "POST", "/api/v1/ack/batch", `{"consumerGroup":null,"acknowledgments":[{"transactionId":"a","partitionId":"1"}]}`)
	wantJSON(t, w, http.StatusOK, `[{"index":0,"transactionId":"a","success":true,"error":null,"leaseReleased":false,"dlq":false}]`)
	want := []AckItem{{TransactionID: "a", PartitionID: "1", ConsumerGroup: QueueModeGroup, Status: AckCompleted}}
	if got := e.fb.only(t); !reflect.DeepEqual(got.arg, want) {
		t.Fatalf("broker got %+v, want %+v", got.arg, want)
	}
}

func TestAckBatchRefusals(t *testing.T) {
	item := `{"transactionId":"t","partitionId":"1"}`
	many := `{"acknowledgments":[` + strings.TrimSuffix(strings.Repeat(item+",", MaxAckBatch+1), ",") + `]}`
	wantRefusals(t, "POST", "/api/v1/ack/batch", []refusalCase{
		{"empty body", ``, CodeBadBody, "the body is empty"},
		{"a bare array", `[` + item + `]`, CodeBadRequest, "the body must be an object"},
		{"no acknowledgments", `{}`, CodeBadRequest, "acknowledgments is required"},
		{"null acknowledgments", `{"acknowledgments":null}`, CodeBadRequest, "acknowledgments is required"},
		{"acknowledgments an object", `{"acknowledgments":` + item + `}`, CodeBadRequest, "acknowledgments must be an array"},
		{"empty acknowledgments", `{"acknowledgments":[]}`, CodeBadRequest, "acknowledgments is empty"},
		{"too many", many, CodeBadRequest, "acknowledgments has 10001 items, at most 10000"},
		{"item a string", `{"acknowledgments":[` + item + `,"t"]}`, CodeBadRequest, "acknowledgments[1] must be an object"},
		{"item without transactionId", `{"acknowledgments":[` + item + `,{"partitionId":"1"}]}`, CodeBadRequest,
			"acknowledgments[1].transactionId is required"},
		{"item with a bad partitionId", `{"acknowledgments":[` + item + `,{"transactionId":"t","partitionId":"p"}]}`, CodeBadRequest,
			`acknowledgments[1].partitionId "p" must be a string of decimal digits`},
		{"item with a bad status", `{"acknowledgments":[{"transactionId":"t","partitionId":"1","status":false}]}`, CodeBadRequest,
			"acknowledgments[0].status must be a string"},
		{"top consumerGroup", `{"consumerGroup":5,"acknowledgments":[` + item + `]}`, CodeBadRequest, "consumerGroup must be a string"},
	})
}

func TestAckBatchMax(t *testing.T) {
	item := `{"transactionId":"t","partitionId":"1"}`
	body := `{"acknowledgments":[` + strings.TrimSuffix(strings.Repeat(item+",", MaxAckBatch), ",") + `]}`
	e := newEnv(t, nil, Options{})
	wantStatus(t, e.do(t, "POST", "/api/v1/ack/batch", body), http.StatusOK)
	if n := len(e.fb.only(t).arg.([]AckItem)); n != MaxAckBatch {
		t.Fatalf("broker got %d items", n)
	}
}

func TestAckBrokerAnswersOtherCount(t *testing.T) {
	for _, n := range []int{0, 2} {
		fb := &fakeBroker{ack: func(context.Context, string, []AckItem) ([]AckResult, error) { return make([]AckResult, n), nil }}
		e := newEnv(t, fb, Options{})
		wantError(t, e.do(t, "POST", "/api/v1/ack", `{"transactionId":"t","partitionId":"1"}`),
			http.StatusInternalServerError, CodeInternal, "")
		if !strings.Contains(e.log.String(), fmt.Sprintf("broker answered %d ack results for 1 items", n)) {
			t.Fatalf("log = %q", e.log)
		}
	}
}

func TestExtend(t *testing.T) {
	cases := []struct {
		name, target string
		ans          *ExtendAnswer // nil: the fake's default
		wantID       string
		want         string
	}{
		{"renewed", "/api/v1/lease/lease-1/extend", nil, "lease-1",
			`{"success":true,"leaseId":"lease-1","renewed":1,"expiresAt":"2025-09-22T10:15:30.000001Z"}`},
		{"unknown lease", "/api/v1/lease/gone/extend", &ExtendAnswer{}, "gone",
			`{"success":false,"leaseId":"gone","renewed":0,"expiresAt":null}`},
		{"escaped lease id", "/api/v1/lease/a%2Bb%3Dc/extend", &ExtendAnswer{LeaseID: "a+b=c", Renewed: 3, Success: true,
			ExpiresAt: 1_758_536_130_123_400}, "a+b=c",
			`{"success":true,"leaseId":"a+b=c","renewed":3,"expiresAt":"2025-09-22T10:15:30.123400Z"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fb := &fakeBroker{}
			if c.ans != nil {
				fb.extend = func(context.Context, string, string, int) (ExtendAnswer, error) { return *c.ans, nil }
			}
			e := newEnv(t, fb, Options{})
			w := e.do(t, "POST", c.target, `{"seconds":30}`)
			wantBody(t, w, http.StatusOK, c.want+"\n")
			got := fb.only(t)
			if want := (extendArg{c.wantID, 30}); got.method != "ExtendLease" || got.tenant != DefaultTenant || got.arg != want {
				t.Fatalf("broker got %s %s %+v, want ExtendLease %+v", got.method, got.tenant, got.arg, want)
			}
		})
	}
}

// TestExtendOwnLength: no body, white space, {} and seconds null extend by
// the lease's own length (seconds 0 to the broker): the official client
// sends {}.
func TestExtendOwnLength(t *testing.T) {
	for _, body := range []string{``, " \n", `{}`, `{"seconds":null}`} {
		fb := &fakeBroker{}
		e := newEnv(t, fb, Options{})
		wantStatus(t, e.do(t, "POST", "/api/v1/lease/l/extend", body), http.StatusOK)
		if got := fb.only(t); got.arg != (extendArg{"l", 0}) {
			t.Fatalf("body %q: broker got %+v, want seconds 0", body, got.arg)
		}
	}
}

func TestExtendRefusals(t *testing.T) {
	wantRefusals(t, "POST", "/api/v1/lease/l/extend", []refusalCase{
		{"malformed", `{"seconds":`, CodeBadBody, "not JSON"},
		{"not an object", `30`, CodeBadRequest, "the body must be an object"},
		{"zero", `{"seconds":0}`, CodeBadRequest, "seconds 0 is outside 1..604800 s"},
		{"negative", `{"seconds":-3}`, CodeBadRequest, "seconds -3 is outside 1..604800 s"},
		{"a string", `{"seconds":"30"}`, CodeBadRequest, `seconds "30" must be an integer in 1..604800 s`},
		{"a fraction", `{"seconds":1.5}`, CodeBadRequest, "seconds 1.5 must be an integer in 1..604800 s"},
	})
}

// TestConsumeUnavailable: the broker's unknown-outcome errors are 503 with
// their code and Retry-After: 1 on the consuming routes too (TestUnavailable
// covers every kind), and a broker *Error is answered as it says.
func TestConsumeUnavailable(t *testing.T) {
	refused := &Error{Status: http.StatusNotFound, Code: CodeQueueNotFound, Message: "queue q not found"}
	for _, r := range []struct{ method, target, body string }{
		{"GET", "/api/v1/pop/queue/q?wait=true", ""},
		{"POST", "/api/v1/ack", `{"transactionId":"t","partitionId":"1"}`},
		{"POST", "/api/v1/lease/l/extend", `{"seconds":5}`},
	} {
		e := failEnv(t, fmt.Errorf("propose: %w", ErrTimeout), Options{})
		w := e.do(t, r.method, r.target, r.body)
		wantError(t, w, http.StatusServiceUnavailable, CodeTimeout, "deadline")
		if ra := w.Header().Get("Retry-After"); ra != "1" {
			t.Fatalf("%s %s: Retry-After = %q", r.method, r.target, ra)
		}
		e = failEnv(t, refused, Options{})
		wantJSON(t, e.do(t, r.method, r.target, r.body), http.StatusNotFound, `{"error":"queue q not found","code":"queue_not_found"}`)
	}
}
