package httpd

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The Streamer of allBroker: it answers nothing of interest; the route
// tests below use streamFake.
func (allBroker) RegisterStream(context.Context, string, StreamRegister) (StreamRegistered, error) {
	return StreamRegistered{}, nil
}
func (allBroker) StreamQueries(context.Context, string, string) ([]StreamQuery, error) {
	return nil, nil
}
func (allBroker) DeleteStream(context.Context, string, string) (bool, int64, error) {
	return false, 0, nil
}
func (allBroker) StreamState(context.Context, string, StreamStateRequest) ([]StreamRow, bool, error) {
	return nil, false, nil
}
func (allBroker) StreamCycle(context.Context, string, StreamCycle) (StreamCycleAnswer, error) {
	return StreamCycleAnswer{}, nil
}

// streamFake records the requests the stream routes decoded.
type streamFake struct {
	*fakeBroker
	cycle StreamCycle
	state StreamStateRequest
	reg   StreamRegister
	calls int
}

func (f *streamFake) RegisterStream(_ context.Context, _ string, r StreamRegister) (StreamRegistered, error) {
	f.reg, f.calls = r, f.calls+1
	return StreamRegistered{QueryID: "00000000-0000-8000-8000-000000000001", Name: r.Name, ConfigHash: "old", Fresh: true,
		Mismatch: r.ConfigHash == "other"}, nil
}
func (f *streamFake) StreamQueries(context.Context, string, string) ([]StreamQuery, error) {
	return nil, nil
}
func (f *streamFake) DeleteStream(context.Context, string, string) (bool, int64, error) {
	return false, 0, nil
}
func (f *streamFake) StreamState(_ context.Context, _ string, r StreamStateRequest) ([]StreamRow, bool, error) {
	f.state, f.calls = r, f.calls+1
	return []StreamRow{{Key: "k", Value: []byte(`{"a":1}`)}}, true, nil
}
func (f *streamFake) StreamCycle(_ context.Context, _ string, c StreamCycle) (StreamCycleAnswer, error) {
	f.cycle, f.calls = c, f.calls+1
	return StreamCycleAnswer{Success: true, Pushes: make([]PushResult, len(c.Pushes))}, nil
}

func streamPost(t *testing.T, f *streamFake, path, body string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	New(f, Options{}).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
	return rec.Code, rec.Body.String()
}

// TestStreamCycleDecode checks what a cycle body becomes: the SDK's
// shape decoded field by field, release_lease defaulting to true, and
// each bad field refused with 400 naming it before the broker hears of
// the cycle.
func TestStreamCycleDecode(t *testing.T) {
	f := &streamFake{fakeBroker: &fakeBroker{}}
	code, out := streamPost(t, f, "/streams/v1/cycle", `{"query_id":"q-1","partition_id":"7","consumer_group":"streams.q",
		"state_ops":[{"type":"upsert","key":"tumb:1\u001fw\u001fk","value":{ "acc" : 3 }},{"type":"delete","key":"old"}],
		"push_items":[{"queue":"out","partition":"p","payload":{"value":3}},{"queue":"out","payload":{"x":1},"transactionId":"t-1"}],
		"ack":{"transactionId":"m-9","leaseId":"L1","status":"completed","count":4}}`)
	if code != http.StatusOK || !strings.Contains(out, `"success":true`) {
		t.Fatalf("cycle answered %d %s", code, out)
	}
	c := f.cycle
	if c.QueryID != "q-1" || c.PartitionID != "7" || c.ConsumerGroup != "streams.q" || !c.ReleaseLease {
		t.Errorf("cycle %+v", c)
	}
	if len(c.StateOps) != 2 || c.StateOps[0].Key != "tumb:1\x1fw\x1fk" || string(c.StateOps[0].Value) != `{"acc":3}` ||
		c.StateOps[0].Delete || !c.StateOps[1].Delete || c.StateOps[1].Value != nil {
		t.Errorf("state ops %+v", c.StateOps)
	}
	if len(c.Pushes) != 2 || c.Pushes[0].Partition != "p" || c.Pushes[1].Partition != "Default" || c.Pushes[0].Dedup ||
		c.Pushes[0].TransactionID == "" || !c.Pushes[1].Dedup || c.Pushes[1].TransactionID != "t-1" || string(c.Pushes[0].Payload) != `{"value":3}` {
		t.Errorf("pushes %+v", c.Pushes)
	}
	if a := c.Ack; a == nil || a.TransactionID != "m-9" || a.LeaseID != "L1" || a.PartitionID != "7" || a.ConsumerGroup != "streams.q" || c.AckCount != 4 {
		t.Errorf("ack %+v", c.Ack)
	}

	code, _ = streamPost(t, f, "/streams/v1/cycle", `{"query_id":"q","partition_id":"7","ack":null,"release_lease":false}`)
	if code != http.StatusOK || f.cycle.Ack != nil || f.cycle.ReleaseLease {
		t.Errorf("a cycle without an ack: %d %+v", code, f.cycle)
	}

	for _, bad := range []struct{ body, names string }{
		{`{"partition_id":"7"}`, "query_id"},
		{`{"query_id":"q"}`, "partition_id"},
		{`{"query_id":"q","partition_id":"a b"}`, "partition_id"},
		{`{"query_id":"q","partition_id":"7","state_ops":[{"type":"merge","key":"k"}]}`, "state_ops[0].type"},
		{`{"query_id":"q","partition_id":"7","state_ops":[{"type":"upsert","key":"k"}]}`, "state_ops[0].value"},
		{`{"query_id":"q","partition_id":"7","state_ops":[{"type":"delete","key":""}]}`, "state_ops[0].key"},
		{`{"query_id":"q","partition_id":"7","state_ops":[{"type":"delete","key":"a\u0000b"}]}`, "state_ops[0].key"},
		{`{"query_id":"q","partition_id":"7","push_items":[{"payload":1}]}`, "push_items[0].queue"},
		{`{"query_id":"q","partition_id":"7","push_items":[{"queue":"out"}]}`, "push_items[0].payload"},
		{`{"query_id":"q","partition_id":"7","consumer_group":"g","ack":{"leaseId":"L"}}`, "ack.transactionId"},
		{`{"query_id":"q","partition_id":"7","consumer_group":"g","ack":{"transactionId":"t"}}`, "ack.leaseId"},
		{`{"query_id":"q","partition_id":"7","consumer_group":"g","ack":{"transactionId":"t","leaseId":"L","status":"failed"}}`, "ack.status"},
		{`{"query_id":"q","partition_id":"7","ack":{"transactionId":"t","leaseId":"L"}}`, "consumer_group"},
		{`{"query_id":"q","partition_id":"7","release_lease":"yes"}`, "release_lease"},
		{`{"query_id":"q","partition_id":"7","consumer_group":"g","ack":{"transactionId":"t","leaseId":"L","count":-1}}`, "ack.count"},
	} {
		f.calls = 0
		code, out := streamPost(t, f, "/streams/v1/cycle", bad.body)
		if code != http.StatusBadRequest || !strings.Contains(out, bad.names) || f.calls != 0 {
			t.Errorf("%s: answered %d %s (broker called %d times), want 400 naming %s", bad.body, code, out, f.calls, bad.names)
		}
	}
}

// TestStreamStateAndRegisterDecode checks the state read's and the
// registration's bodies, and the 409 of a mismatched config hash.
func TestStreamStateAndRegisterDecode(t *testing.T) {
	f := &streamFake{fakeBroker: &fakeBroker{}}
	code, out := streamPost(t, f, "/streams/v1/state/get", `{"query_id":"q","partition_id":"3","keys":["a","b"],"key_prefix":"tumb:1\u001f","ripe_at_or_before":1700000000000}`)
	if code != http.StatusOK || out != `{"rows":[{"key":"k","value":{"a":1}}],"success":true}`+"\n" {
		t.Fatalf("state answered %d %q", code, out)
	}
	if s := f.state; s.QueryID != "q" || s.PartitionID != "3" || len(s.Keys) != 2 || s.KeyPrefix != "tumb:1\x1f" || !s.Ripe || s.RipeAt != 1700000000000 {
		t.Errorf("state request %+v", s)
	}
	streamPost(t, f, "/streams/v1/state/get", `{"query_id":"q","partition_id":"3","keys":[]}`)
	if f.state.Ripe || len(f.state.Keys) != 0 {
		t.Errorf("state request without ripe %+v", f.state)
	}
	code, out = streamPost(t, f, "/streams/v1/queries", `{"name":"q","source_queue":"src","sink_queue":"out","config_hash":"h","reset":true}`)
	if code != http.StatusOK || !strings.Contains(out, `"query_id":"00000000-0000-8000-8000-000000000001"`) || !strings.Contains(out, `"fresh":true`) {
		t.Errorf("register answered %d %s", code, out)
	}
	if r := f.reg; r.Name != "q" || r.SourceQueue != "src" || r.SinkQueue != "out" || r.ConfigHash != "h" || !r.Reset {
		t.Errorf("register request %+v", r)
	}
	code, out = streamPost(t, f, "/streams/v1/queries", `{"name":"q","source_queue":"src","config_hash":"other"}`)
	if code != http.StatusConflict || !strings.Contains(out, CodeConfigHashMismatch) || !strings.Contains(out, "reset") {
		t.Errorf("a mismatched hash answered %d %s, want 409 %s", code, out, CodeConfigHashMismatch)
	}
	for _, bad := range []struct{ path, body, names string }{
		{"/streams/v1/queries", `{"source_queue":"s","config_hash":"h"}`, "name"},
		{"/streams/v1/queries", `{"name":"q","config_hash":"h"}`, "source_queue"},
		{"/streams/v1/queries", `{"name":"q","source_queue":"s"}`, "config_hash"},
		{"/streams/v1/queries", `{"name":"a/b","source_queue":"s","config_hash":"h"}`, "name"},
		{"/streams/v1/state/get", `{"query_id":"q","partition_id":"3","keys":[1]}`, "keys[0]"},
		{"/streams/v1/state/get", `{"query_id":"q","partition_id":"3","ripe_at_or_before":-1}`, "ripe_at_or_before"},
	} {
		f.calls = 0
		code, out := streamPost(t, f, bad.path, bad.body)
		if code != http.StatusBadRequest || !strings.Contains(out, bad.names) || f.calls != 0 {
			t.Errorf("%s %s: answered %d %s, want 400 naming %s", bad.path, bad.body, code, out, bad.names)
		}
	}
}
