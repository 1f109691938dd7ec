package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/queen-mq/queen-go/s3sink/s3test"
)

// The dashboard's browser lane: a real node, real pushes and pops over
// its HTTP API, and headless Chromium reading what a person sees on the
// page that GET / serves. Every wait polls the DOM against a deadline.

const pageWait = 20 * time.Second

// pushN pushes n records to queue's partition, each its own payload.
func pushN(ctx context.Context, t *testing.T, n *node, queue, partition string, count int) {
	t.Helper()
	items := make([]pushItem, count)
	for i := range items {
		items[i] = pushItem{Queue: queue, Partition: partition, Payload: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))}
	}
	if _, err := n.push(ctx, items...); err != nil {
		t.Fatal(err)
	}
}

// TestDashboardQueues: the queues table shows a queue with its partitions
// and depth (what a group still has to settle, as the depth route says),
// and more pushes change them on the page without a navigation; the sink
// section says off on a node without one.
func TestDashboardQueues(t *testing.T) {
	n := single(t)
	ctx := deadline(t, time.Minute)
	pushN(ctx, t, n, "dash-q", "p1", 2)
	pushN(ctx, t, n, "dash-q", "p2", 1)
	// One record settled: the depth (2) is no longer the total (3).
	code, a := n.pop(ctx, t, "dash-q", url.Values{"consumerGroup": {"g"}, "subscriptionMode": {"all"}, "batch": {"1"}, "wait": {"false"}})
	if code != 200 || len(a.Messages) != 1 {
		t.Fatalf("pop: %d %+v", code, a)
	}
	if r := n.ack(ctx, t, a, "g", "completed"); !r[0].Success {
		t.Fatalf("ack: %+v", r)
	}
	depth := func() string {
		var d struct{ Pending int64 }
		if _, err := n.call(ctx, http.MethodGet, "/api/v1/resources/queues/dash-q/depth", nil, &d); err != nil {
			t.Fatal(err)
		}
		return strconv.FormatInt(d.Pending, 10)
	}
	if got := depth(); got != "2" {
		t.Fatalf("the depth route says %s, want 2", got)
	}

	p := openDashboard(t, n)
	show := `document.getElementById("queues").innerText`
	p.waitJS("dash-q with 2 partitions, depth 2 of 3", cell("queue-row", "queue", "dash-q", "partitions")+` === "2" && `+
		cell("queue-row", "queue", "dash-q", "depth")+` === "2" && `+cell("queue-row", "queue", "dash-q", "total")+` === "3"`, show, pageWait)
	p.waitJS("the sink off", `document.querySelector("[data-testid=sink-state]").textContent === "sink off"`,
		`document.getElementById("sink").innerText`, pageWait)

	var marker bool
	p.eval(`window.__noReload = true`, &marker)
	pushN(ctx, t, n, "dash-q", "p2", 4)
	pushN(ctx, t, n, "dash-q", "p3", 1)
	want := depth()
	if want != "7" {
		t.Fatalf("the depth route says %s after 5 more pushes, want 7", want)
	}
	p.waitJS("dash-q with 3 partitions and depth "+want, cell("queue-row", "queue", "dash-q", "partitions")+` === "3" && `+
		cell("queue-row", "queue", "dash-q", "depth")+` === `+js(want), show, pageWait)
	p.eval(`window.__noReload === true`, &marker)
	if !marker {
		t.Fatal("the page reloaded to show the new depth")
	}

	// A click on the queue shows its partitions, each with its depth.
	ctxc, cancelc := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancelc()
	if err := chromedp.Do(ctxc, chromedp.Click(chromedp.CSS(`[data-testid=queue-row][data-queue="dash-q"] [data-field=name]`))); err != nil {
		t.Fatalf("click dash-q: %v", err)
	}
	parts := `Array.from(document.querySelectorAll("[data-testid=partition-row]"))`
	p.waitJS("dash-q's three partitions, depths summing to 7", visible("queue-detail")+` && `+
		`JSON.stringify(`+parts+`.map(r => r.dataset.partition)) === '["p1","p2","p3"]' && `+
		parts+`.reduce((s, r) => s + Number(r.querySelector("[data-field=depth]").textContent), 0) === 7 && `+
		cell("partition-row", "partition", "p3", "depth")+` === "1"`,
		`document.getElementById("queue-detail").innerText`, pageWait)
}

// TestDashboardGroupLag: a group's lag after a pop it did not ack, then
// after its acks.
func TestDashboardGroupLag(t *testing.T) {
	n := single(t)
	ctx := deadline(t, time.Minute)
	pushN(ctx, t, n, "lag-q", "p", 5)
	p := openDashboard(t, n)
	p.waitJS("lag-q", cell("queue-row", "queue", "lag-q", "depth")+` === "5"`, `document.getElementById("queues").innerText`, pageWait)
	if got := p.evalString(rows("group-row", "group")); got != "[]" {
		t.Fatalf("groups before any pop: %s", got)
	}

	code, a := n.pop(ctx, t, "lag-q", url.Values{"consumerGroup": {"workers"}, "subscriptionMode": {"all"}, "batch": {"2"}, "wait": {"false"}})
	if code != 200 || len(a.Messages) != 2 {
		t.Fatalf("pop: %d %+v", code, a)
	}
	p.waitJS("workers with lag 5 (2 leased, none acked)", cell("group-row", "group", "workers", "lag")+` === "5"`,
		`document.getElementById("groups").innerText`, pageWait)
	if r := n.ack(ctx, t, a, "workers", "completed"); len(r) != 2 || !r[0].Success || !r[1].Success {
		t.Fatalf("ack: %+v", r)
	}
	p.waitJS("workers with lag 3 after 2 acks", cell("group-row", "group", "workers", "lag")+` === "3"`,
		`document.getElementById("groups").innerText`, pageWait)
}

// TestDashboardDLQ: a letter a failed ack filed shows on the page;
// clicking its replay moves it: the page lists it no more and the API
// finds the message back in its queue.
func TestDashboardDLQ(t *testing.T) {
	n := single(t)
	ctx := deadline(t, time.Minute)
	if err := n.configure(ctx, "dlq-q", map[string]any{"retryLimit": 0, "retryDelay": 0}); err != nil {
		t.Fatal(err)
	}
	if _, err := n.push(ctx, pushItem{Queue: "dlq-q", Partition: "p", TransactionID: "doomed-1", Payload: json.RawMessage(`{"job":1}`)}); err != nil {
		t.Fatal(err)
	}
	code, a := n.pop(ctx, t, "dlq-q", url.Values{"consumerGroup": {"workers"}, "subscriptionMode": {"all"}, "wait": {"false"}})
	if code != 200 || len(a.Messages) != 1 {
		t.Fatalf("pop: %d %+v", code, a)
	}
	if r := n.ack(ctx, t, a, "workers", "failed"); !r[0].Success || !r[0].DLQ {
		t.Fatalf("failed ack with retryLimit 0 did not file the letter: %+v", r)
	}
	var dlq struct {
		Messages []struct{ ID, TransactionID string }
		Total    int
	}
	if _, err := n.call(ctx, http.MethodGet, "/api/v1/dlq?queue=dlq-q", nil, &dlq); err != nil || len(dlq.Messages) != 1 {
		t.Fatalf("dlq: %v %+v", err, dlq)
	}
	id := dlq.Messages[0].ID

	p := openDashboard(t, n)
	p.waitJS("the letter "+id, cell("dlq-row", "id", id, "queue")+` === "dlq-q" && `+cell("dlq-row", "id", id, "consumerGroup")+` === "workers"`,
		`document.getElementById("dlq").innerText`, pageWait)
	ctxc, cancelc := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancelc()
	if err := chromedp.Do(ctxc, chromedp.Click(chromedp.CSS(`[data-testid=dlq-row][data-id="`+id+`"] [data-testid=replay]`))); err != nil {
		t.Fatalf("click replay: %v", err)
	}
	p.waitJS("no letter "+id+" any more", `!document.querySelector('[data-testid=dlq-row][data-id=' + CSS.escape(`+js(id)+`) + ']') && document.getElementById("dlq-empty").hidden === false`,
		`document.getElementById("dlq").innerText`, pageWait)
	if _, err := n.call(ctx, http.MethodGet, "/api/v1/dlq?queue=dlq-q", nil, &dlq); err != nil || dlq.Total != 0 || len(dlq.Messages) != 0 {
		t.Fatalf("dlq after the replay: %v %+v", err, dlq)
	}
	recs, _, err := n.fetchAll(ctx, "dlq-q", "p")
	if err != nil || len(recs) != 2 || recs[1].TransactionID != "dlq:"+id || string(recs[1].Payload) != `{"job":1}` {
		t.Fatalf("the queue after the replay: %v %+v", err, recs)
	}
}

// TestDashboardKV: a namespace shows with its key count after KV puts.
func TestDashboardKV(t *testing.T) {
	n := single(t)
	ctx := deadline(t, time.Minute)
	p := openDashboard(t, n)
	p.waitJS("the page's first poll", `Number(document.getElementById("last-update").dataset.polls) >= 1`, `document.body.innerText`, pageWait)
	if got := p.evalString(rows("kv-row", "ns")); got != "[]" {
		t.Fatalf("namespaces before any put: %s", got)
	}
	for _, k := range []string{"a", "b"} {
		if _, err := n.call(ctx, http.MethodPut, "/api/v1/kv/dash-ns/"+k, map[string]any{"value": "v-" + k, "forever": true}, nil); err != nil {
			t.Fatal(err)
		}
	}
	p.waitJS("dash-ns with 2 keys", cell("kv-row", "ns", "dash-ns", "keys")+` === "2"`, `document.getElementById("kv").innerText`, pageWait)
}

// TestDashboardCharts: the rates chart has points, and pushes and pops
// show as rates above 0 in its series.
func TestDashboardCharts(t *testing.T) {
	n := single(t)
	ctx := deadline(t, time.Minute)
	p := openDashboard(t, n)
	state := `JSON.stringify(QD.chartState())`
	p.waitJS("a drawn chart", `QD.chartState().drawn && QD.chartState().plotPoints >= 1`, state, pageWait)
	var before struct {
		Series map[string]struct{ Max float64 }
	}
	p.eval(`QD.chartState()`, &before)
	if before.Series["pushed"].Max != 0 {
		t.Fatalf("push/s above 0 before any push: %+v", before)
	}
	pushN(ctx, t, n, "chart-q", "p", 20)
	if code, a := n.pop(ctx, t, "chart-q", url.Values{"consumerGroup": {"c"}, "subscriptionMode": {"all"}, "batch": {"5"}, "wait": {"false"}}); code != 200 || len(a.Messages) != 5 {
		t.Fatalf("pop: %d %+v", code, a)
	}
	p.waitJS("push/s and pop/s above 0", `QD.chartState().series.pushed.max > 0 && QD.chartState().series.delivered.max > 0 && QD.chartState().plotPoints >= 2`,
		state, pageWait)
	var after struct {
		Points, PlotPoints int
		Series             map[string]struct{ Points int }
	}
	p.eval(`QD.chartState()`, &after)
	if after.PlotPoints != after.Points || after.Series["pushed"].Points != after.Points {
		t.Fatalf("the chart draws %d of %d points: %+v", after.PlotPoints, after.Points, after)
	}
}

// TestDashboardJWT: with JWT on, the page without a token shows the
// token form and no data; after a person types a token it shows the data.
func TestDashboardJWT(t *testing.T) {
	n := single(t, "JWT_ENABLED=true", "JWT_ALGORITHM=HS256", "JWT_SECRET="+jwtSecret, "JWT_ISSUER=queen-e2e")
	ctx := deadline(t, time.Minute)
	admin := token(t, "admin", "ops")
	if code, raw := n.callAs(ctx, admin, http.MethodPost, "/api/v1/push", map[string]any{"items": []any{
		map[string]any{"queue": "secret-q", "partition": "p", "payload": map[string]any{"n": 1}}}}); code != 201 && code != 200 {
		t.Fatalf("push: %d %s", code, raw)
	}
	p := openDashboard(t, n)
	p.waitJS("the token form", visible("auth-form")+` && /needs a token/i.test(document.getElementById("auth-form").innerText)`,
		`document.body.innerText`, pageWait)
	var shown struct {
		Data bool
		Rows int
	}
	p.eval(`({data: `+visible("data")+`, rows: document.querySelectorAll("[data-testid=queue-row]").length})`, &shown)
	if shown.Data || shown.Rows != 0 {
		t.Fatalf("without a token the page shows data: %+v", shown)
	}
	ctxc, cancelc := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancelc()
	if err := chromedp.Do(ctxc, chromedp.SendKeys(chromedp.CSS("#token-input"), admin), chromedp.Click(chromedp.CSS("#token-save"))); err != nil {
		t.Fatal(err)
	}
	p.waitJS("secret-q after the token", visible("data")+` && !`+visible("auth-form")+` && `+cell("queue-row", "queue", "secret-q", "depth")+` === "1"`,
		`document.body.innerText`, pageWait)
}

// TestDashboardCluster: on a 3-node cluster the raft section shows three
// members, one leader, and marks the node that answers.
func TestDashboardCluster(t *testing.T) {
	nodes := cluster(t, 3)
	startAll(nodes)
	leader, followers := leaderOf(t, nodes)
	n := followers[0]
	p := openDashboard(t, n)
	p.waitJS("three members, one leader", `document.querySelectorAll("[data-testid=member-row]").length === 3 && document.querySelectorAll("[data-testid=member-row][data-leader=true]").length === 1`,
		`document.getElementById("cluster").innerText`, pageWait)
	var got struct {
		Leader, Self, Role string
		Members            []string
	}
	p.eval(`({leader: document.querySelector("[data-testid=member-row][data-leader=true]").dataset.node,
		self: document.querySelector("[data-testid=member-row][data-self=true]").dataset.node,
		role: document.querySelector("[data-testid=raft-role]").textContent, members: `+rows("member-row", "node")+`})`, &got)
	if got.Leader != strconv.Itoa(leader.id) || got.Self != strconv.Itoa(n.id) || got.Role != "follower" || len(got.Members) != 3 {
		t.Fatalf("the page shows leader %s, self %s, role %s, members %v; want leader %d, self %d, a follower",
			got.Leader, got.Self, got.Role, got.Members, leader.id, n.id)
	}
	if cellText := p.evalString(cell("member-row", "node", strconv.Itoa(leader.id), "role")); cellText != `"leader"` {
		t.Fatalf("the leader's row says %s", cellText)
	}
}

// TestDashboardSink: with the sink running against versitygw the sink
// section shows each mirrored queue's state and its committed windows.
func TestDashboardSink(t *testing.T) {
	gw := s3test.Versitygw(t)
	gw.Bucket(t, "lake")
	n := single(t, sinkEnv(gw, "lake")...)
	ctx := deadline(t, time.Minute)
	pushN(ctx, t, n, "orders", "cust-1", 3)
	p := openDashboard(t, n)
	row := `document.querySelector('[data-testid=sink-queue-row][data-queue-name=orders]')`
	p.waitJS("the orders queue's sink state", row+` && `+row+`.querySelector("[data-field=state]").textContent !== "—"`,
		`document.getElementById("sink").innerText`, pageWait)
	n.waitCommitted(t, "orders", 1)
	p.waitJS("a committed window", `Number(`+row+`.querySelector("[data-field=windowsCommitted]").textContent) >= 1`,
		`document.getElementById("sink").innerText`, pageWait)
	var state string
	p.eval(row+`.querySelector("[data-field=state]").textContent`, &state)
	api := n.sinkQueue("orders")
	// SINK-CONFIG.md §6's states.
	states := []string{"claiming", "held", "restoring", "filling", "intent", "upload", "commit", "failed", "drained", "fenced",
		"missing", "crashed", "released"}
	if !slices.Contains(states, state) || api == nil {
		t.Fatalf("page state %q, API row %v", state, api)
	}
	if p.evalString(`document.querySelector("[data-testid=sink-state]").dataset.state`) == `"off"` {
		t.Fatal("the sink section says off while the sink runs")
	}
}
