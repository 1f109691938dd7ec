package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ephMessage is one message of an ephemeral pop's answer.
type ephMessage struct {
	ID        string          `json:"id"`
	Partition string          `json:"partition"`
	Payload   json.RawMessage `json:"payload"`
	Attempts  int             `json:"attempts"`
}

// ephDepth is the part of an ephemeral depth answer the tests read.
type ephDepth struct {
	Messages int64 `json:"messages"`
	Groups   []struct {
		Group    string `json:"group"`
		Pending  int    `json:"pending"`
		Inflight int    `json:"inflight"`
	} `json:"groups"`
}

// ephDo sends one request with a JSON body (nil: none; []byte: sent as
// it is) and returns the status, the raw answer and the Retry-After
// header.
func (n *node) ephDo(ctx context.Context, t *testing.T, method, path string, body any) (int, []byte, string) {
	t.Helper()
	resp, raw, err := n.send(ctx, method, path, body, nil)
	if err != nil {
		t.Fatalf("node %d: %s %s: %v", n.id, method, path, err)
	}
	return resp.StatusCode, raw, resp.Header.Get("Retry-After")
}

// ephWant sends a request that must answer status, and decodes the answer
// into out (when not nil).
func (n *node) ephWant(ctx context.Context, t *testing.T, status int, method, path string, body, out any) {
	t.Helper()
	code, raw, _ := n.ephDo(ctx, t, method, path, body)
	if code != status {
		t.Fatalf("node %d: %s %s: %d %s, want %d", n.id, method, path, code, raw, status)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("node %d: %s %s: %v: %s", n.id, method, path, err, raw)
		}
	}
}

// ephBody is a push body as the official client sends it, {queue,
// messages:[{payload}]}, with the payloads (JSON texts) as they are.
func ephBody(queue string, payloads ...string) []byte {
	q, _ := json.Marshal(queue)
	b := append(append([]byte(`{"queue":`), q...), `,"messages":[`...)
	for i, p := range payloads {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, `{"payload":`...), p...), '}')
	}
	return append(b, "]}"...)
}

// ephPush pushes payloads (JSON texts, kept byte for byte) to queue.
func (n *node) ephPush(ctx context.Context, t *testing.T, queue string, payloads ...string) {
	t.Helper()
	var a struct{ Pushed int }
	n.ephWant(ctx, t, http.StatusCreated, "POST", "/api/v1/ephemeral/push", ephBody(queue, payloads...), &a)
	if a.Pushed != len(payloads) {
		t.Fatalf("node %d: pushed %d of %d", n.id, a.Pushed, len(payloads))
	}
}

// ephPop pops without waiting, as the client's pop(queue, group=, batch=).
func (n *node) ephPop(ctx context.Context, t *testing.T, queue, group string, batch int) []ephMessage {
	t.Helper()
	q := url.Values{"queue": {queue}, "batch": {fmt.Sprint(batch)}}
	if group != "" {
		q.Set("group", group)
	}
	var a struct{ Messages []ephMessage }
	n.ephWant(ctx, t, http.StatusOK, "GET", "/api/v1/ephemeral/pop?"+q.Encode(), nil, &a)
	if a.Messages == nil {
		t.Fatalf("node %d: a pop answered no messages array", n.id)
	}
	return a.Messages
}

// ephAck acks messages with status and answers the outcomes in order.
func (n *node) ephAck(ctx context.Context, t *testing.T, queue, group string, ids []string, statuses []string) []string {
	t.Helper()
	acks := make([]map[string]string, len(ids))
	for i, id := range ids {
		acks[i] = map[string]string{"id": id, "status": statuses[i]}
	}
	var a struct {
		Results []struct{ ID, Outcome string }
	}
	n.ephWant(ctx, t, http.StatusOK, "POST", "/api/v1/ephemeral/ack", map[string]any{"queue": queue, "group": group, "acks": acks}, &a)
	out := make([]string, len(a.Results))
	for i, r := range a.Results {
		if r.ID != ids[i] {
			t.Fatalf("node %d: ack result %d names %s, want %s", n.id, i, r.ID, ids[i])
		}
		out[i] = r.Outcome
	}
	return out
}

// ephDepth reads a queue's depth; ok is false on the 404 whose code says
// the queue is not there.
func (n *node) ephDepth(ctx context.Context, t *testing.T, queue string) (d ephDepth, ok bool) {
	t.Helper()
	code, raw, _ := n.ephDo(ctx, t, "GET", "/api/v1/ephemeral/queues/"+url.PathEscape(queue)+"/depth", nil)
	switch {
	case code == http.StatusOK:
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		return d, true
	case code == http.StatusNotFound && strings.Contains(string(raw), `"code":"ephemeral_queue_not_found"`):
		return d, false
	}
	t.Fatalf("node %d: depth of %s: %d %s", n.id, queue, code, raw)
	return d, false
}

// rendered is a pop's messages as "payload@attempts", in order.
func rendered(ms []ephMessage) string {
	var b []string
	for _, m := range ms {
		b = append(b, fmt.Sprintf("%s@%d", m.Payload, m.Attempts))
	}
	return strings.Join(b, " ")
}

func ids(ms []ephMessage) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// TestEphemeralPerNodeMemory runs ephemeral queues on three real nodes:
// push, pop and ack work on a follower exactly as on the leader; each
// node holds its own messages (a queue pushed through one is not on
// another); a push past QUEEN_EPHEMERAL_MAX_BYTES is 429 and one that can
// never fit 413; a node killed with SIGKILL and restarted has lost its
// ephemeral messages (an ack of one answers stale) while the other nodes
// kept theirs; and with two of the three nodes down, so no leader, the
// last one still serves ephemeral calls while a durable push cannot
// commit.
func TestEphemeralPerNodeMemory(t *testing.T) {
	nodes := startedCluster(t, 3, "three processes; run without -short", "QUEEN_EPHEMERAL_MAX_BYTES=1048576")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	leader, followers := leaderOf(t, nodes)
	f, o := followers[0], followers[1]

	for _, n := range []*node{f, leader} {
		t.Logf("node %d (%s): push, pop, ack", n.id, n.role())
		n.ephPush(ctx, t, "jobs", `{"n":1}`, `{"n": 2.50}`, `"three"`)
		first := n.ephPop(ctx, t, "jobs", "workers", 2)
		if got := rendered(first); got != `{"n":1}@1 {"n": 2.50}@1` {
			t.Fatalf("node %d: first pop %s", n.id, got)
		}
		if got := n.ephAck(ctx, t, "jobs", "workers", ids(first), []string{"completed", "retry"}); strings.Join(got, ",") != "acked,redelivered" {
			t.Fatalf("node %d: acks %v", n.id, got)
		}
		second := n.ephPop(ctx, t, "jobs", "workers", 5)
		if got := rendered(second); got != `{"n": 2.50}@2 "three"@1` {
			t.Fatalf("node %d: second pop %s", n.id, got)
		}
		if got := n.ephAck(ctx, t, "jobs", "workers", ids(second), []string{"completed", "completed"}); strings.Join(got, ",") != "acked,acked" {
			t.Fatalf("node %d: acks %v", n.id, got)
		}
		d, ok := n.ephDepth(ctx, t, "jobs")
		if !ok || d.Messages != 0 || len(d.Groups) != 1 || d.Groups[0].Pending != 0 || d.Groups[0].Inflight != 0 {
			t.Fatalf("node %d: depth after the acks %+v %v", n.id, d, ok)
		}
		if rest := n.ephPop(ctx, t, "jobs", "workers", 5); len(rest) != 0 {
			t.Fatalf("node %d: acked messages came back: %s", n.id, rendered(rest))
		}
	}

	// Each node holds what was pushed through it, and only that.
	f.ephPush(ctx, t, "kept", `"f1"`, `"f2"`)
	o.ephPush(ctx, t, "kept", `"o1"`, `"o2"`)
	leader.ephPush(ctx, t, "kept", `"l1"`)
	if _, ok := o.ephDepth(ctx, t, "jobs"); ok {
		t.Fatalf("node %d has the queue jobs, pushed through nodes %d and %d only", o.id, f.id, leader.id)
	}
	leasedOnF := f.ephPop(ctx, t, "kept", "g", 1)
	if rendered(leasedOnF) != `"f1"@1` {
		t.Fatalf("node %d: %s", f.id, rendered(leasedOnF))
	}

	// The node's cap: 1 MiB. A push that does not fit now is 429 with
	// Retry-After, one that never fits 413.
	big := `"` + strings.Repeat("x", 600<<10) + `"`
	o.ephPush(ctx, t, "big", big)
	code, raw, retry := o.ephDo(ctx, t, "POST", "/api/v1/ephemeral/push", ephBody("big", big))
	if code != http.StatusTooManyRequests || retry != "1" || !strings.Contains(string(raw), `"code":"overloaded"`) ||
		!strings.Contains(string(raw), "QUEEN_EPHEMERAL_MAX_BYTES=1048576") {
		t.Fatalf("a push past the cap: %d %.300s (Retry-After %q)", code, raw, retry)
	}
	huge := ephBody("big", `"`+strings.Repeat("x", 1<<20)+`"`)
	if code, raw, _ := o.ephDo(ctx, t, "POST", "/api/v1/ephemeral/push", huge); code != http.StatusRequestEntityTooLarge ||
		!strings.Contains(string(raw), `"code":"payload_too_large"`) {
		t.Fatalf("a push over the cap: %d %.300s", code, raw)
	}
	var reset struct{ Dropped int }
	o.ephWant(ctx, t, http.StatusOK, "POST", "/api/v1/ephemeral/reset", map[string]any{"queue": "big"}, &reset)
	if reset.Dropped != 1 {
		t.Fatalf("reset dropped %d", reset.Dropped)
	}

	// SIGKILL the follower and start it again: its messages are gone, an
	// ack of its lease is stale; the others kept theirs.
	f.signal(syscall.SIGKILL)
	f.start()
	f.waitReady()
	if d, ok := f.ephDepth(ctx, t, "kept"); ok {
		t.Fatalf("node %d after SIGKILL still has kept: %+v", f.id, d)
	}
	if got := f.ephAck(ctx, t, "kept", "g", ids(leasedOnF), []string{"completed"}); got[0] != "stale" {
		t.Fatalf("node %d: the ack of a lease from before the restart answered %v", f.id, got)
	}
	if got := f.ephPop(ctx, t, "kept", "g", 5); len(got) != 0 {
		t.Fatalf("node %d after SIGKILL popped %s", f.id, rendered(got))
	}
	if got := rendered(o.ephPop(ctx, t, "kept", "", 5)); got != `"o1"@1 "o2"@1` {
		t.Fatalf("node %d kept %s", o.id, got)
	}
	if got := rendered(leader.ephPop(ctx, t, "kept", "", 5)); got != `"l1"@1` {
		t.Fatalf("node %d kept %s", leader.id, got)
	}

	// Two nodes down: the third has no leader, cannot commit a durable
	// push, and serves ephemeral calls from its memory all the same.
	leader.signal(syscall.SIGKILL)
	f.signal(syscall.SIGKILL)
	waitFor(t, fmt.Sprintf("node %d to see it has no leader", o.id), 60*time.Second, func() bool {
		code, _ := o.health()
		return code == http.StatusServiceUnavailable
	})
	durable := map[string]any{"items": []map[string]any{{"queue": "durable", "payload": 1}}}
	if code, raw, _ := o.ephDo(ctx, t, "POST", "/api/v1/push", durable); code != http.StatusServiceUnavailable {
		t.Fatalf("a durable push without a leader: %d %s", code, raw)
	}
	o.ephPush(ctx, t, "alone", `{"still":"here"}`)
	got := o.ephPop(ctx, t, "alone", "", 5)
	if rendered(got) != `{"still":"here"}@1` {
		t.Fatalf("node %d without a leader popped %s", o.id, rendered(got))
	}
	if out := o.ephAck(ctx, t, "alone", "", ids(got), []string{"completed"}); out[0] != "acked" {
		t.Fatalf("node %d without a leader: ack %v", o.id, out)
	}
}

// TestEphemeralPythonClient runs clients/python/check_ephemeral.py: the
// official client's client.ephemeral against one real node, unchanged
// (push, pop, ack, fan-out, a long poll, configure, depth, queues, reset,
// delete, the not-found code and a refusal). It needs the client lane's
// venv, as TestPythonClient does.
func TestEphemeralPythonClient(t *testing.T) {
	python := clientPython(t)
	n := single(t)
	out, code := runClientScript(t, python, "../../clients/python/check_ephemeral.py", "--url", n.url)
	if code != 0 || !regexp.MustCompile(`(?m)^[1-9]\d* passed, 0 failed$`).MatchString(out) {
		t.Fatalf("the ephemeral client check failed (exit %d) against %s:\n%s", code, n.url, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "PASS ") {
			t.Log(l)
		}
	}
}
