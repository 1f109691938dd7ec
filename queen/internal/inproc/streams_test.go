package inproc

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// streamPost posts body to a /streams/v1 route and decodes its answer.
func streamPost(t *testing.T, path, body string, status int) map[string]any {
	t.Helper()
	w := do(t, "POST", path, body)
	want(t, w, status, "")
	var m map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
		t.Fatalf("%s answered %s: %v", path, w.Body, err)
	}
	return m
}

// streamMsg is one message of a pop's answer, as the SDK reads it.
type streamMsg struct {
	TransactionID, LeaseID, PartitionID, Partition string
	Data                                           json.RawMessage
}

func popGroup(t *testing.T, queue, group string, batch int) []streamMsg {
	t.Helper()
	w := do(t, "GET", fmt.Sprintf("/api/v1/pop/queue/%s?consumerGroup=%s&batch=%d&wait=false&subscriptionMode=all", queue, group, batch), "")
	if w.Code == 204 {
		return nil
	}
	want(t, w, 200, "")
	var got struct{ Messages []streamMsg }
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
		t.Fatalf("pop answered %s: %v", w.Body, err)
	}
	return got.Messages
}

// cycleBody is a cycle as the SDK sends it: the ack names the last of
// the count messages it consumed.
func cycleBody(qid string, m streamMsg, count int, group, ops, pushes string, release bool) string {
	return fmt.Sprintf(`{"query_id":%q,"partition_id":%q,"consumer_group":%q,"state_ops":[%s],"push_items":[%s],
		"ack":{"transactionId":%q,"leaseId":%q,"status":"completed","count":%d},"release_lease":%v}`,
		qid, m.PartitionID, group, ops, pushes, m.TransactionID, m.LeaseID, count, release)
}

// TestStreamCycleFences: a cycle is one entry, fenced by its ack's lease.
// Applied once, its state, its output and its ack are all there; the same
// cycle again (a retry after a lost answer) is refused and changes
// nothing; a cycle under a lease that expired or moved writes nothing; a
// flush cycle's delete of a row that is gone refuses the whole cycle; a
// reset retires the old query id; deleting the source queue wipes the
// state.
func TestStreamCycleFences(t *testing.T) {
	const src, out, group = "stream-fence-src", "stream-fence-out", "streams.fence"
	reg := streamPost(t, "/streams/v1/queries", `{"name":"fence","source_queue":"`+src+`","sink_queue":"`+out+`","config_hash":"h1"}`, 200)
	qid := reg["query_id"].(string)
	if reg["fresh"] != true {
		t.Fatalf("first registration %v", reg)
	}
	for i := range 3 {
		push(t, src, "p", fmt.Sprintf("in-%d", i), fmt.Sprintf(`{"v":%d}`, i))
	}
	msgs := popGroup(t, src, group, 2)
	if len(msgs) != 2 {
		t.Fatalf("streamMsg %d, want 2", len(msgs))
	}
	last := msgs[1]
	body := cycleBody(qid, last, 2, group, `{"type":"upsert","key":"sum","value":{"acc":1,"windowEnd":5}}`,
		`{"queue":"`+out+`","partition":"p","payload":{"sum":1}}`, true)
	if a := streamPost(t, "/streams/v1/cycle", body, 200); a["success"] != true || a["lease_released"] != true {
		t.Fatalf("the cycle answered %v", a)
	}
	// The retry of the same cycle: its ack settles nothing new.
	a := streamPost(t, "/streams/v1/cycle", body, 200)
	if a["success"] != false || a["reason"] != "lease_not_current" || !strings.Contains(a["error"].(string), "nothing of it applied") {
		t.Fatalf("the retried cycle answered %v", a)
	}
	if f := fetch(t, out, "p", 0); len(f.Records) != 1 || string(f.Records[0].Payload) != `{"sum":1}` {
		t.Fatalf("the sink holds %+v, want the one output", f.Records)
	}
	state := func() []any {
		return streamPost(t, "/streams/v1/state/get", fmt.Sprintf(`{"query_id":%q,"partition_id":%q,"keys":[]}`, qid, last.PartitionID), 200)["rows"].([]any)
	}
	if rows := state(); len(rows) != 1 || !strings.Contains(fmt.Sprint(rows[0]), "acc:1") {
		t.Fatalf("state rows %v", rows)
	}
	// Both streamMsg messages were settled, the third is next and alone.
	rest := popGroup(t, src, group, 10)
	if len(rest) != 1 || string(rest[0].Data) != `{"v":2}` {
		t.Fatalf("after the cycle the group pops %+v, want only the third message", rest)
	}
	// A cycle under another lease than the message's: refused, nothing written.
	stale := rest[0]
	stale.LeaseID = msgs[1].LeaseID
	a = streamPost(t, "/streams/v1/cycle", cycleBody(qid, stale, 1, group, `{"type":"upsert","key":"sum","value":{"acc":99}}`,
		`{"queue":"`+out+`","partition":"p","payload":{"sum":99}}`, true), 200)
	if a["success"] != false || a["reason"] != "lease_not_current" {
		t.Fatalf("a cycle under a stale lease answered %v", a)
	}
	if f := fetch(t, out, "p", 0); len(f.Records) != 1 {
		t.Fatalf("a refused cycle pushed: the sink holds %d records", len(f.Records))
	}
	if a := streamPost(t, "/streams/v1/cycle", cycleBody(qid, rest[0], 1, group, "", "", true), 200); a["success"] != true {
		t.Fatalf("the third message's cycle answered %v", a)
	}
	// release_lease false (a gate's partial ack) keeps the lease on the
	// partition: the group pops nothing of it while the lease lives; true
	// frees it, and the tail the cycle did not ack is delivered again at once.
	pair := func(i int) []streamMsg {
		push(t, src, "p", fmt.Sprintf("in-%d", i), fmt.Sprintf(`{"v":%d}`, i))
		push(t, src, "p", fmt.Sprintf("in-%d", i+1), fmt.Sprintf(`{"v":%d}`, i+1))
		got := popGroup(t, src, group, 2)
		if len(got) != 2 {
			t.Fatalf("popped %d, want 2", len(got))
		}
		return got
	}
	kept := pair(3)
	if a := streamPost(t, "/streams/v1/cycle", cycleBody(qid, kept[0], 1, group, "", "", false), 200); a["success"] != true || a["lease_released"] != false {
		t.Fatalf("a partial cycle keeping its lease answered %v", a)
	}
	if got := popGroup(t, src, group, 10); len(got) != 0 {
		t.Fatalf("the lease a cycle kept let the group pop %+v", got)
	}
	if a := streamPost(t, "/streams/v1/cycle", cycleBody(qid, kept[1], 1, group, "", "", false), 200); a["success"] != true || a["lease_released"] != true {
		t.Fatalf("the cycle settling the lease's last message answered %v", a)
	}
	freed := pair(5)
	if a := streamPost(t, "/streams/v1/cycle", cycleBody(qid, freed[0], 1, group, "", "", true), 200); a["success"] != true || a["lease_released"] != true {
		t.Fatalf("a partial cycle releasing its lease answered %v", a)
	}
	if got := popGroup(t, src, group, 10); len(got) != 1 || string(got[0].Data) != `{"v":6}` {
		t.Fatalf("after a released partial cycle the group pops %+v, want the tail {\"v\":6}", got)
	}
	// A flush cycle (no ack) deleting the window row, then its retry.
	flush := fmt.Sprintf(`{"query_id":%q,"partition_id":%q,"consumer_group":%q,"state_ops":[{"type":"delete","key":"sum"}],
		"push_items":[{"queue":%q,"partition":"p","payload":{"flushed":1}}],"ack":null}`, qid, last.PartitionID, group, out)
	if a := streamPost(t, "/streams/v1/cycle", flush, 200); a["success"] != true {
		t.Fatalf("the flush answered %v", a)
	}
	a = streamPost(t, "/streams/v1/cycle", flush, 200)
	if a["success"] != false || a["reason"] != "state_conflict" {
		t.Fatalf("the retried flush answered %v", a)
	}
	if f := fetch(t, out, "p", 0); len(f.Records) != 2 || string(f.Records[1].Payload) != `{"flushed":1}` {
		t.Fatalf("after a flush and its retry the sink holds %+v", f.Records)
	}
	if rows := state(); len(rows) != 0 {
		t.Fatalf("state rows after the flush %v", rows)
	}
	// A duplicate output transactionId rolls the whole cycle back.
	dup := fmt.Sprintf(`{"query_id":%q,"partition_id":%q,"state_ops":[{"type":"upsert","key":"x","value":1}],
		"push_items":[{"queue":%q,"partition":"p","payload":1,"transactionId":"out-1"}]}`, qid, last.PartitionID, out)
	if a := streamPost(t, "/streams/v1/cycle", dup, 200); a["success"] != true {
		t.Fatalf("a cycle with an output id answered %v", a)
	}
	if a := streamPost(t, "/streams/v1/cycle", strings.Replace(dup, `"key":"x"`, `"key":"y"`, 1), 200); a["success"] != false || a["reason"] != "duplicate" {
		t.Fatalf("a cycle repeating an output id answered %v", a)
	}
	if rows := state(); len(rows) != 1 {
		t.Fatalf("the duplicate's state write applied: %v", rows)
	}

	// Another hash is 409; reset wipes the state and retires the old id.
	w := do(t, "POST", "/streams/v1/queries", `{"name":"fence","source_queue":"`+src+`","config_hash":"h2"}`)
	want(t, w, 409, "config_hash_mismatch")
	reg2 := streamPost(t, "/streams/v1/queries", `{"name":"fence","source_queue":"`+src+`","config_hash":"h2","reset":true}`, 200)
	if reg2["reset"] != true || reg2["fresh"] != true || reg2["query_id"] == qid {
		t.Fatalf("reset answered %v", reg2)
	}
	w = do(t, "POST", "/streams/v1/state/get", fmt.Sprintf(`{"query_id":%q,"partition_id":"1"}`, qid))
	want(t, w, 404, "query_not_found")
	if a := streamPost(t, "/streams/v1/cycle", strings.Replace(dup, "out-1", "out-2", 1), 200); a["reason"] != "query_not_found" {
		t.Fatalf("a cycle of the retired id answered %v", a)
	}

	// The list shows the query's state and lag; deleting the source wipes it.
	qid2 := reg2["query_id"].(string)
	if a := streamPost(t, "/streams/v1/cycle", fmt.Sprintf(`{"query_id":%q,"partition_id":"1","state_ops":[{"type":"upsert","key":"k","value":{"n":1}}]}`, qid2), 200); a["success"] != true {
		t.Fatalf("a cycle of the new id answered %v", a)
	}
	one := func() map[string]any {
		w := do(t, "GET", "/streams/v1/queries/fence", "")
		want(t, w, 200, "")
		var q map[string]any
		_ = json.Unmarshal(w.Body.Bytes(), &q)
		return q
	}
	if q := one(); fmt.Sprint(q["state"]) != "map[bytes:8 rows:1]" || q["resets"] != 1.0 || q["lag"] != 1.0 { // the tail popped last is not settled
		t.Fatalf("the query lists as %v", q)
	}
	metrics := do(t, "GET", "/metrics/prometheus", "").Body.String()
	for _, line := range []string{`queen_stream_state_rows{query="fence",tenant=""} 1`, `queen_stream_state_bytes{query="fence",tenant=""} 8`,
		`queen_stream_lag_messages{query="fence",tenant=""} 1`, `queen_stream_cycles_total{outcome="committed",tenant=""}`,
		`queen_stream_cycles_total{outcome="lease_not_current",tenant=""} 2`, `queen_stream_cycles_total{outcome="state_conflict",tenant=""} 1`} {
		if !strings.Contains(metrics, line) {
			t.Errorf("/metrics/prometheus lacks %s", line)
		}
	}
	want(t, do(t, "DELETE", "/api/v1/resources/queues/"+src, ""), 200, "")
	if q := one(); fmt.Sprint(q["state"]) != "map[bytes:0 rows:0]" {
		t.Fatalf("after the source's delete the query lists as %v", q)
	}
	want(t, do(t, "DELETE", "/streams/v1/queries/fence", ""), 200, "")
	want(t, do(t, "GET", "/streams/v1/queries/fence", ""), 404, "query_not_found")
}
