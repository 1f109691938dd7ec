package httpd

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestConfigureForwards(t *testing.T) {
	cases := []struct {
		name, body  string
		wantOptions string
		replace     bool
	}{
		{"no options", `{"queue":"q"}`, `{}`, false},
		{"merge", `{"queue":"q","options":{"leaseTime":30,"retryLimit":5.0,"ttl":1e3},"mode":"merge"}`,
			`{"leaseTime":30,"retryLimit":5,"ttl":1000}`, false},
		{"replace", `{"queue":"q","options":{"deadLetterQueue":false},"mode":"replace"}`, `{"deadLetterQueue":false}`, true},
		{"null restores", `{"queue":"q","options":{"priority":null,"namespace":null}}`, `{"namespace":null,"priority":null}`, false},
		{"minPopWaitTime clamps high", `{"queue":"q","options":{"minPopWaitTime":90000}}`, `{"minPopWaitTime":60000}`, false},
		{"minPopWaitTime clamps low", `{"queue":"q","options":{"minPopWaitTime":-5}}`, `{"minPopWaitTime":0}`, false},
		{"sink hold", `{"queue":"q","options":{"retentionSinkHold":"s3-main_1.x","retentionSinkHoldMaxSeconds":60}}`,
			`{"retentionSinkHold":"s3-main_1.x","retentionSinkHoldMaxSeconds":60}`, false},
		{"sink hold empty, max top", `{"queue":"q","options":{"retentionSinkHold":"","retentionSinkHoldMaxSeconds":31536000}}`,
			`{"retentionSinkHold":"","retentionSinkHoldMaxSeconds":31536000}`, false},
		{"strings", `{"queue":"q","options":{"namespace":"billing","task":"<t>"}}`, `{"namespace":"billing","task":"<t>"}`, false},
		{"unknown key kept", `{"queue":"q","options":{"custom": [1, 2.50]}}`, `{"custom":[1, 2.50]}`, false},
		{"the client's namespace and task", `{"queue":"q","namespace":"billing","task":"t","options":{"leaseTime":45}}`,
			`{"leaseTime":45,"namespace":"billing","task":"t"}`, false},
		{"the client's null namespace", `{"queue":"q","namespace":null,"task":null,"options":{}}`, `{}`, false},
		{"namespace in both, agreeing", `{"queue":"q","namespace":"b","options":{"namespace":"b"}}`, `{"namespace":"b"}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil, Options{})
			wantStatus(t, e.do(t, "POST", "/api/v1/configure", c.body), http.StatusOK)
			req := e.fb.only(t).arg.(ConfigureRequest)
			if req.Queue != "q" || req.Replace != c.replace || string(req.Options) != c.wantOptions {
				t.Fatalf("broker got %+v (options %s), want options %s replace %v", req, req.Options, c.wantOptions, c.replace)
			}
		})
	}
}

func TestConfigureAnswer(t *testing.T) {
	qid := uuid.MustParse("0190a5d0-0000-7000-8000-000000000001")
	fb := &fakeBroker{configure: func(_ context.Context, _ string, req ConfigureRequest) (ConfigureAnswer, error) {
		return ConfigureAnswer{QueueID: qid, Queue: req.Queue, Namespace: "ns", Task: "tk",
			Options: json.RawMessage(`{"leaseTime":60,"maxSize":500,"namespace":"ns","task":"tk","ttl":null,"extra":true}`)}, nil
	}}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "POST", "/api/v1/configure", `{"queue":"orders","options":{"leaseTime":60}}`)
	wantJSON(t, w, http.StatusOK, `{"configured":true,"queueId":"0190a5d0-0000-7000-8000-000000000001","partitionId":null,
		"queue":"orders","namespace":"ns","task":"tk","storage":"segments","options":{
		"priority":0,"leaseTime":60,"retryLimit":3,"retryDelay":1000,"maxSize":500,"ttl":3600,"deadLetterQueue":true,
		"dlqAfterMaxRetries":true,"delayedProcessing":0,"windowBuffer":0,"retentionSeconds":0,"completedRetentionSeconds":0,
		"retentionEnabled":false,"encryptionEnabled":false,"maxWaitTimeSeconds":0,"minPopWaitTime":0,"dedupWindowSeconds":3600,
		"retentionSinkHold":"","retentionSinkHoldMaxSeconds":604800,"namespace":"ns","task":"tk","extra":true,"maxQueueSize":500}}`)
}

func TestConfigureRefusals(t *testing.T) {
	wantRefusals(t, "POST", "/api/v1/configure", []refusalCase{
		{"malformed", `{"queue":`, CodeBadBody, "not JSON"},
		{"no queue", `{"options":{}}`, CodeBadRequest, "queue is required"},
		{"queue a number", `{"queue":1}`, CodeBadRequest, "queue must be a string"},
		{"options an array", `{"queue":"q","options":[]}`, CodeBadRequest, "options must be an object"},
		{"bad mode", `{"queue":"q","mode":"upsert"}`, CodeBadRequest, `mode "upsert" must be merge or replace`},
		{"int a string", `{"queue":"q","options":{"leaseTime":"30"}}`, CodeBadRequest, "leaseTime must be an integer in 0..604800 s"},
		{"int a fraction", `{"queue":"q","options":{"retryLimit":1.5}}`, CodeBadRequest, "retryLimit 1.5 must be an integer in 0..10000 retries"},
		{"int a bool", `{"queue":"q","options":{"ttl":true}}`, CodeBadRequest, "ttl must be an integer in 0..315360000 s"},
		{"bool a number", `{"queue":"q","options":{"deadLetterQueue":1}}`, CodeBadRequest, "deadLetterQueue must be a boolean"},
		{"bool a string", `{"queue":"q","options":{"retentionEnabled":"true"}}`, CodeBadRequest, "retentionEnabled must be a boolean"},
		{"string a number", `{"queue":"q","options":{"namespace":5}}`, CodeBadRequest, "namespace must be a string"},
		{"top-level namespace a number", `{"queue":"q","namespace":5}`, CodeBadRequest, "namespace must be a string"},
		{"namespaces that differ", `{"queue":"q","namespace":"a","options":{"namespace":"b"}}`, CodeBadRequest, `namespace "a" and options.namespace "b" differ`},
		{"sink hold pattern", `{"queue":"q","options":{"retentionSinkHold":"a b"}}`, CodeBadRequest, "retentionSinkHold"},
		{"sink hold too long", `{"queue":"q","options":{"retentionSinkHold":"` + strings.Repeat("a", 65) + `"}}`, CodeBadRequest, "retentionSinkHold"},
		{"hold max too low", `{"queue":"q","options":{"retentionSinkHoldMaxSeconds":59}}`, CodeBadRequest, "outside 60..31536000"},
		{"hold max too high", `{"queue":"q","options":{"retentionSinkHoldMaxSeconds":31536001}}`, CodeBadRequest, "outside 60..31536000"},
	})
}
