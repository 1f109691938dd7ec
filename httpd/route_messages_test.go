package httpd

import (
	"context"
	"net/http"
	"testing"
)

func TestMessagesQuery(t *testing.T) {
	def := func(f func(*MessagesQuery)) MessagesQuery {
		q := MessagesQuery{Queue: "q", Limit: DefaultMessagesLimit}
		f(&q)
		return q
	}
	cases := []struct {
		name, query string
		want        MessagesQuery
	}{
		{"defaults", "?queue=q", def(func(*MessagesQuery) {})},
		{"all given", "?queue=q&partition=eu%20west%2F1&namespace=n&task=t&status=processing&limit=1000&offset=40" +
			"&from=2025-09-22T10:15:30.000001Z&to=2025-09-22T12:16:30%2B02:00",
			def(func(q *MessagesQuery) {
				q.Partition, q.Namespace, q.Task, q.Status = "eu west/1", "n", "t", MessageProcessing
				q.Limit, q.Offset, q.From, q.To = 1000, 40, 1_758_536_130_000_001, 1_758_536_190_000_000
			})},
		{"namespace alone", "?namespace=n&limit=1", MessagesQuery{Namespace: "n", Limit: 1}},
		{"task alone", "?task=t&status=dlq", MessagesQuery{Task: "t", Status: MessageDLQ, Limit: DefaultMessagesLimit}},
		{"pending", "?queue=q&status=pending", def(func(q *MessagesQuery) { q.Status = MessagePending })},
		{"completed", "?queue=q&status=completed", def(func(q *MessagesQuery) { q.Status = MessageCompleted })},
		{"empty values are absent", "?queue=q&status=&limit=&offset=&from=&to=", def(func(*MessagesQuery) {})},
		{"a date", "?queue=q&from=2025-09-22", def(func(q *MessagesQuery) { q.From = 1_758_499_200_000_000 })},
		{"before the epoch", "?queue=q&from=1969-01-01&to=1969-06-01", def(func(q *MessagesQuery) { q.To = 1 })},
		{"empty range", "?queue=q&from=2025-09-22&to=2025-09-22",
			def(func(q *MessagesQuery) { q.From, q.To = 1_758_499_200_000_000, 1_758_499_200_000_000 })},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil, Options{})
			w := e.do(t, "GET", "/api/v1/messages"+c.query, "")
			wantStatus(t, w, http.StatusOK)
			e.fb.wantCall(t, "Messages", c.want)
		})
	}
}

func TestMessagesRefusals(t *testing.T) {
	wantQueryRefusals(t, "/api/v1/messages", []queryRefusal{
		{"nothing", "", "queue, namespace or task is required"},
		{"partition alone", "?partition=p&status=pending", "queue, namespace or task is required"},
		{"empty names", "?queue=&namespace=&task=", "queue, namespace or task is required"},
		{"status", "?queue=q&status=done", `status "done" must be pending, processing, completed or dlq`},
		{"status case", "?queue=q&status=Pending", `status "Pending" must be pending, processing, completed or dlq`},
		{"limit 0", "?queue=q&limit=0", `limit "0" is outside 1..1000`},
		{"limit over", "?queue=q&limit=1001", `limit "1001" is outside 1..1000`},
		{"limit not a number", "?queue=q&limit=all", `limit "all" must be an integer`},
		{"offset negative", "?queue=q&offset=-1", `offset "-1" is outside 0..9007199254740991`},
		{"offset beyond int64", "?queue=q&offset=99999999999999999999", `offset "99999999999999999999" is outside 0..9007199254740991`},
		{"offset not a number", "?queue=q&offset=1.5", `offset "1.5" must be an integer`},
		{"from", "?queue=q&from=yesterday", `from "yesterday" must be an ISO-8601 time`},
		{"to epoch ms", "?queue=q&to=1758536130000", `to "1758536130000" must be an ISO-8601 time`},
		{"from after to", "?queue=q&from=2025-09-23&to=2025-09-22", `from "2025-09-23" is after to "2025-09-22"`},
		{"malformed", "?queue=%zz", "the query string is malformed"},
	})
}

// TestMessagesAnswer: the page, byte for byte, with the limit and offset
// it was asked with; payloads as stored (null when empty).
func TestMessagesAnswer(t *testing.T) {
	fb := &fakeBroker{messages: func(context.Context, string, MessagesQuery) ([]MessageInfo, error) {
		return []MessageInfo{
			{ID: [16]byte{0x01, 0x99, 0x71, 0x8d, 0x1e, 0x2b, 0x7c, 0xc4, 0x9a, 0x3b, 0x6a, 0x4b, 0x1f, 0x0c, 0x2d, 0x3e},
				TransactionID: `t"1`, Queue: "q", Partition: "eu west/1", PartitionID: "17", Offset: 41,
				Data: []byte(`[1, 2.50 ,"\u00e9"]`), CreatedAt: 1_758_536_130_000_001, Status: MessageProcessing},
			{TransactionID: "t2", Queue: "q", Partition: "Default", PartitionID: "3", Offset: 0, Status: MessagePending},
		}, nil
	}}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "GET", "/api/v1/messages?queue=q&limit=2&offset=40", "")
	want := `{"messages":[` +
		`{"id":"0199718d-1e2b-7cc4-9a3b-6a4b1f0c2d3e","transactionId":"t\"1","queue":"q","partition":"eu west/1",` +
		`"partitionId":"17","offset":41,"data":[1, 2.50 ,"\u00e9"],"createdAt":"2025-09-22T10:15:30.000001Z",` +
		`"status":"processing"},` +
		`{"id":"00000000-0000-0000-0000-000000000000","transactionId":"t2","queue":"q","partition":"Default",` +
		`"partitionId":"3","offset":0,"data":null,"createdAt":"1970-01-01T00:00:00.000000Z","status":"pending"}],` +
		`"limit":2,"offset":40}` + "\n"
	wantBody(t, w, http.StatusOK, want)

	e = newEnv(t, nil, Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/messages?task=t", ""), http.StatusOK, `{"messages":[],"limit":200,"offset":0}`)
}

// TestAdminHead: the admin reads answer HEAD as GET does (net/http drops
// the body).
func TestAdminHead(t *testing.T) {
	for _, target := range []string{"/api/v1/consumer-groups", "/api/v1/consumer-groups/lagging", "/api/v1/dlq",
		"/api/v1/messages?queue=q"} {
		e := newEnv(t, nil, Options{})
		w := e.do(t, "HEAD", target, "")
		wantStatus(t, w, http.StatusOK)
		if m := e.fb.only(t).method; m == "" {
			t.Fatalf("%s: no broker call", target)
		}
	}
}

func TestMessageByID(t *testing.T) {
	e := newEnv(t, nil, Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/messages/7/t/1", ""), http.StatusOK,
		`{"id":"01000000-0000-0000-0000-000000000000","transactionId":"t/1","queue":"q","partition":"p","partitionId":"7","offset":3,`+
			`"data":{"a":1.50},"createdAt":"2025-09-22T10:15:30.000001Z","status":"dlq",`+
			`"consumerGroups":[{"consumerGroup":"__QUEUE_MODE__","status":"dlq"},{"consumerGroup":"g","status":"pending"}],"deadLetters":["d1"]}`)
	e.fb.wantCall(t, "Message", "7 t/1")
	for _, c := range []struct {
		target string
		status int
		code   string
	}{
		{"/api/v1/messages/7/other", http.StatusNotFound, CodeNotFound},
		{"/api/v1/messages/x7/t", http.StatusBadRequest, CodeBadRequest},
		{"/api/v1/messages/7/", http.StatusBadRequest, CodeBadRequest},
	} {
		e := newEnv(t, nil, Options{})
		wantError(t, e.do(t, "GET", c.target, ""), c.status, c.code, "")
	}
}

func TestRetryMessage(t *testing.T) {
	e := newEnv(t, nil, Options{})
	wantJSON(t, e.do(t, "POST", "/api/v1/messages/7/t/1/retry", "{}"), http.StatusOK,
		`{"success":true,"retried":1,"results":[{"id":"d1","verdict":"moved","queue":"q","partition":"p"}]}`)
	e.fb.wantCall(t, "RetryMessage", "7 t/1")
	for _, c := range []struct {
		target, want string
		code         string
	}{
		{"/api/v1/messages/8/none/retry", "in no dead-letter queue", CodeNotFound},
		{"/api/v1/messages/9/t/retry", "no message", CodeNotFound},
		{"/api/v1/messages/7/t/1/dlq", "", CodeNoSuchRoute},
	} {
		e := newEnv(t, nil, Options{})
		wantError(t, e.do(t, "POST", c.target, "{}"), http.StatusNotFound, c.code, c.want)
	}
}

func TestDeleteMessage(t *testing.T) {
	e := newEnv(t, nil, Options{})
	wantJSON(t, e.do(t, "DELETE", "/api/v1/messages/7/t/1", ""), http.StatusOK,
		`{"deleted":true,"transactionId":"t/1","partitionId":"7","queue":"q","partition":"p","offset":3}`)
	e.fb.wantCall(t, "DeleteMessage", "7 t/1")
	e = newEnv(t, nil, Options{})
	wantError(t, e.do(t, "DELETE", "/api/v1/messages/7/other", ""), http.StatusNotFound, CodeNotFound, "no message")
	e = newEnv(t, nil, Options{})
	wantError(t, e.do(t, "DELETE", "/api/v1/messages/x/t", ""), http.StatusBadRequest, CodeBadRequest, "decimal digits")
}
