package httpd

import (
	"context"
	"net/http"
	"testing"
)

// The stamps of the status fixtures.
const (
	statsStamp = 1_758_536_130_000_001 // 2025-09-22T10:15:30.000001Z
	stampA     = 1_758_536_100_000_000 // 2025-09-22T10:15:00Z
)

// statsFixture is three queues of one tenant:
//
//   - orders (namespace shop, task billing), read by g1 and queue mode:
//     partition a holds offsets 2..9, g1 has 5 to settle of which its
//     lease L1 holds 2, queue mode all 8; partition b is empty.
//   - empty (namespace shop): partition Default holds 0..2, no group.
//   - solo: no partition.
func statsFixture() Stats {
	orders := QueueStats{
		QueueSummary: QueueSummary{ID: [16]byte{1}, Name: "orders", Namespace: "shop", Task: "billing", Created: stampA, PartitionCount: 2},
		Groups: []GroupSub{{Name: "__QUEUE_MODE__", SubscribedAt: stampA, SubscriptionMode: "all"},
			{Name: "g1", SubscribedAt: stampA, SubscriptionMode: "new"}},
		Partitions: []PartitionStats{
			{ChangedPartition: ChangedPartition{Name: "a", ID: [16]byte{2}, LastOffset: 9, LogStart: 2, LastWrite: stampA},
				PartitionID: "7", Created: stampA,
				Groups: []GroupPosition{{Cursor: 2, Unsettled: 8}, {Cursor: 5, Unsettled: 5, Leased: 2, LeaseID: "L1", LeaseExpiresAt: statsStamp}}},
			{ChangedPartition: ChangedPartition{Name: "b", ID: [16]byte{3}, LastOffset: -1}, PartitionID: "8", Created: stampA,
				Groups: []GroupPosition{{}, {}}},
		},
	}
	empty := QueueStats{
		QueueSummary: QueueSummary{ID: [16]byte{4}, Name: "empty", Namespace: "shop", Created: stampA, PartitionCount: 1},
		Partitions: []PartitionStats{{ChangedPartition: ChangedPartition{Name: "Default", ID: [16]byte{5}, LastOffset: 2, LastWrite: statsStamp},
			PartitionID: "9", Created: stampA}},
	}
	solo := QueueStats{QueueSummary: QueueSummary{ID: [16]byte{6}, Name: "solo", Created: stampA}}
	return Stats{Stamp: statsStamp, Queues: []QueueStats{empty, orders, solo}}
}

// statsBroker serves statsFixture, one queue when asked for one.
func statsBroker() *fakeBroker {
	return &fakeBroker{queueStats: func(_ context.Context, _, queue string) (Stats, error) {
		st := statsFixture()
		if queue == "" {
			return st, nil
		}
		out := Stats{Stamp: st.Stamp}
		for _, q := range st.Queues {
			if q.Name == queue {
				out.Queues = append(out.Queues, q)
			}
		}
		return out, nil
	}}
}

func TestOverview(t *testing.T) {
	e := newEnv(t, statsBroker(), Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/resources/overview", ""), 200, `{"queues":3,"partitions":3,"namespaces":1,"tasks":1,
		"consumerGroups":2,"messages":{"total":11,"pending":11,"processing":0,"completed":0},
		"leases":{"active":1,"partitions":1,"messages":2},"lastWriteAt":"2025-09-22T10:15:30.000001Z",
		"safeTime":"2025-09-22T10:15:30.000001Z"}`)
	e.fb.wantCall(t, "QueueStats", "")
}

func TestNamespacesAndTasks(t *testing.T) {
	e := newEnv(t, statsBroker(), Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/resources/namespaces", ""), 200, `{"namespaces":[{"namespace":"shop","queues":2,
		"partitions":3,"messages":{"total":11,"pending":11,"processing":0,"completed":0},"queueNames":["empty","orders"],
		"lastWriteAt":"2025-09-22T10:15:30.000001Z"}]}`)
	wantJSON(t, e.do(t, "GET", "/api/v1/resources/tasks", ""), 200, `{"tasks":[{"task":"billing","queues":1,"partitions":2,
		"messages":{"total":8,"pending":8,"processing":0,"completed":0},"queueNames":["orders"],
		"lastWriteAt":"2025-09-22T10:15:00.000000Z"}]}`)
	e = newEnv(t, nil, Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/resources/namespaces", ""), 200, `{"namespaces":[]}`)
}

func TestResourcesPartitions(t *testing.T) {
	e := newEnv(t, statsBroker(), Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/resources/partitions?queue=orders&limit=1", ""), 200, `{"partitions":[
		{"id":"02000000-0000-0000-0000-000000000000","partitionId":"7","name":"a","queue":"orders","namespace":"shop",
		"task":"billing","createdAt":"2025-09-22T10:15:00.000000Z","lastOffset":9,"logStart":2,
		"lastWriteAt":"2025-09-22T10:15:00.000000Z","messages":{"total":8,"pending":8,"processing":0,"completed":0}}],
		"truncated":true}`)
	if c := e.fb.only(t); c.arg != "orders" {
		t.Fatalf("call %+v", c)
	}
	var all struct {
		Partitions []partitionRow `json:"partitions"`
		Truncated  bool           `json:"truncated"`
	}
	decode(t, e.do(t, "GET", "/api/v1/resources/partitions", ""), &all)
	if len(all.Partitions) != 3 || all.Truncated || all.Partitions[0].Queue != "empty" || all.Partitions[2].Name != "b" ||
		all.Partitions[2].LastWriteAt != nil || all.Partitions[2].LastOffset != -1 {
		t.Fatalf("partitions: %+v", all)
	}
	wantJSON(t, e.do(t, "GET", "/api/v1/resources/partitions?queue=none", ""), 200, `{"partitions":[],"truncated":false}`)
	for _, bad := range []string{"limit=0", "limit=1001", "limit=x"} {
		wantError(t, e.do(t, "GET", "/api/v1/resources/partitions?"+bad, ""), 400, CodeBadRequest, "limit")
	}
}

func TestDepth(t *testing.T) {
	cases := []struct{ target, want string }{
		{"/api/v1/resources/queues/orders/depth", `{"queue":"orders","group":null,"pending":8,"partitionsPending":1,
			"conflation":false,"effectivePending":8,"partitions":[{"partition":"a","pending":8},{"partition":"b","pending":0}]}`},
		{"/api/v1/resources/queues/orders/depth?group=g1", `{"queue":"orders","group":"g1","pending":5,"partitionsPending":1,
			"conflation":false,"effectivePending":5,"partitions":[{"partition":"a","pending":5},{"partition":"b","pending":0}]}`},
		{"/api/v1/resources/queues/orders/depth?consumerGroup=g1&group=g1", `{"queue":"orders","group":"g1","pending":5,
			"partitionsPending":1,"conflation":false,"effectivePending":5,"partitions":[{"partition":"a","pending":5},
			{"partition":"b","pending":0}]}`},
		// Queue mode before its first pop reads from the first record: all pending.
		{"/api/v1/resources/queues/empty/depth?consumerGroup=__QUEUE_MODE__", `{"queue":"empty","group":"__QUEUE_MODE__",
			"pending":3,"partitionsPending":1,"conflation":false,"effectivePending":3,"partitions":[{"partition":"Default","pending":3}]}`},
		{"/api/v1/resources/queues/solo/depth", `{"queue":"solo","group":null,"pending":0,"partitionsPending":0,
			"conflation":false,"effectivePending":0,"partitions":[]}`},
	}
	for _, c := range cases {
		e := newEnv(t, statsBroker(), Options{})
		wantJSON(t, e.do(t, "GET", c.target, ""), 200, c.want)
	}
	e := newEnv(t, statsBroker(), Options{})
	wantError(t, e.do(t, "GET", "/api/v1/resources/queues/none/depth", ""), 404, CodeQueueNotFound, `"none"`)
	wantError(t, e.do(t, "GET", "/api/v1/resources/queues/orders/depth?group=g2", ""), 404, CodeNotFound, `"g2"`)
	wantError(t, e.do(t, "GET", "/api/v1/resources/queues/orders/depth?group=g1&consumerGroup=g2", ""), 400, CodeBadRequest, "differ")
	// The path segment is unescaped, as on resources/queues/:queue.
	e = newEnv(t, nil, Options{})
	e.do(t, "GET", "/api/v1/resources/queues/c%20d/depth", "")
	if c := e.fb.only(t); c.arg != "c d" {
		t.Fatalf("call %+v", c)
	}
}

func TestStatusQueues(t *testing.T) {
	e := newEnv(t, statsBroker(), Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/status/queues?namespace=shop&limit=1&offset=1", ""), 200, `{"queues":[
		{"id":"01000000-0000-0000-0000-000000000000","name":"orders","namespace":"shop","task":"billing",
		"createdAt":"2025-09-22T10:15:00.000000Z","partitionCount":2,"partitions":2,"consumerGroups":2,
		"messages":{"total":8,"pending":8,"processing":0,"completed":0},"lastWriteAt":"2025-09-22T10:15:00.000000Z"}],
		"pagination":{"limit":1,"offset":1,"total":2}}`)
	var all struct {
		Queues     []queueStatus  `json:"queues"`
		Pagination map[string]int `json:"pagination"`
	}
	decode(t, e.do(t, "GET", "/api/v1/status/queues", ""), &all)
	if len(all.Queues) != 3 || all.Pagination["limit"] != DefaultStatusQueuesLimit || all.Pagination["total"] != 3 ||
		all.Queues[2].Name != "solo" || all.Queues[2].LastWriteAt != nil {
		t.Fatalf("status/queues: %+v", all)
	}
	wantJSON(t, e.do(t, "GET", "/api/v1/status/queues?task=none", ""), 200, `{"queues":[],"pagination":{"limit":100,"offset":0,"total":0}}`)
	wantError(t, e.do(t, "GET", "/api/v1/status/queues?offset=-1", ""), 400, CodeBadRequest, "offset")
}

func TestStatusQueue(t *testing.T) {
	e := newEnv(t, statsBroker(), Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/status/queues/orders", ""), 200, `{
		"queue":{"id":"01000000-0000-0000-0000-000000000000","name":"orders","namespace":"shop","task":"billing",
			"createdAt":"2025-09-22T10:15:00.000000Z","partitionCount":2},
		"safeTime":"2025-09-22T10:15:30.000001Z",
		"totals":{"partitions":2,"messages":{"total":8,"pending":8,"processing":0,"completed":0},
			"lastWriteAt":"2025-09-22T10:15:00.000000Z"},
		"partitions":[
			{"id":"02000000-0000-0000-0000-000000000000","partitionId":"7","name":"a","createdAt":"2025-09-22T10:15:00.000000Z",
				"lastOffset":9,"logStart":2,"lastWriteAt":"2025-09-22T10:15:00.000000Z",
				"messages":{"total":8,"pending":8,"processing":0,"completed":0}},
			{"id":"03000000-0000-0000-0000-000000000000","partitionId":"8","name":"b","createdAt":"2025-09-22T10:15:00.000000Z",
				"lastOffset":-1,"logStart":0,"lastWriteAt":null,"messages":{"total":0,"pending":0,"processing":0,"completed":0}}],
		"consumerGroups":[
			{"name":"__QUEUE_MODE__","subscribedAt":"2025-09-22T10:15:00.000000Z","subscriptionMode":"all",
				"messages":{"total":8,"pending":8,"processing":0,"completed":0},
				"partitions":[{"partition":"a","cursor":2,"pending":8,"processing":0,"leaseId":null,"leaseExpiresAt":null},
					{"partition":"b","cursor":0,"pending":0,"processing":0,"leaseId":null,"leaseExpiresAt":null}]},
			{"name":"g1","subscribedAt":"2025-09-22T10:15:00.000000Z","subscriptionMode":"new",
				"messages":{"total":8,"pending":3,"processing":2,"completed":3},
				"partitions":[{"partition":"a","cursor":5,"pending":3,"processing":2,"leaseId":"L1",
					"leaseExpiresAt":"2025-09-22T10:15:30.000001Z"},
					{"partition":"b","cursor":0,"pending":0,"processing":0,"leaseId":null,"leaseExpiresAt":null}]}]}`)
	wantError(t, e.do(t, "GET", "/api/v1/status/queues/none", ""), 404, CodeQueueNotFound, `"none"`)
}

func TestAPIStatusAndAnalytics(t *testing.T) {
	e := newEnv(t, statsBroker(), Options{})
	var st statusAnswer
	w := e.do(t, "GET", "/api/v1/status?from=2025-09-22T10:00:00Z", "")
	wantStatus(t, w, 200)
	decode(t, w, &st)
	if st.TimeRange.From == nil || *st.TimeRange.From != "2025-09-22T10:00:00.000000Z" || st.TimeRange.To != nil ||
		st.Queues != 3 || st.Partitions != 3 || st.ConsumerGroups != 2 || st.Messages.Total != 11 || st.Leases.Active != 1 ||
		st.Throughput.Interval != 0 || len(st.Throughput.TimeSeries) != 0 {
		t.Fatalf("status: %+v", st)
	}
	var an struct {
		TopQueues []struct {
			Name     string    `json:"name"`
			Messages msgCounts `json:"messages"`
		} `json:"topQueues"`
		Throughput throughputBlock `json:"throughput"`
	}
	decode(t, e.do(t, "GET", "/api/v1/status/analytics?interval=minute", ""), &an)
	if len(an.TopQueues) != 2 || an.TopQueues[0].Name != "orders" || an.TopQueues[1].Name != "empty" {
		t.Fatalf("analytics: %+v", an)
	}
	for _, path := range []string{"/api/v1/status", "/api/v1/status/analytics"} {
		wantError(t, e.do(t, "GET", path+"?from=yesterday", ""), 400, CodeBadRequest, "from")
		wantError(t, e.do(t, "GET", path+"?from=2025-09-23&to=2025-09-22", ""), 400, CodeBadRequest, "after")
	}
}

// TestStatusRoutesNeedStatuser: over a Broker that is not a Statuser, the
// status and resources routes are 404 no_such_route; the node's metric
// series are served all the same.
func TestStatusRoutesNeedStatuser(t *testing.T) {
	fb := statsBroker()
	e := &env{h: New(brokerOnly{fb}, Options{}), fb: fb}
	for _, target := range []string{"/api/v1/status", "/api/v1/status/queues", "/api/v1/status/queues/q",
		"/api/v1/status/analytics", "/api/v1/resources/overview", "/api/v1/resources/namespaces", "/api/v1/resources/tasks",
		"/api/v1/resources/partitions", "/api/v1/resources/queues/q/depth"} {
		wantJSON(t, e.do(t, "GET", target, ""), http.StatusNotFound, `{"error":"Not Found","code":"no_such_route"}`)
	}
	wantStatus(t, e.do(t, "GET", "/api/v1/analytics/system-metrics", ""), 200)
	fb.none(t)
}
