package httpd

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/uuid"
)

var testQueueID = uuid.MustParse("0190a5d0-0000-7000-8000-00000000000a")

func TestQueuesList(t *testing.T) {
	fb := &fakeBroker{queues: func(context.Context, string) ([]QueueSummary, error) {
		return []QueueSummary{
			{ID: testQueueID, Name: "orders", Namespace: "shop", Task: "t", Created: 1_758_536_130_000_000, PartitionCount: 3},
			{Name: "empty"},
		}, nil
	}}
	e := newEnv(t, fb, Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/resources/queues", ""), http.StatusOK, `{"queues":[
		{"id":"0190a5d0-0000-7000-8000-00000000000a","name":"orders","namespace":"shop","task":"t","createdAt":"2025-09-22T10:15:30.000000Z","partitionCount":3},
		{"id":"00000000-0000-0000-0000-000000000000","name":"empty","namespace":"","task":"","createdAt":null,"partitionCount":0}]}`)

	e = newEnv(t, nil, Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/resources/queues", ""), http.StatusOK, `{"queues":[]}`)
}

func TestQueueDetail(t *testing.T) {
	pid := uuid.MustParse("5f0c8a8e-4b7c-4f6e-9d2a-1c3b5e7f9a0b")
	fb := &fakeBroker{queue: func(_ context.Context, _, name string) (QueueDetail, bool, error) {
		return QueueDetail{
			QueueSummary: QueueSummary{ID: testQueueID, Name: name, Created: 1_758_536_130_000_000, PartitionCount: 2},
			Options:      json.RawMessage(`{"leaseTime":60}`),
			Partitions: []ChangedPartition{
				{Name: "Default", ID: pid, LastOffset: 9, LogStart: 2, LastWrite: 1_758_536_131_000_000},
				{Name: "p", ID: pid, LastOffset: -1},
			},
		}, true, nil
	}}
	e := newEnv(t, fb, Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/resources/queues/or%20ders", ""), http.StatusOK, `{
		"id":"0190a5d0-0000-7000-8000-00000000000a","name":"or ders","namespace":"","task":"",
		"createdAt":"2025-09-22T10:15:30.000000Z","partitionCount":2,
		"options":{"priority":0,"leaseTime":60,"retryLimit":3,"retryDelay":1000,"maxSize":0,"ttl":3600,"deadLetterQueue":true,
		"dlqAfterMaxRetries":true,"delayedProcessing":0,"windowBuffer":0,"retentionSeconds":0,"completedRetentionSeconds":0,
		"retentionEnabled":false,"encryptionEnabled":false,"maxWaitTimeSeconds":0,"minPopWaitTime":0,"dedupWindowSeconds":3600,
		"retentionSinkHold":"","retentionSinkHoldMaxSeconds":604800,"namespace":"","task":"","maxQueueSize":0},
		"partitions":[
			{"name":"Default","id":"5f0c8a8e-4b7c-4f6e-9d2a-1c3b5e7f9a0b","lastOffset":9,"logStart":2,"lastWriteAt":"2025-09-22T10:15:31.000000Z"},
			{"name":"p","id":"5f0c8a8e-4b7c-4f6e-9d2a-1c3b5e7f9a0b","lastOffset":-1,"logStart":0,"lastWriteAt":null}],
		"totals":{"partitions":2,"messages":8,"lastWriteAt":"2025-09-22T10:15:31.000000Z"}}`)
	if got := fb.only(t); got.arg != "or ders" {
		t.Fatalf("broker got %v", got.arg)
	}
}

func TestQueueUnknown(t *testing.T) {
	e := newEnv(t, nil, Options{})
	wantError(t, e.do(t, "GET", "/api/v1/resources/queues/nope", ""), http.StatusNotFound, CodeQueueNotFound, `"nope"`)
}

func TestDeleteQueue(t *testing.T) {
	e := newEnv(t, nil, Options{})
	wantJSON(t, e.do(t, "DELETE", "/api/v1/resources/queues/a%2Bb", ""), http.StatusOK,
		`{"deleted":true,"queue":"a+b","partitions":2,"messages":5,"consumerGroups":1,"deadLetters":3}`)
	e.fb.wantCall(t, "DeleteQueue", "a+b")
	e = newEnv(t, nil, Options{})
	wantError(t, e.do(t, "DELETE", "/api/v1/resources/queues/nope", ""), http.StatusNotFound, CodeQueueNotFound, `"nope"`)
}
