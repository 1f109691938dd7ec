package httpd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/queen-mq/queen-go/contract"
)

// txnArg returns the TxnRequest the broker got, checked for the ids httpd
// mints (a UUIDv7 per pushed item; its text as the transactionId of an
// item that sent none) and then cleared of them, so tests can compare it.
func txnArg(t *testing.T, fb *fakeBroker, tenant string) TxnRequest {
	t.Helper()
	c := fb.only(t)
	if c.method != "Transaction" || c.tenant != tenant {
		t.Fatalf("broker got %s for %s, want Transaction for %s", c.method, c.tenant, tenant)
	}
	req := c.arg.(TxnRequest)
	for i := range req.Pushes {
		it := &req.Pushes[i].Item
		id := uuid.UUID(it.MessageID)
		if id.Version() != 7 {
			t.Fatalf("push %d: message id %s is not a UUIDv7", i, id)
		}
		if !it.Dedup {
			if it.TransactionID != id.String() {
				t.Fatalf("push %d: transactionId %q, want its message id %s", i, it.TransactionID, id)
			}
			it.TransactionID = ""
		}
		it.MessageID = [16]byte{}
	}
	return req
}

func pushOf(op int, queue, partition, payload, txn string) TxnPush {
	return TxnPush{OpIndex: op, Item: PushItem{Queue: queue, Partition: partition, TransactionID: txn,
		Dedup: txn != "", Payload: []byte(payload)}}
}

// traced is p with the trace id id.
func traced(p TxnPush, id string) TxnPush {
	p.Item.TraceID = uuid.MustParse(id)
	return p
}

func ackOf(op int, txn, partitionID, lease string) TxnAck {
	return TxnAck{OpIndex: op, Item: AckItem{TransactionID: txn, PartitionID: partitionID,
		ConsumerGroup: QueueModeGroup, LeaseID: lease, Status: AckCompleted}}
}

func TestTxnDecode(t *testing.T) {
	cases := []struct {
		name, body string
		want       TxnRequest
	}{
		{"inline push", `{"operations":[{"type":"push","queue":"q","payload": 42.00 ,"traceId":"f5881e23-fde4-44d2-97fe-e45776f93a42"}]}`,
			TxnRequest{Pushes: []TxnPush{traced(pushOf(0, "q", "Default", "42.00", ""), "f5881e23-fde4-44d2-97fe-e45776f93a42")}}},
		{"inline push with everything", `{"operations":[{"type":"push","queue":"q","partition":"p","payload":{ "a" : [1, 2.50] },
			"transactionId":"t-1","traceId":null,"items":null,"other":[1]}]}`,
			TxnRequest{Pushes: []TxnPush{pushOf(0, "q", "p", `{ "a" : [1, 2.50] }`, "t-1")}}},
		{"inline push, null payload and empty partition", `{"operations":[{"type":"push","queue":"q","partition":"","payload":null,"transactionId":""}]}`,
			TxnRequest{Pushes: []TxnPush{pushOf(0, "q", "Default", "null", "")}}},
		{"items push after an ack", `{"operations":[
			{"type":"ack","transactionId":"m","partitionId":"3"},
			{"type":"push","items":[{"queue":"q","payload":1,"transactionId":"a","traceId":null},{"queue":"r","partition":"p","payload":"x"}]},
			{"type":"push","queue":"s","payload":[]}]}`,
			TxnRequest{
				Pushes: []TxnPush{pushOf(1, "q", "Default", "1", "a"), pushOf(1, "r", "p", `"x"`, ""), pushOf(2, "s", "Default", "[]", "")},
				Acks:   []TxnAck{ackOf(0, "m", "3", "")},
			}},
		{"ack with every field", `{"operations":[{"type":"ack","transactionId":"m","partitionId":12.0,"consumerGroup":"g",
			"leaseId":"L","status":"failed","error":"boom"}]}`,
			TxnRequest{Acks: []TxnAck{{OpIndex: 0, Item: AckItem{TransactionID: "m", PartitionID: "12", ConsumerGroup: "g",
				LeaseID: "L", Status: AckFailed, Error: "boom"}}}}},
		{"ack defaults", `{"operations":[{"type":"ack","transactionId":"m","partitionId":"007","consumerGroup":"","status":"weird","leaseId":null}]}`,
			TxnRequest{Acks: []TxnAck{ackOf(0, "m", "7", "")}}},
		{"own lease wins over the single required one", `{"requiredLeases":["R"],"operations":[
			{"type":"ack","transactionId":"a","partitionId":"1","leaseId":"own"},
			{"type":"ack","transactionId":"b","partitionId":"1"}]}`,
			TxnRequest{RequiredLeases: []string{"R"}, Acks: []TxnAck{ackOf(0, "a", "1", "own"), ackOf(1, "b", "1", "")}}},
		{"the single required lease applies", `{"requiredLeases":["R","R"],"operations":[
			{"type":"ack","transactionId":"a","partitionId":"1"},
			{"type":"ack","transactionId":"b","partitionId":"2","leaseId":"R"}]}`,
			TxnRequest{RequiredLeases: []string{"R", "R"}, Acks: []TxnAck{ackOf(0, "a", "1", "R"), ackOf(1, "b", "2", "R")}}},
		{"another ack's lease applies", `{"operations":[
			{"type":"ack","transactionId":"a","partitionId":"1"},
			{"type":"ack","transactionId":"b","partitionId":"2","leaseId":"L"},
			{"type":"ack","transactionId":"c","partitionId":"3","leaseId":""}]}`,
			TxnRequest{Acks: []TxnAck{ackOf(0, "a", "1", "L"), ackOf(1, "b", "2", "L"), ackOf(2, "c", "3", "L")}}},
		{"two distinct leases leave the others unfenced", `{"requiredLeases":["R"],"operations":[
			{"type":"ack","transactionId":"a","partitionId":"1"},
			{"type":"ack","transactionId":"b","partitionId":"2","leaseId":"L"}]}`,
			TxnRequest{RequiredLeases: []string{"R"}, Acks: []TxnAck{ackOf(0, "a", "1", ""), ackOf(1, "b", "2", "L")}}},
		{"two required leases leave the acks unfenced", `{"requiredLeases":["R","S"],"operations":[
			{"type":"ack","transactionId":"a","partitionId":"1"}]}`,
			TxnRequest{RequiredLeases: []string{"R", "S"}, Acks: []TxnAck{ackOf(0, "a", "1", "")}}},
		{"no lease anywhere", `{"requiredLeases":[],"operations":[{"type":"ack","transactionId":"a","partitionId":"1"}]}`,
			TxnRequest{Acks: []TxnAck{ackOf(0, "a", "1", "")}}},
		{"kv only", `{"kv":[{"op":"put","namespace":"app","key":"k","value": { "n" : 1.50 },"ttlSeconds":30,"expect":0,"required":true},
			{"op":"getMany","ns":"app","keys":["a","b"]},{"op":"incr","ns":"app","key":"n","delta":0.10,"forever":true}]}`,
			TxnRequest{KV: []KVOp{
				{Op: "put", NS: "app", Key: "k", Value: json.RawMessage(`{ "n" : 1.50 }`), TTLSeconds: i64(30), Expect: i64(0), Required: true},
				{Op: "getMany", NS: "app", Keys: []string{"a", "b"}},
				{Op: "incr", NS: "app", Key: "n", Delta: "0.10", Forever: true},
			}}},
		{"empty timers and positions, unknown members", `{"operations":[{"type":"push","queue":"q","payload":1}],
			"timers":[],"positions":null,"kv":[],"future":{"x":1}}`,
			TxnRequest{Pushes: []TxnPush{pushOf(0, "q", "Default", "1", "")}}},
		{"requiredLeases with kv", `{"requiredLeases":["R"],"kv":[{"op":"check","ns":"a","key":"k","expect":3}]}`,
			TxnRequest{RequiredLeases: []string{"R"}, KV: []KVOp{{Op: "check", NS: "a", Key: "k", Expect: i64(3)}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil, Options{})
			wantStatus(t, e.do(t, "POST", "/api/v1/transaction", c.body), http.StatusOK)
			if got := txnArg(t, e.fb, DefaultTenant); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("broker got\n%#v\nwant\n%#v", got, c.want)
			}
		})
	}
}

func TestTxnTenant(t *testing.T) {
	const id = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
	e := newEnv(t, nil, Options{TenancyHeader: true})
	w := e.do(t, "POST", "/api/v1/transaction", `{"kv":[{"op":"get","ns":"a","key":"k"}]}`, TenantHeader, id)
	wantStatus(t, w, http.StatusOK)
	txnArg(t, e.fb, id)
}

func TestTxnRefusals(t *testing.T) {
	long := strings.Repeat("x", MaxTransactionIDBytes+1)
	push := `{"type":"push","queue":"q","payload":1}`
	cases := []struct {
		name, body   string
		status       int
		code, reason string // reason: a KV-shaped refusal
		msg          string // in the message (engine) or detail (KV)
	}{
		{"empty body", ``, 400, CodeBadBody, "", "the body is empty"},
		{"malformed", `{"operations":[`, 400, CodeBadBody, "", "not JSON"},
		{"an array", `[` + push + `]`, 400, CodeBadRequest, "", "the body must be an object"},
		{"empty", `{}`, 400, CodeBadRequest, "", "a transaction needs at least one operation"},
		{"empty arrays", `{"operations":[],"kv":[],"timers":[],"positions":[]}`, 400, CodeBadRequest, "", "a transaction needs at least one operation"},
		{"requiredLeases alone", `{"requiredLeases":["L"]}`, 400, CodeBadRequest, "", "a transaction needs at least one operation"},
		{"operations an object", `{"operations":` + push + `}`, 400, CodeBadRequest, "", "operations must be an array"},
		{"operation a string", `{"operations":[` + push + `,"push"]}`, 400, CodeBadRequest, "", "operations[1] must be an object"},
		{"no type", `{"operations":[{"queue":"q","payload":1}]}`, 400, CodeBadRequest, "", "operations[0].type is required"},
		{"type a number", `{"operations":[{"type":1}]}`, 400, CodeBadRequest, "", "operations[0].type must be a string"},
		{"unknown type", `{"operations":[` + push + `,{"type":"pop"}]}`, 400, CodeBadRequest, "", `operations[1].type "pop" must be push or ack`},
		{"type in other case", `{"operations":[{"type":"Push","queue":"q","payload":1}]}`, 400, CodeBadRequest, "", `operations[0].type "Push" must be`},
		{"inline without queue", `{"operations":[{"type":"push","payload":1}]}`, 400, CodeBadRequest, "", "operations[0].queue is required"},
		{"inline without payload", `{"operations":[{"type":"push","queue":"q"}]}`, 400, CodeBadRequest, "", "operations[0].payload is required"},
		{"inline partition a number", `{"operations":[{"type":"push","queue":"q","partition":1,"payload":1}]}`, 400, CodeBadRequest, "",
			"operations[0].partition must be a string"},
		{"inline transactionId too long", `{"operations":[{"type":"push","queue":"q","payload":1,"transactionId":"` + long + `"}]}`,
			400, CodeBadRequest, "", "operations[0].transactionId of 65536 bytes is over 65535"},
		{"inline transactionId control char", `{"operations":[{"type":"push","queue":"q","payload":1,"transactionId":"a\u0085"}]}`,
			400, CodeBadRequest, "", `operations[0].transactionId "a\u0085" holds the control character U+0085`},
		{"inline traceId a number", `{"operations":[{"type":"push","queue":"q","payload":1,"traceId":7}]}`, 400, CodeBadRequest, "",
			"operations[0].traceId must be a string"},
		{"items an object", `{"operations":[{"type":"push","items":{"queue":"q","payload":1}}]}`, 400, CodeBadRequest, "",
			"operations[0].items must be an array"},
		{"items empty", `{"operations":[{"type":"push","items":[]}]}`, 400, CodeBadRequest, "", "operations[0].items is empty"},
		{"item a number", `{"operations":[{"type":"push","items":[{"queue":"q","payload":1},2]}]}`, 400, CodeBadRequest, "",
			"operations[0].items[1] must be an object"},
		{"item without payload", `{"operations":[` + push + `,{"type":"push","items":[{"queue":"q"}]}]}`, 400, CodeBadRequest, "",
			"operations[1].items[0].payload is required"},
		{"item transactionId too long", `{"operations":[{"type":"push","items":[{"queue":"q","payload":1,"transactionId":"` + long + `"}]}]}`,
			400, CodeBadRequest, "", "operations[0].items[0].transactionId of 65536 bytes is over 65535"},
		{"items and an inline queue", `{"operations":[{"type":"push","queue":"q","items":[{"queue":"q","payload":1}]}]}`,
			400, CodeBadRequest, "", "operations[0] has both items and an inline queue"},
		{"items and an inline payload", `{"operations":[{"type":"push","payload":1,"items":[{"queue":"q","payload":1}]}]}`,
			400, CodeBadRequest, "", "operations[0] has both items and an inline payload"},
		{"ack without transactionId", `{"operations":[{"type":"ack","partitionId":"1"}]}`, 400, CodeBadRequest, "",
			"operations[0].transactionId is required"},
		{"ack without partitionId", `{"operations":[{"type":"ack","transactionId":"t"}]}`, 400, CodeBadRequest, "",
			"operations[0].partitionId is required"},
		{"ack partitionId a name", `{"operations":[{"type":"ack","transactionId":"t","partitionId":"Default"}]}`, 400, CodeBadRequest, "",
			`operations[0].partitionId "Default" must be a string of decimal digits`},
		{"ack partitionId negative", `{"operations":[{"type":"ack","transactionId":"t","partitionId":-1}]}`, 400, CodeBadRequest, "",
			"operations[0].partitionId -1 must be"},
		{"ack leaseId a number", `{"operations":[{"type":"ack","transactionId":"t","partitionId":"1","leaseId":1}]}`, 400, CodeBadRequest, "",
			"operations[0].leaseId must be a string"},
		{"ack status a bool", `{"operations":[{"type":"ack","transactionId":"t","partitionId":"1","status":true}]}`, 400, CodeBadRequest, "",
			"operations[0].status must be a string"},
		{"requiredLeases a string", `{"requiredLeases":"L","operations":[` + push + `]}`, 400, CodeBadRequest, "", "requiredLeases must be an array"},
		{"requiredLeases of numbers", `{"requiredLeases":["L",1],"operations":[` + push + `]}`, 400, CodeBadRequest, "",
			"requiredLeases[1] must be a string"},
		{"requiredLeases with null", `{"requiredLeases":[null],"operations":[` + push + `]}`, 400, CodeBadRequest, "",
			"requiredLeases[0] must be a string"},
		{"requiredLeases with an empty one", `{"requiredLeases":["L",""],"operations":[` + push + `]}`, 400, CodeBadRequest, "",
			"requiredLeases[1] is empty"},
		{"kv an object", `{"kv":{"op":"get","ns":"a","key":"k"}}`, 400, CodeBadRequest, "", "kv must be an array"},
		{"kv op a string", `{"kv":["get"]}`, 400, CodeBadRequest, "", "kv[0] must be an object"},
		{"kv getPrefix", `{"kv":[{"op":"get","ns":"a","key":"k"},{"op":"getPrefix","ns":"a","prefix":"p"}]}`, 400, CodeBadRequest, "",
			"kv[1]: getPrefix is not allowed in a transaction"},
		{"kv tenant", `{"kv":[{"op":"get","ns":"a","key":"k","tenant":"t"}]}`, 400, CodeKVBadRequest, ReasonKVTenantNotInput, "kv[0].tenant"},
		{"kv key a number", `{"kv":[{"op":"get","ns":"a","key":1}]}`, 400, CodeKVBadRequest, ReasonKVBadKey, "kv[0].key must be a string"},
		{"kv ttl a string", `{"kv":[{"op":"put","ns":"a","key":"k","value":1,"ttlSeconds":"5"}]}`, 400, CodeKVBadRequest, "kv_bad_ttl",
			`kv[0].ttlSeconds "5" must be an integer in`},
		{"kv ns and namespace differ", `{"kv":[{"op":"get","ns":"a","namespace":"b","key":"k"}]}`, 400, CodeKVBadRequest, ReasonKVBadNamespace,
			`kv[0]: ns "a" and namespace "b" differ`},
		{"timer without queue", `{"operations":[` + push + `],"timers":[{"op":"schedule"}]}`, 400, CodeBadRequest, "", "timers[0].queue is required"},
		{"timer op unknown", `{"timers":[{"op":"fire","queue":"q","timerKey":"k"}]}`, 400, CodeBadRequest, "", `timers[0].op "fire" is not a timer operation`},
		{"timer server-owned field", `{"timers":[{"op":"schedule","queue":"q","timerKey":"k","deliverAt":"2026-01-01T00:00:00Z"}]}`,
			400, CodeTimerServerOwned, "", "timers[0].deliverAt is the server's"},
		{"timer past the horizon", `{"timers":[{"op":"schedule","queue":"q","timerKey":"k","delayMs":7776000001,"payload":"e30="}]}`,
			403, CodeTimerHorizon, "", "timers[0].delayMs 7776000001 is past the horizon"},
		{"timer payload not base64", `{"timers":[{"op":"schedule","queue":"q","timerKey":"k","delayMs":1,"payload":"{}"}]}`,
			400, CodeBadRequest, "", "timers[0].payload is not base64"},
		{"timer payload not JSON", `{"timers":[{"op":"schedule","queue":"q","timerKey":"k","delayMs":1,"payload":"bm9wZQ=="}]}`,
			400, CodeBadRequest, "", "timers[0].payload must be base64 of one JSON value"},
		{"two ops on one timer", `{"timers":[{"op":"cancel","queue":"q","timerKey":"k"},{"op":"cancel","queue":"q","timerKey":"k"}]}`,
			400, CodeBadRequest, "", `timers[1]: timer "k" of queue "q" is in timers[0] already`},
		{"timers an object", `{"operations":[` + push + `],"timers":{}}`, 400, CodeBadRequest, "", "timers must be an array"},
		{"position without group", `{"kv":[{"op":"get","ns":"a","key":"k"}],"positions":[{"queue":"q"}]}`, 400, CodeBadRequest, "",
			"positions[0].consumerGroup is required"},
		{"position without offset", `{"positions":[{"queue":"q","consumerGroup":"g"}]}`, 400, CodeBadRequest, "",
			"positions[0].offset is required"},
		{"position offset below -1", `{"positions":[{"queue":"q","consumerGroup":"g","offset":-2}]}`, 400, CodeBadRequest, "",
			"positions[0].offset -2 is outside -1.."},
		{"position mode unknown", `{"positions":[{"queue":"q","consumerGroup":"g","offset":1,"subscriptionMode":"old"}]}`, 400, CodeBadRequest, "",
			`positions[0].subscriptionMode "old" is not new or all`},
		{"positions a number", `{"kv":[{"op":"get","ns":"a","key":"k"}],"positions":3}`, 400, CodeBadRequest, "", "positions must be an array"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil, Options{})
			w := e.do(t, "POST", "/api/v1/transaction", c.body)
			if c.reason != "" {
				b := wantKVError(t, w, c.status, c.code, c.reason)
				if !strings.Contains(b.Detail, c.msg) {
					t.Fatalf("detail = %q, want %q in it", b.Detail, c.msg)
				}
			} else {
				wantError(t, w, c.status, c.code, c.msg)
			}
			e.fb.none(t)
			if e.logLines() != 0 {
				t.Fatalf("log = %q", e.log)
			}
		})
	}
}

// kvOps is n kv ops, comma-separated: getMany ops of keys keys when
// keys > 0, else gets.
func kvOps(n, keys int) string {
	ops := make([]string, n)
	for i := range ops {
		if keys == 0 {
			ops[i] = fmt.Sprintf(`{"op":"get","ns":"a","key":"k%d"}`, i)
			continue
		}
		ks := make([]string, keys)
		for j := range ks {
			ks[j] = fmt.Sprintf(`"k%d.%d"`, i, j)
		}
		ops[i] = `{"op":"getMany","ns":"a","keys":[` + strings.Join(ks, ",") + `]}`
	}
	return strings.Join(ops, ",")
}

func TestTxnKVLimits(t *testing.T) {
	perOp := MaxTxnKVKeys / MaxTxnKVOps
	cases := []struct {
		name, kv string
		reason   string // "": accepted
		msg      string
	}{
		{"64 ops", kvOps(MaxTxnKVOps, 0), "", ""},
		{"65 ops", kvOps(MaxTxnKVOps+1, 0), ReasonKVTooManyOps, "kv has 65 ops, at most 64"},
		{"256 keys in 64 ops", kvOps(MaxTxnKVOps, perOp), "", ""},
		{"257 keys in 64 ops", kvOps(MaxTxnKVOps-1, perOp) + "," + kvOps(1, perOp+1), ReasonKVTooManyKeys,
			"kv names 257 keys, at most 256"},
		{"256 keys in 2 ops", kvOps(1, 0) + "," + kvOps(1, MaxTxnKVKeys-1), "", ""},
		{"257 keys in 2 ops", kvOps(1, 0) + "," + kvOps(1, MaxTxnKVKeys), ReasonKVTooManyKeys, "kv names 257 keys"},
		{"one getMany of 257", kvOps(1, MaxTxnKVKeys+1), ReasonKVTooManyKeys, "kv names 257 keys"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil, Options{})
			w := e.do(t, "POST", "/api/v1/transaction", `{"kv":[`+c.kv+`]}`)
			if c.reason == "" {
				wantStatus(t, w, http.StatusOK)
				if got, want := len(txnArg(t, e.fb, DefaultTenant).KV), strings.Count(c.kv, `"op"`); got != want {
					t.Fatalf("broker got %d kv ops, want %d", got, want)
				}
				return
			}
			b := wantKVError(t, w, http.StatusRequestEntityTooLarge, CodePayloadTooLarge, c.reason)
			if !strings.Contains(b.Detail, c.msg) {
				t.Fatalf("detail = %q, want %q in it", b.Detail, c.msg)
			}
			e.fb.none(t)
		})
	}
}

// TestTxnCommit: the committed answer byte for byte, and what the broker
// got, payload bytes and all.
func TestTxnCommit(t *testing.T) {
	m1 := uuid.MustParse("01890a5d-ac96-774b-bcce-b302099a8057")
	m3 := uuid.MustParse("01890a5d-ac96-774b-bcce-b302099a8058")
	var minted uuid.UUID
	fb := &fakeBroker{transaction: func(_ context.Context, _ string, req TxnRequest) (TxnAnswer, error) {
		minted = req.Pushes[1].Item.MessageID
		return TxnAnswer{TransactionID: "txn-9", Success: true, Results: []TxnResult{
			{Index: 0, Type: "push", TransactionID: "t-1", MessageID: m1, Queue: "q"},
			{Index: 1, Type: "ack", TransactionID: "m-1", DLQ: true},
			{Index: 2, Type: "push", TransactionID: "t-2", Queue: "r"}, // no message id: httpd's
			{Index: 2, Type: "push", TransactionID: "t-3", MessageID: m3, Queue: "r<&>", Duplicate: true},
			{Index: 3, Type: "kv", OpIndex: 0, KV: rawAnswer(`{"index":0,"op":"put","applied":true,"key":"k","value":1,"version":5}`)},
			{Index: 4, Type: "kv", OpIndex: 1, KV: rawAnswer(` {"index":1, "op":"get","found":true,"key":"k\u00e9","value": { "n" : 42.00 } ,"version":5,"expiresAt":null,"type":"x","opIndex":7} `)},
			{Index: 5, Type: "kv", OpIndex: 2, KV: rawAnswer(`{}`)},
		}}, nil
	}}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "POST", "/api/v1/transaction", `{"requiredLeases":["L"],"operations":[
		{"type":"push","queue":"q","partition":"p","payload": 42.00,"transactionId":"t-1","traceId":null},
		{"type":"ack","transactionId":"m-1","partitionId":"7"},
		{"type":"push","items":[{"queue":"r","payload":{ "a" : 1.50 },"transactionId":"t-2"},{"queue":"r<&>","payload":"x","transactionId":"t-3"}]}],
		"kv":[{"op":"put","ns":"app","key":"k","value":1,"forever":true},{"op":"get","ns":"app","key":"k"},{"op":"check","ns":"app","key":"k","expect":5}]}`)
	want := `{"transactionId":"txn-9","success":true,"results":[` +
		`{"index":0,"type":"push","success":true,"transactionId":"t-1","messageId":"` + m1.String() + `","queueName":"q"},` +
		`{"index":1,"type":"ack","success":true,"transactionId":"m-1","error":null,"dlq":true},` +
		`{"index":2,"type":"push","success":true,"transactionId":"t-2","messageId":"` + minted.String() + `","queueName":"r"},` +
		`{"index":2,"type":"push","success":true,"transactionId":"t-3","messageId":"` + m3.String() + `","queueName":"r<&>","duplicate":true},` +
		`{"index":3,"type":"kv","opIndex":0,"op":"put","applied":true,"key":"k","value":1,"version":5},` +
		`{"index":4,"type":"kv","opIndex":1,"op":"get","found":true,"key":"k\u00e9","value":{ "n" : 42.00 },"version":5,"expiresAt":null},` +
		`{"index":5,"type":"kv","opIndex":2}]}` + "\n"
	wantBody(t, w, http.StatusOK, want)
	wantReq := TxnRequest{
		Pushes: []TxnPush{pushOf(0, "q", "p", "42.00", "t-1"), pushOf(2, "r", "Default", `{ "a" : 1.50 }`, "t-2"),
			pushOf(2, "r<&>", "Default", `"x"`, "t-3")},
		Acks:           []TxnAck{ackOf(1, "m-1", "7", "L")},
		RequiredLeases: []string{"L"},
		KV: []KVOp{{Op: "put", NS: "app", Key: "k", Value: json.RawMessage(`1`), Forever: true},
			{Op: "get", NS: "app", Key: "k"}, {Op: "check", NS: "app", Key: "k", Expect: i64(5)}},
	}
	if got := txnArg(t, fb, DefaultTenant); !reflect.DeepEqual(got, wantReq) {
		t.Fatalf("broker got\n%#v\nwant\n%#v", got, wantReq)
	}
}

// TestTxnDefaultCommit: the fake's default commit, answered in order, with
// a push item without transactionId answering its message id.
func TestTxnDefaultCommit(t *testing.T) {
	e := newEnv(t, nil, Options{})
	w := e.do(t, "POST", "/api/v1/transaction", `{"operations":[{"type":"push","queue":"q","payload":1},
		{"type":"ack","transactionId":"m","partitionId":1}],"kv":[{"op":"get","ns":"a","key":"k"}]}`)
	wantStatus(t, w, http.StatusOK)
	id := uuid.UUID(e.fb.only(t).arg.(TxnRequest).Pushes[0].Item.MessageID).String()
	wantJSON(t, w, http.StatusOK, `{"transactionId":"`+fakeTxnID+`","success":true,"results":[
		{"index":0,"type":"push","success":true,"transactionId":"`+id+`","messageId":"`+id+`","queueName":"q"},
		{"index":1,"type":"ack","success":true,"transactionId":"m","error":null,"dlq":false},
		{"index":2,"type":"kv","opIndex":0,"op":"get"}]}`)
}

// TestTxnRollback: the rollback answers; a kv_precondition's failedIndex
// counts the request's ack first (the flat space of results[]).
func TestTxnRollback(t *testing.T) {
	cases := []struct {
		name string
		ans  TxnAnswer
		want string
	}{
		{"rejected ack", TxnAnswer{TransactionID: "txn-9", Reason: TxnRejectedAck, Error: `lease "L" is not held`,
			Results: []TxnResult{{Type: "ack"}}},
			`{"transactionId":"txn-9","success":false,"reason":"rejected_ack","error":"lease \"L\" is not held","results":[]}`},
		{"duplicate, no error text", TxnAnswer{TransactionID: "txn-9", Reason: TxnDuplicate},
			`{"transactionId":"txn-9","success":false,"reason":"duplicate","error":"","results":[]}`},
		{"kv precondition", TxnAnswer{TransactionID: "txn-9", Reason: TxnKVPrecondition, Error: "kv[1] lost its precondition",
			KVFailure: &TxnKVFailure{FailedIndex: 1, KVReason: "version", Version: 4, Value: json.RawMessage(`{"n": 1.50}`)}},
			`{"transactionId":"txn-9","success":false,"reason":"kv_precondition","error":"kv[1] lost its precondition",` +
				`"ok":false,"failedIndex":2,"kvReason":"version","version":4,"value":{"n": 1.50},"results":[]}`},
		{"kv precondition on an absent key", TxnAnswer{TransactionID: "txn-9", Reason: TxnKVPrecondition, Error: "absent",
			KVFailure: &TxnKVFailure{FailedIndex: 0, KVReason: "absent"}},
			`{"transactionId":"txn-9","success":false,"reason":"kv_precondition","error":"absent",` +
				`"ok":false,"failedIndex":1,"kvReason":"absent","version":0,"value":null,"results":[]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fb := &fakeBroker{transaction: func(context.Context, string, TxnRequest) (TxnAnswer, error) { return c.ans, nil }}
			e := newEnv(t, fb, Options{})
			w := e.do(t, "POST", "/api/v1/transaction", `{"operations":[{"type":"ack","transactionId":"m","partitionId":"1"}],
				"kv":[{"op":"check","ns":"a","key":"k","expect":3,"required":true},{"op":"put","ns":"a","key":"n","value":1,"forever":true,"required":true}]}`)
			wantBody(t, w, http.StatusOK, c.want+"\n")
			if e.logLines() != 0 {
				t.Fatalf("log = %q", e.log)
			}
		})
	}
}

// brokenKV is a KV result that fails to marshal.
type brokenKV struct{}

func (brokenKV) MarshalJSON() ([]byte, error) { return nil, errors.New("no bytes") }

// TestTxnBrokerAnswerBroken: an answer that does not fit the request is a
// broker fault, 500 internal, logged with why.
func TestTxnBrokerAnswerBroken(t *testing.T) {
	ok := func(kv json.Marshaler) []TxnResult {
		return []TxnResult{{Index: 0, Type: "push"}, {Index: 1, Type: "kv", KV: kv}}
	}
	cases := []struct {
		name string
		ans  TxnAnswer
		log  string
	}{
		{"no results", TxnAnswer{TransactionID: "x", Success: true}, "with 0 results for 2 pushed items, acks and kv ops"},
		{"too many results", TxnAnswer{TransactionID: "x", Success: true, Results: append(ok(rawAnswer(`{}`)), TxnResult{Type: "kv"})},
			"with 3 results for 2"},
		{"types swapped", TxnAnswer{TransactionID: "x", Success: true, Results: []TxnResult{{Type: "kv", KV: rawAnswer(`{}`)}, {Type: "push"}}},
			`transaction result 0 is of type \"kv\", want \"push\"`},
		{"no type", TxnAnswer{TransactionID: "x", Success: true, Results: []TxnResult{{}, {Type: "kv", KV: rawAnswer(`{}`)}}},
			`transaction result 0 is of type \"\", want \"push\"`},
		{"nil kv", TxnAnswer{TransactionID: "x", Success: true, Results: ok(nil)}, "transaction result 1 (kv[0]): no KV result"},
		{"kv an array", TxnAnswer{TransactionID: "x", Success: true, Results: ok(rawAnswer(`[{"op":"get"}]`))}, "not a JSON object"},
		{"kv not JSON", TxnAnswer{TransactionID: "x", Success: true, Results: ok(rawAnswer(`{"op":`))}, "not a JSON object"},
		{"kv fails to marshal", TxnAnswer{TransactionID: "x", Success: true, Results: ok(brokenKV{})}, "no bytes"},
		{"no transactionId", TxnAnswer{Success: true, Results: ok(rawAnswer(`{}`))}, "without a transactionId"},
		{"rollback without reason", TxnAnswer{TransactionID: "x", Error: "?"}, "rolled back a transaction without a reason"},
		{"kv failure value not JSON", TxnAnswer{TransactionID: "x", Reason: TxnKVPrecondition,
			KVFailure: &TxnKVFailure{Value: json.RawMessage(`{"a"`)}}, "value of a transaction is not JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fb := &fakeBroker{transaction: func(context.Context, string, TxnRequest) (TxnAnswer, error) { return c.ans, nil }}
			e := newEnv(t, fb, Options{})
			w := e.do(t, "POST", "/api/v1/transaction", `{"operations":[{"type":"push","queue":"q","payload":1}],
				"kv":[{"op":"get","ns":"a","key":"k"}]}`)
			wantJSON(t, w, http.StatusInternalServerError, `{"error":"internal error","code":"internal"}`)
			if e.logLines() != 1 || !strings.Contains(e.log.String(), c.log) {
				t.Fatalf("log = %q, want one line with %q", e.log, c.log)
			}
		})
	}
}

// TestTxnBrokerErrors: the broker's errors are answered as on every route.
func TestTxnBrokerErrors(t *testing.T) {
	body := `{"operations":[{"type":"push","queue":"q","payload":1}]}`
	e := failEnv(t, fmt.Errorf("propose: %w", ErrTimeout), Options{})
	w := e.do(t, "POST", "/api/v1/transaction", body)
	wantError(t, w, http.StatusServiceUnavailable, CodeTimeout, "deadline")
	if ra := w.Header().Get("Retry-After"); ra != "1" {
		t.Fatalf("Retry-After = %q", ra)
	}
	cases := []struct {
		err  *Error
		want string
	}{
		{&Error{Status: 507, Code: "storage_full", Message: "disk above 85%"}, `{"error":"disk above 85%","code":"storage_full"}`},
		{&Error{Status: 413, Code: "name_too_long", Message: "q"}, `{"error":"q","code":"name_too_long"}`},
		{&Error{Status: 413, Code: CodePayloadTooLarge, Reason: "kv_value_too_large", Detail: "kv[0]"},
			`{"error":"payload_too_large","reason":"kv_value_too_large","detail":"kv[0]"}`},
	}
	for _, c := range cases {
		e := failEnv(t, c.err, Options{})
		wantJSON(t, e.do(t, "POST", "/api/v1/transaction", body), c.err.Status, c.want)
	}
}

// TestTxnRouteMethods: the route answers only POST.
func TestTxnRouteMethods(t *testing.T) {
	for _, m := range []string{"GET", "HEAD", "PUT", "DELETE"} {
		e := newEnv(t, nil, Options{})
		w := e.do(t, m, "/api/v1/transaction", `{"operations":[{"type":"push","queue":"q","payload":1}]}`)
		wantStatus(t, w, http.StatusNotFound)
		if m != "HEAD" {
			wantJSON(t, w, http.StatusNotFound, `{"error":"Not Found","code":"no_such_route"}`)
		}
		e.fb.none(t)
	}
}

// FuzzTxnDecode: the transaction decoder never panics, refuses only with
// a 400 or 413 *Error with a code, and what it accepts is checked: at
// least one operation, payloads that are JSON slices of the body, and
// acks without a lease only when no single lease applies.
func FuzzTxnDecode(f *testing.F) {
	f.Add([]byte(`{"operations":[{"type":"push","queue":"q","payload":42.00}]}`))
	f.Add([]byte(`{"requiredLeases":["L"],"operations":[{"type":"ack","transactionId":"t","partitionId":"1"},
		{"type":"push","items":[{"queue":"q","payload":[1]}]}],"kv":[{"op":"put","ns":"a","key":"k","value":1,"forever":true}]}`))
	f.Add([]byte(`{"kv":[{"op":"getPrefix","ns":"a","prefix":"p"}],"timers":[]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := fuzzDecode(t, body, func(b []byte) (TxnRequest, error) { return decodeTxn(b, 0) }, bodyRefusalOK)
		if err != nil {
			return
		}
		if len(req.Pushes)+len(req.Acks)+len(req.KV) == 0 {
			t.Fatal("accepted an empty transaction")
		}
		for i, p := range req.Pushes {
			if !json.Valid(p.Item.Payload) || !bytes.Contains(body, p.Item.Payload) {
				t.Fatalf("push %d: payload %q is not a JSON slice of the body", i, p.Item.Payload)
			}
			if contract.Queue.Check("", p.Item.Queue) != nil || contract.Partition.Check("", p.Item.Partition) != nil ||
				contract.TransactionID.Check("", p.Item.TransactionID) != nil {
				t.Fatalf("push %d: %+v was let through", i, p.Item)
			}
		}
		if len(req.KV) > MaxTxnKVOps {
			t.Fatalf("accepted %d kv ops", len(req.KV))
		}
		for i, op := range req.KV {
			if op.Op == "getPrefix" {
				t.Fatalf("kv[%d]: accepted getPrefix", i)
			}
		}
		slots := txnSlots(&req)
		if len(slots) != len(req.Pushes)+len(req.Acks)+len(req.KV) {
			t.Fatalf("%d slots for %+v", len(slots), req)
		}
		for i := 1; i < len(slots); i++ {
			if slots[i].index < slots[i-1].index {
				t.Fatalf("slot %d's index %d after %d", i, slots[i].index, slots[i-1].index)
			}
		}
	})
}
