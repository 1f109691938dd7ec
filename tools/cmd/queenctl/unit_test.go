package main

import (
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// fake is a broker stand-in: it records each request and answers from
// routes, by "METHOD /path".
type fake struct {
	mu     sync.Mutex
	reqs   []*http.Request
	bodies []string
	routes map[string]func(w http.ResponseWriter, r *http.Request)
}

func newFake(t *testing.T, routes map[string]func(w http.ResponseWriter, r *http.Request)) (*fake, map[string]string) {
	f := &fake{routes: routes}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.reqs, f.bodies = append(f.reqs, r), append(f.bodies, string(b))
		f.mu.Unlock()
		h, ok := f.routes[r.Method+" "+r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":"Not Found","code":"no_such_route"}`)
			return
		}
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return f, map[string]string{"QUEEN_URL": srv.URL}
}

func reply(status int, body string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

func TestUsageErrorsNameTheArgument(t *testing.T) {
	_, env := newFake(t, nil)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"--bogus", "status"}, "-bogus"},
		{[]string{"queues", "--bogus"}, "queues: flag provided but not defined: -bogus"},
		{[]string{"queues", "a", "b"}, `queues: unexpected argument "b"`},
		{[]string{"push"}, "push: missing argument"},
		{[]string{"push", "q", "{not json"}, `push: the payload "{not json" is not JSON`},
		{[]string{"pop", "q", "--batch", "0"}, "--batch 0"},
		{[]string{"pop", "q", "--batch", "many"}, `invalid value "many" for flag -batch`},
		{[]string{"pop", "q", "--mode", "old"}, `--mode "old"`},
		{[]string{"pop", "q", "--partitions", "65"}, "--partitions 65"},
		{[]string{"ack", "txn"}, "ack: missing argument"},
		{[]string{"ack", "txn", "1", "--status", "maybe"}, `--status "maybe"`},
		{[]string{"groups", "seek", "g", "q"}, "--to RFC3339 or --to-end is required"},
		{[]string{"groups", "seek", "g", "q", "--to", "yesterday"}, `--to "yesterday"`},
		{[]string{"groups", "seek", "g", "q", "--to", "2026-01-01T00:00:00Z", "--to-end"}, "give one of them"},
		{[]string{"groups", "lag", "--min-lag", "-1"}, "--min-lag -1"},
		{[]string{"dlq", "replay"}, "dlq replay: missing argument"},
		{[]string{"dlq", "replay", "id", "--partition", "p"}, "--partition needs --queue"},
		{[]string{"kv"}, "kv: a command is required"},
		{[]string{"kv", "del", "ns", "k"}, `kv: unknown command "del"`},
		{[]string{"kv", "put", "ns", "k", "1"}, "--ttl is required"},
		{[]string{"kv", "put", "ns", "k", "1", "--ttl", "0"}, `--ttl "0"`},
		{[]string{"kv", "put", "ns", "k", "nope", "--ttl", "5"}, `the value "nope" is not JSON`},
		{[]string{"push", "q", "-", "--txn", "t"}, "--txn names one message"},
		{[]string{"lake", "cat"}, `queenctl lake: unknown command "cat"`},
		{[]string{"lake", "ls", "-bogus"}, "flag provided but not defined: -bogus"},
	} {
		r := ctl(t, env, "", c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, r.code, r.stdout, r.stderr, c.want)
		}
	}
}

func TestHelpListsTheCommands(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		r := ctl(t, nil, "", args...)
		if r.code != 0 {
			t.Fatalf("%q: exit %d", args, r.code)
		}
		for name := range commands {
			if !strings.Contains(r.stdout, "\n  "+name+" ") {
				t.Errorf("%q: command %s not listed:\n%s", args, name, r.stdout)
			}
		}
		if !strings.Contains(r.stdout, "\n  lake ") {
			t.Errorf("%q: lake not listed", args)
		}
	}
	if r := ctl(t, nil, ""); r.code != 2 || !strings.Contains(r.stderr, "usage: queenctl") {
		t.Fatalf("no command: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := ctl(t, nil, "", "lake", "-h"); r.code != 0 || !strings.Contains(r.stdout, "-endpoint URL") {
		t.Fatalf("lake -h: exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestErrorLine(t *testing.T) {
	_, env := newFake(t, map[string]func(http.ResponseWriter, *http.Request){
		"GET /api/v1/status/queues/x": reply(404, `{"error":"queue \"x\" not found","code":"queue_not_found"}`),
		"GET /api/v1/consumer-groups": reply(502, "upstream went away\n"),
		"GET /api/v1/kv/ns/k":         reply(400, `{"error":"kv_bad_request","reason":"kv_bad_key","detail":"key is empty"}`),
		"GET /api/v1/dlq":             reply(503, `{"error":"no leader","code":"no_leader","leader":""}`),
	})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"queues", "x"}, "queenctl: GET /api/v1/status/queues/x: 404 queue_not_found: queue \"x\" not found\n"},
		{[]string{"groups"}, "queenctl: GET /api/v1/consumer-groups: 502 bad_gateway: upstream went away\n"},
		{[]string{"kv", "get", "ns", "k"}, "queenctl: GET /api/v1/kv/ns/k: 400 kv_bad_key: kv_bad_request: key is empty\n"},
		{[]string{"dlq", "--json"}, "queenctl: GET /api/v1/dlq: 503 no_leader: no leader\n"},
		{[]string{"status"}, "queenctl: GET /health: 404 no_such_route: Not Found\n"},
	} {
		r := ctl(t, env, "", c.args...)
		if r.code != 1 || r.stderr != c.want || r.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 1 and %q", c.args, r.code, r.stdout, r.stderr, c.want)
		}
	}
}

func TestConnectionErrorNamesTheURL(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	r := ctl(t, map[string]string{"QUEEN_URL": url}, "", "queues")
	want := "queenctl: GET /api/v1/status/queues: cannot reach the broker at " + url + ": "
	if r.code != 1 || !strings.HasPrefix(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q; want 1 and a line starting %q", r.code, r.stderr, want)
	}
}

func TestGlobalsAndHeaders(t *testing.T) {
	f, env := newFake(t, map[string]func(http.ResponseWriter, *http.Request){
		"GET /api/v1/consumer-groups": reply(200, `{"consumerGroups":[]}`),
	})
	other, otherEnv := newFake(t, map[string]func(http.ResponseWriter, *http.Request){
		"GET /api/v1/consumer-groups": reply(200, `{"consumerGroups":[]}`),
	})
	env["QUEEN_TOKEN"], env["QUEEN_TENANT"] = "env-token", "11111111-1111-1111-1111-111111111111"
	ctl(t, env, "", "groups").ok(t, "groups")
	// Flags beat the environment, before or after the command.
	ctl(t, env, "", "--token", "flag-token", "groups", "--url", otherEnv["QUEEN_URL"]+"/", "--tenant", "22222222-2222-2222-2222-222222222222").ok(t, "groups with flags")
	if len(f.reqs) != 1 || len(other.reqs) != 1 {
		t.Fatalf("requests: %d to $QUEEN_URL, %d to --url; want one each", len(f.reqs), len(other.reqs))
	}
	for _, c := range []struct {
		r            *http.Request
		auth, tenant string
	}{
		{f.reqs[0], "Bearer env-token", "11111111-1111-1111-1111-111111111111"},
		{other.reqs[0], "Bearer flag-token", "22222222-2222-2222-2222-222222222222"},
	} {
		if got := c.r.Header.Get("Authorization"); got != c.auth {
			t.Errorf("Authorization %q, want %q", got, c.auth)
		}
		if got := c.r.Header.Get("x-queen-tenant"); got != c.tenant {
			t.Errorf("x-queen-tenant %q, want %q", got, c.tenant)
		}
	}
	// No token, no tenant: no such header.
	plain, plainEnv := newFake(t, map[string]func(http.ResponseWriter, *http.Request){
		"GET /api/v1/consumer-groups": reply(200, `{"consumerGroups":[]}`),
	})
	ctl(t, plainEnv, "", "groups").ok(t, "groups plain")
	if h := plain.reqs[0].Header; h.Get("Authorization") != "" || h.Get("x-queen-tenant") != "" {
		t.Fatalf("headers without token or tenant: %v", h)
	}
}

func TestDefaultURL(t *testing.T) {
	r := ctl(t, nil, "", "groups")
	if r.code == 0 {
		t.Skip("a broker answers at " + DefaultURL + " on this machine")
	}
	if !strings.Contains(r.stderr, "cannot reach the broker at http://localhost:6632: ") {
		t.Fatalf("without --url or $QUEEN_URL: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestQueuesTable(t *testing.T) {
	_, env := newFake(t, map[string]func(http.ResponseWriter, *http.Request){
		"GET /api/v1/status/queues": reply(200, `{"queues":[
			{"id":"i1","name":"orders","namespace":"","task":"","createdAt":null,"partitionCount":3,"partitions":3,"consumerGroups":2,
			 "messages":{"total":1200,"pending":17,"processing":3,"completed":1180},"lastWriteAt":"2026-12-02T13:54:50.276258Z"},
			{"id":"i2","name":"a","namespace":"","task":"","createdAt":null,"partitionCount":1,"partitions":1,"consumerGroups":0,
			 "messages":{"total":0,"pending":0,"processing":0,"completed":0},"lastWriteAt":null}],
			"pagination":{"limit":1000,"offset":0,"total":2}}`),
	})
	r := ctl(t, env, "", "queues").ok(t, "queues")
	want := "" +
		"QUEUE   PARTITIONS  GROUPS  TOTAL  PENDING  PROCESSING  COMPLETED  LAST WRITE\n" +
		"orders  3           2       1200   17       3           1180       2026-12-02T13:54:50.276258Z\n" +
		"a       1           0       0      0        0           0          -\n"
	if r.stdout != want {
		t.Fatalf("queues table:\n%s\nwant:\n%s", r.stdout, want)
	}
	var j struct {
		Queues []queueRow `json:"queues"`
	}
	ctl(t, env, "", "queues", "--json").ok(t, "queues --json").decodeJSON(t, &j)
	if len(j.Queues) != 2 || j.Queues[0].Messages.Pending != 17 {
		t.Fatalf("queues --json: %+v", j)
	}
}

func TestQueuesPages(t *testing.T) {
	f, env := newFake(t, nil)
	f.routes = map[string]func(http.ResponseWriter, *http.Request){
		"GET /api/v1/status/queues": func(w http.ResponseWriter, r *http.Request) {
			name := map[string]string{"0": "first", "1": "second"}[r.URL.Query().Get("offset")]
			reply(200, `{"queues":[{"name":"`+name+`","messages":{}}],"pagination":{"limit":1,"offset":0,"total":2}}`)(w, r)
		},
	}
	r := ctl(t, env, "", "queues").ok(t, "queues")
	if row(r.stdout, "first") == nil || row(r.stdout, "second") == nil || len(f.reqs) != 2 {
		t.Fatalf("two pages: %d requests, stdout:\n%s", len(f.reqs), r.stdout)
	}
}

func TestPushStdinBatchesAndRenumbers(t *testing.T) {
	f, env := newFake(t, nil)
	f.routes = map[string]func(http.ResponseWriter, *http.Request){
		"POST /api/v1/push": func(w http.ResponseWriter, r *http.Request) {
			f.mu.Lock()
			body := f.bodies[len(f.bodies)-1]
			f.mu.Unlock()
			var req struct {
				Items []pushItem `json:"items"`
			}
			if err := json.Unmarshal([]byte(body), &req); err != nil {
				t.Errorf("push body: %v", err)
			}
			var out []map[string]any
			for i := range req.Items {
				out = append(out, map[string]any{"index": i, "message_id": "m", "transaction_id": "t", "queueName": "q",
					"status": "queued", "offset": i})
			}
			b, _ := json.Marshal(out)
			reply(201, string(b))(w, r)
		},
	}
	var in strings.Builder
	for i := range pushBatch + 2 {
		in.WriteString(`{"n":` + itoa(int64(i)) + "}\n")
		if i == 3 {
			in.WriteString("   \n")
		}
	}
	r := ctl(t, env, in.String(), "push", "q", "--partition", "p", "--json").ok(t, "push")
	var got []struct {
		Index int `json:"index"`
	}
	r.decodeJSON(t, &got)
	if len(got) != pushBatch+2 || len(f.reqs) != 2 {
		t.Fatalf("%d results in %d requests; want %d in 2", len(got), len(f.reqs), pushBatch+2)
	}
	for i, g := range got {
		if g.Index != i {
			t.Fatalf("result %d has index %d", i, g.Index)
		}
	}
	var first struct {
		Items []pushItem `json:"items"`
	}
	json.Unmarshal([]byte(f.bodies[0]), &first)
	if len(first.Items) != pushBatch || first.Items[0].Queue != "q" || first.Items[0].Partition != "p" || string(first.Items[0].Payload) != `{"n":0}` {
		t.Fatalf("first push: %d items, first %+v", len(first.Items), first.Items[0])
	}
	// A line that is not JSON is named, and nothing after it is sent.
	r = ctl(t, env, "1\n{oops\n", "push", "q")
	if r.code != 2 || !strings.Contains(r.stderr, "stdin line 2 is not JSON") {
		t.Fatalf("bad line: exit %d, stderr %q", r.code, r.stderr)
	}
	if r = ctl(t, env, "\n\n", "push", "q"); r.code != 2 || !strings.Contains(r.stderr, "no payload") {
		t.Fatalf("empty stdin: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestPushItemErrorExits1(t *testing.T) {
	_, env := newFake(t, map[string]func(http.ResponseWriter, *http.Request){
		"POST /api/v1/push": reply(201, `[{"index":0,"message_id":"","transaction_id":"t","queueName":"q","status":"error","error":"too big"}]`),
	})
	r := ctl(t, env, "", "push", "q", "1")
	if r.code != 1 || !strings.Contains(r.stdout, "too big") {
		t.Fatalf("exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestPopRequestAndAck(t *testing.T) {
	f, env := newFake(t, map[string]func(http.ResponseWriter, *http.Request){
		"GET /api/v1/pop/queue/my q/partition/p/1": reply(200, `{"success":true,"leaseId":"L","consumerGroup":"g","messages":[
			{"id":"x","transactionId":"t1","partitionId":"7","partition":"p/1","leaseId":"L","consumerGroup":"g","deliveryAttempt":1,"offset":4,"data":{"a":"b"}}]}`),
		"POST /api/v1/ack/batch": reply(200, `[{"index":0,"transactionId":"t1","success":true,"error":null,"leaseReleased":true,"dlq":false}]`),
	})
	r := ctl(t, env, "", "pop", "my q", "--group", "g", "--batch", "5", "--wait", "--timeout", "2s", "--partition", "p/1", "--mode", "all", "--ack").ok(t, "pop")
	q := f.reqs[0].URL.Query()
	want := map[string]string{"consumerGroup": "g", "batch": "5", "wait": "true", "timeout": "2000", "subscriptionMode": "all"}
	for k, v := range want {
		if q.Get(k) != v {
			t.Errorf("pop query %s=%q, want %q (query %v)", k, q.Get(k), v, q)
		}
	}
	if raw := f.reqs[0].URL.EscapedPath(); raw != "/api/v1/pop/queue/my%20q/partition/p%2F1" {
		t.Errorf("pop path %q: the names are not escaped each as one segment", raw)
	}
	var ack struct {
		Acknowledgments []ackItem `json:"acknowledgments"`
		ConsumerGroup   string    `json:"consumerGroup"`
	}
	json.Unmarshal([]byte(f.bodies[1]), &ack)
	wantAck := []ackItem{{TransactionID: "t1", PartitionID: "7", ConsumerGroup: "g", LeaseID: "L", Status: "completed"}}
	if !reflect.DeepEqual(ack.Acknowledgments, wantAck) || ack.ConsumerGroup != "g" {
		t.Fatalf("ack body %s", f.bodies[1])
	}
	if m := row(r.stdout, "p/1", "7", "4", "t1", "L", "1"); m == nil || m[6] != `{"a":"b"}` {
		t.Fatalf("pop table:\n%s", r.stdout)
	}
}

func TestPopNothing(t *testing.T) {
	_, env := newFake(t, map[string]func(http.ResponseWriter, *http.Request){
		"GET /api/v1/pop/queue/q": func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) },
	})
	r := ctl(t, env, "", "pop", "q").ok(t, "pop")
	if !strings.Contains(r.stderr, "no message") || strings.Count(r.stdout, "\n") != 1 {
		t.Fatalf("pop of nothing: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	if r = ctl(t, env, "", "pop", "q", "--json").ok(t, "pop --json"); r.stdout != "{\"messages\":[]}\n" {
		t.Fatalf("pop --json of nothing: %q", r.stdout)
	}
}

func TestAckNotAppliedExits1(t *testing.T) {
	f, env := newFake(t, map[string]func(http.ResponseWriter, *http.Request){
		"POST /api/v1/ack": reply(200, `[{"index":0,"transactionId":"t","success":false,"error":"lease expired","leaseReleased":false,"dlq":false}]`),
	})
	r := ctl(t, env, "", "ack", "t", "3", "--lease", "L", "--status", "failed", "--error", "bad")
	if r.code != 1 || !strings.Contains(r.stdout, "lease expired") {
		t.Fatalf("exit %d, stdout %q", r.code, r.stdout)
	}
	var item ackItem
	json.Unmarshal([]byte(f.bodies[0]), &item)
	if item != (ackItem{TransactionID: "t", PartitionID: "3", LeaseID: "L", Status: "failed", Error: "bad"}) {
		t.Fatalf("ack body %s", f.bodies[0])
	}
}

func TestSeekAndKVBodies(t *testing.T) {
	f, env := newFake(t, map[string]func(http.ResponseWriter, *http.Request){
		"POST /api/v1/consumer-groups/g/queues/q/seek":              reply(200, `{"success":true,"consumerGroup":"g","queue":"q","partitions":2}`),
		"POST /api/v1/consumer-groups/g/queues/q/partitions/p/seek": reply(200, `{"success":true,"consumerGroup":"g","queue":"q","partitions":1}`),
		"PUT /api/v1/kv/ns/a/b":                                     reply(200, `{"index":0,"op":"put","applied":true,"key":"a/b","value":1,"version":3}`),
		"PUT /api/v1/kv/ns/c":                                       reply(200, `{"index":0,"op":"put","applied":false,"reason":"version","key":"c","value":1,"version":9}`),
	})
	ctl(t, env, "", "groups", "seek", "g", "q", "--to", "2026-01-02T03:04:05+01:00").ok(t, "seek --to")
	ctl(t, env, "", "groups", "seek", "g", "q", "--to-end", "--partition", "p").ok(t, "seek --to-end")
	ctl(t, env, "", "kv", "put", "ns", "a/b", "1", "--ttl", "30").ok(t, "kv put")
	ctl(t, env, "", "kv", "put", "ns", "a/b", "[1,2]", "--ttl", "forever").ok(t, "kv put forever")
	if r := ctl(t, env, "", "kv", "put", "ns", "c", "1", "--ttl", "5"); r.code != 1 || !strings.Contains(r.stdout, "version") {
		t.Fatalf("kv put not applied: exit %d, stdout %q", r.code, r.stdout)
	}
	for i, want := range []string{`{"timestamp":"2026-01-02T02:04:05.000000Z"}`, `{"toEnd":true}`,
		`{"ttlSeconds":30,"value":1}`, `{"forever":true,"value":[1,2]}`} {
		if f.bodies[i] != want {
			t.Errorf("request %d (%s %s): body %s, want %s", i, f.reqs[i].Method, f.reqs[i].URL.Path, f.bodies[i], want)
		}
	}
}

func TestParseInterspersed(t *testing.T) {
	for _, c := range []struct {
		args []string
		pos  []string
		p    string
	}{
		{[]string{"q", "--partition", "x", "{}"}, []string{"q", "{}"}, "x"},
		{[]string{"--partition", "x", "q", "-"}, []string{"q", "-"}, "x"},
		{[]string{"q", "--", "-5"}, []string{"q", "-5"}, ""},
	} {
		fs := flag.NewFlagSet("push", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		p := fs.String("partition", "", "")
		pos, err := parse(fs, c.args, 1, 2, "")
		if err != nil || !reflect.DeepEqual(pos, c.pos) || *p != c.p {
			t.Errorf("%q: %q, partition %q, %v; want %q, %q", c.args, pos, *p, err, c.pos, c.p)
		}
	}
}

func TestStatusTable(t *testing.T) {
	_, env := newFake(t, map[string]func(http.ResponseWriter, *http.Request){
		"GET /health": reply(503, `{"status":"settling","engine":"raft","version":"2.0","raft":{"role":"follower","leader":0}}`),
		"GET /status": reply(200, `{"health":{"raft":{"role":"follower"}},"node":2,"version":"2.0","s3":{"running":true}}`),
	})
	r := ctl(t, env, "", "status")
	want := "" +
		"engine       raft\n" +
		"raft.leader  0\n" +
		"raft.role    follower\n" +
		"status       settling\n" +
		"version      2.0\n" +
		"node         2\n" +
		"s3.running   true\n"
	if r.code != 1 || r.stdout != want {
		t.Fatalf("status of a settling node: exit %d, stdout:\n%s\nwant exit 1 and:\n%s", r.code, r.stdout, want)
	}
}
