package inproc

import (
	"encoding/json"
	"fmt"
	"testing"
)

// popped is what the status test keeps of a pop: the lease and each
// message's ack item.
type popped struct {
	LeaseID  string `json:"leaseId"`
	Messages []struct {
		TransactionID string `json:"transactionId"`
		PartitionID   string `json:"partitionId"`
	} `json:"messages"`
}

// getJSON GETs target, wants 200 and decodes the answer into v.
func getJSON(t *testing.T, target string, v any) {
	t.Helper()
	w := do(t, "GET", target, "")
	want(t, w, 200, "")
	if err := json.Unmarshal(w.Body.Bytes(), v); err != nil {
		t.Fatalf("%s: %v: %s", target, err, w.Body)
	}
}

// counts is a "messages" block.
type counts struct{ Total, Pending, Processing, Completed int64 }

// TestStatusCountsFromState: the status and resources routes count from
// the node's applied state as pops and acks move it: leased messages are
// processing, an ack out of order settles one without moving the cursor,
// a group that never read a partition of a mode-all subscription owes it
// all, and a queue counts each partition by its worst group.
func TestStatusCountsFromState(t *testing.T) {
	const q = "status-orders"
	want(t, do(t, "POST", "/api/v1/configure", `{"queue":"`+q+`","options":{"namespace":"status-shop","task":"status-bill"}}`), 200, "")
	for i := range 3 {
		push(t, q, "a", fmt.Sprint("a-", i), `{"i":1}`)
	}
	for i := range 2 {
		push(t, q, "b", fmt.Sprint("b-", i), `{"i":1}`)
	}
	type depthAnswer struct {
		Pending, PartitionsPending, EffectivePending int64
		Group                                        *string
		Partitions                                   []struct {
			Partition string
			Pending   int64
		}
	}
	depth := func(query string) depthAnswer {
		t.Helper()
		var d depthAnswer
		getJSON(t, "/api/v1/resources/queues/"+q+"/depth"+query, &d)
		return d
	}
	if d := depth(""); d.Pending != 5 || d.PartitionsPending != 2 || d.EffectivePending != 5 || d.Group != nil ||
		len(d.Partitions) != 2 || d.Partitions[0].Partition != "a" || d.Partitions[0].Pending != 3 {
		t.Fatalf("depth before any pop: %+v", d)
	}

	// Queue mode leases a-0 and a-1.
	var p popped
	getJSON(t, "/api/v1/pop/queue/"+q+"/partition/a?batch=2", &p)
	if len(p.Messages) != 2 {
		t.Fatalf("pop: %+v", p)
	}
	type queueAnswer struct {
		Totals struct {
			Partitions int
			Messages   counts
		}
		Partitions []struct {
			Name        string
			PartitionID string
			Messages    counts
		}
		ConsumerGroups []struct {
			Name             string
			SubscriptionMode string
			Messages         counts
			Partitions       []struct {
				Partition           string
				Cursor              int64
				Pending, Processing int64
				LeaseID             *string
			}
		}
	}
	status := func() queueAnswer {
		t.Helper()
		var a queueAnswer
		getJSON(t, "/api/v1/status/queues/"+q, &a)
		return a
	}
	a := status()
	if a.Totals.Partitions != 2 || a.Totals.Messages != (counts{5, 3, 2, 0}) || len(a.ConsumerGroups) != 1 ||
		a.ConsumerGroups[0].Name != "__QUEUE_MODE__" || a.ConsumerGroups[0].SubscriptionMode != "all" {
		t.Fatalf("status after the pop: %+v", a)
	}
	if ga := a.ConsumerGroups[0].Partitions[0]; ga.Pending != 1 || ga.Processing != 2 || ga.LeaseID == nil || *ga.LeaseID != p.LeaseID {
		t.Fatalf("queue mode on a: %+v", ga)
	}

	// a-1 settled out of order (filed in the DLQ: a completed ack would
	// commit a-0 with it): the cursor stays, one settled.
	ack := func(i int, status string) {
		t.Helper()
		m := p.Messages[i]
		want(t, do(t, "POST", "/api/v1/ack", fmt.Sprintf(`{"transactionId":%q,"partitionId":%q,"leaseId":%q,"status":%q}`,
			m.TransactionID, m.PartitionID, p.LeaseID, status)), 200, "")
	}
	ack(1, "dlq")
	if d := depth("?group=__QUEUE_MODE__"); d.Pending != 4 || d.Partitions[0].Pending != 2 || d.Group == nil {
		t.Fatalf("depth after an ack out of order: %+v", d)
	}
	a = status()
	if ga := a.ConsumerGroups[0].Partitions[0]; ga.Cursor != 0 || ga.Pending != 1 || ga.Processing != 1 ||
		a.Partitions[0].Messages != (counts{3, 1, 1, 1}) {
		t.Fatalf("after an ack out of order: %+v", a)
	}
	ack(0, "completed")
	a = status()
	if ga := a.ConsumerGroups[0].Partitions[0]; ga.Cursor != 2 || ga.Pending != 1 || ga.Processing != 0 || ga.LeaseID != nil ||
		a.Totals.Messages != (counts{5, 3, 0, 2}) {
		t.Fatalf("after both acks: %+v", a)
	}

	// Group g (mode all) leases b-0; it never read a, so it owes all of a:
	// the queue counts a by g (3), b by queue mode (the first on a tie).
	getJSON(t, "/api/v1/pop/queue/"+q+"/partition/b?consumerGroup=g&subscriptionMode=all", &p)
	if d := depth("?consumerGroup=g"); d.Pending != 5 || d.Partitions[0].Pending != 3 || d.Partitions[1].Pending != 2 {
		t.Fatalf("g's depth: %+v", d)
	}
	if d := depth(""); d.Pending != 5 {
		t.Fatalf("the queue's depth: %+v", d)
	}
	a = status()
	if len(a.ConsumerGroups) != 2 || a.ConsumerGroups[1].Name != "g" || a.ConsumerGroups[1].Messages != (counts{5, 4, 1, 0}) ||
		a.Totals.Messages != (counts{5, 5, 0, 0}) {
		t.Fatalf("with g: %+v", a)
	}
	want(t, do(t, "GET", "/api/v1/resources/queues/"+q+"/depth?group=nobody", ""), 404, "not_found")
	want(t, do(t, "GET", "/api/v1/status/queues/status-none", ""), 404, "queue_not_found")

	// The namespace and task of the queue's options group it.
	var ns struct {
		Namespaces []struct {
			Namespace  string
			Queues     int
			QueueNames []string
			Messages   counts
		}
	}
	getJSON(t, "/api/v1/resources/namespaces", &ns)
	found := false
	for _, n := range ns.Namespaces {
		if n.Namespace == "status-shop" {
			found = n.Queues == 1 && n.QueueNames[0] == q && n.Messages == (counts{5, 5, 0, 0})
		}
	}
	if !found {
		t.Fatalf("namespaces: %+v", ns)
	}
	var tasks struct{ Tasks []struct{ Task string } }
	getJSON(t, "/api/v1/resources/tasks", &tasks)
	var sq struct {
		Queues []struct {
			Name, Namespace, Task string
			ConsumerGroups        int
		}
		Pagination struct{ Total int }
	}
	getJSON(t, "/api/v1/status/queues?task=status-bill", &sq)
	if sq.Pagination.Total != 1 || sq.Queues[0].Name != q || sq.Queues[0].Namespace != "status-shop" || sq.Queues[0].ConsumerGroups != 2 {
		t.Fatalf("status/queues: %+v", sq)
	}
	// resources/queues shows the same id, namespace and task.
	var rq struct{ ID, Namespace, Task string }
	getJSON(t, "/api/v1/resources/queues/"+q, &rq)
	var sd struct{ Queue struct{ ID string } }
	getJSON(t, "/api/v1/status/queues/"+q, &sd)
	if rq.Namespace != "status-shop" || rq.Task != "status-bill" || rq.ID != sd.Queue.ID || rq.ID == "00000000-0000-0000-0000-000000000000" {
		t.Fatalf("resources/queues/%s: %+v, status: %+v", q, rq, sd)
	}
	var parts struct {
		Partitions []struct {
			Name, Queue, PartitionID string
			LastOffset, LogStart     int64
		}
	}
	getJSON(t, "/api/v1/resources/partitions?queue="+q, &parts)
	if len(parts.Partitions) != 2 || parts.Partitions[1].Name != "b" || parts.Partitions[1].LastOffset != 1 ||
		parts.Partitions[1].PartitionID == "" {
		t.Fatalf("partitions: %+v", parts)
	}
	var ov struct {
		Queues, ConsumerGroups int
		Leases                 struct{ Active, Partitions int }
	}
	getJSON(t, "/api/v1/resources/overview", &ov)
	if ov.Queues < 1 || ov.ConsumerGroups < 2 || ov.Leases.Active < 1 {
		t.Fatalf("overview: %+v", ov)
	}
}
