package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The checker: producers and consumers of one group run against three
// nodes while the leader is killed, every client records what it asked and
// what it was told with real-time intervals, and the histories alone are
// checked against the guarantees of pop and ack (guarantees.md).
const (
	ckQueue     = "checked"
	ckGroup     = "workers"
	ckParts     = 6
	ckSkew      = 300 * time.Millisecond // QUEEN_RAFT_MAX_CLOCK_SKEW_MS given to the nodes
	ckLease     = 2                      // leaseSeconds of the consumers' pops
	ckDrainWait = 4000                   // ms a drain pop long-polls: more than a lease plus the skew
)

// ckDelivery is one message a pop delivered.
type ckDelivery struct {
	Part    string
	PID     string // partitionId, for acks
	Offset  int64
	Attempt int
	TxID    string
}

// ckPop is one pop call. Code 200 or 204 is a known outcome; anything else
// (0: no answer) is unknown: the pop may have leased messages nobody saw.
type ckPop struct {
	Client, Node     int
	Invoke, Complete time.Time
	Code             int
	Err              string
	Lease            time.Duration
	LeaseID          string
	Msgs             []ckDelivery
}

// parts lists the partitions the pop leased, in answer order.
func (p *ckPop) parts() []string {
	var out []string
	for _, m := range p.Msgs {
		if !slices.Contains(out, m.Part) {
			out = append(out, m.Part)
		}
	}
	return out
}

// ckAckItem is one acknowledgment of an ack call.
type ckAckItem struct {
	ckDelivery
	Status string
}

// ckAck is one attempt of an ack call (a retry is a new attempt with the
// same body). Code 200 with one result per item is known; anything else
// is unknown: the ack may have applied.
type ckAck struct {
	Client, Node     int
	Invoke, Complete time.Time
	Code             int
	Err              string
	LeaseID          string
	Attempt          int
	Items            []ckAckItem
	Results          []ackResult
}

func (a *ckAck) known() bool { return a.Code == 200 && len(a.Results) == len(a.Items) }

// ckExtend is one lease extension attempt.
type ckExtend struct {
	Client, Node     int
	Invoke, Complete time.Time
	Code             int
	LeaseID          string
	Seconds          int
	Success          bool
	Renewed          int
}

// ckPush is one attempt of a push call; Code 201 is acknowledged.
type ckPush struct {
	Client, Node     int
	Invoke, Complete time.Time
	Code             int
	Err              string
	Items            []pushItem
	Answers          []pushAnswer
}

// ckHistory is every client's record of the run.
type ckHistory struct {
	mu        sync.Mutex
	t0        time.Time
	pops      []*ckPop
	acks      []*ckAck
	exts      []*ckExtend
	pushes    []*ckPush
	completed int // ack items answered success with status completed, not noop
	expired   int // leases let expire on purpose
	slow      int // acks sent near or past their lease's end on purpose
	commits   int // pops acked by their last offset per partition alone
}

func (h *ckHistory) at(t time.Time) string { return fmt.Sprintf("%.3fs", t.Sub(h.t0).Seconds()) }

func (h *ckHistory) fmtPop(p *ckPop) string {
	var b strings.Builder
	fmt.Fprintf(&b, "pop c%d n%d [%s, %s] %d lease %s(%v):", p.Client, p.Node, h.at(p.Invoke), h.at(p.Complete), p.Code, p.LeaseID, p.Lease)
	for _, m := range p.Msgs {
		fmt.Fprintf(&b, " %s/%d#%d", m.Part, m.Offset, m.Attempt)
	}
	if p.Err != "" {
		fmt.Fprintf(&b, " err %.120s", p.Err)
	}
	return b.String()
}

func (h *ckHistory) fmtAck(a *ckAck) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ack c%d n%d try %d [%s, %s] %d lease %s:", a.Client, a.Node, a.Attempt, h.at(a.Invoke), h.at(a.Complete), a.Code, a.LeaseID)
	for i, it := range a.Items {
		fmt.Fprintf(&b, " %s/%d %s", it.Part, it.Offset, it.Status)
		if a.known() {
			r := a.Results[i]
			switch {
			case r.Success && r.Noop:
				b.WriteString("=noop")
			case r.Success && r.LeaseReleased:
				b.WriteString("=ok+released")
			case r.Success:
				b.WriteString("=ok")
			default:
				b.WriteString("=refused")
			}
		}
	}
	if a.Err != "" {
		fmt.Fprintf(&b, " err %.120s", a.Err)
	}
	return b.String()
}

// ckClient is one producer, consumer or the drain, with its own random
// source (math/rand's Rand is not safe for concurrent use).
type ckClient struct {
	t     *testing.T
	id    int
	h     *ckHistory
	rng   *rand.Rand
	alive func() []*node
}

func (c *ckClient) node() *node {
	ns := c.alive()
	return ns[c.rng.IntN(len(ns))]
}

// send makes one call with its own deadline (longer than the nodes'
// QUEEN_STMT_TIMEOUT_MS, so the node answers first when it can).
func send(n *node, method, path string, body, out any, d time.Duration) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return n.call(ctx, method, path, body, out)
}

// pop makes one pop and records it.
func (c *ckClient) pop(q url.Values, lease time.Duration) *ckPop {
	n := c.node()
	p := &ckPop{Client: c.id, Node: n.id, Lease: lease}
	var a popAnswer
	p.Invoke = time.Now()
	code, err := send(n, http.MethodGet, "/api/v1/pop/queue/"+ckQueue+"?"+q.Encode(), nil, &a, 15*time.Second)
	p.Complete = time.Now()
	p.Code = code
	if err != nil {
		p.Err = err.Error()
	}
	switch {
	case code >= 400 && code < 500:
		c.t.Errorf("pop refused: %d %v", code, err)
	case code == 200 && err != nil:
		c.t.Errorf("pop answer does not decode: %v", err)
		p.Code = -1 // unknown
	case code == 200:
		p.LeaseID = a.LeaseID
		for _, m := range a.Messages {
			if m.LeaseID != a.LeaseID {
				c.t.Errorf("pop answered lease %s with a message of lease %s", a.LeaseID, m.LeaseID)
			}
			p.Msgs = append(p.Msgs, ckDelivery{Part: m.Partition, PID: m.PartitionID, Offset: m.Offset, Attempt: m.DeliveryAttempt, TxID: m.TransactionID})
		}
		if len(p.Msgs) == 0 || a.LeaseID == "" || a.PartitionsClaimed != len(p.parts()) {
			c.t.Errorf("pop answered 200 with %d messages, lease %q, %d partitions claimed: %+v", len(p.Msgs), a.LeaseID, a.PartitionsClaimed, a)
		}
	}
	c.h.mu.Lock()
	c.h.pops = append(c.h.pops, p)
	c.h.mu.Unlock()
	return p
}

// ack acks items under leaseID, retrying the same body through any node
// until some node answers it (a 503 or a lost answer leaves the outcome
// unknown, and the fenced retry cannot settle anything twice).
func (c *ckClient) ack(leaseID string, items []ckAckItem) {
	var body []map[string]any
	for _, it := range items {
		body = append(body, map[string]any{"transactionId": it.TxID, "partitionId": it.PID, "leaseId": leaseID, "status": it.Status})
	}
	for attempt := 0; ; attempt++ {
		n := c.node()
		a := &ckAck{Client: c.id, Node: n.id, LeaseID: leaseID, Attempt: attempt, Items: items}
		a.Invoke = time.Now()
		code, err := send(n, http.MethodPost, "/api/v1/ack/batch", map[string]any{"acknowledgments": body, "consumerGroup": ckGroup}, &a.Results, 10*time.Second)
		a.Complete = time.Now()
		a.Code = code
		if err != nil {
			a.Err = err.Error()
		}
		if code == 200 && !a.known() {
			c.t.Errorf("ack answered %d results for %d items: %v", len(a.Results), len(items), err)
			a.Code = -1
		}
		c.h.mu.Lock()
		c.h.acks = append(c.h.acks, a)
		if a.known() {
			for i, r := range a.Results {
				if r.Success && !r.Noop && items[i].Status == "completed" {
					c.h.completed++
				}
			}
		}
		c.h.mu.Unlock()
		switch {
		case a.known():
			return
		case code >= 400 && code < 500:
			c.t.Errorf("ack refused: %d %v", code, err)
			return
		case attempt >= 100:
			c.t.Errorf("ack under lease %s never answered in %d attempts: %v", leaseID, attempt+1, err)
			return
		}
		time.Sleep(50 * time.Millisecond) // back off before the retry, as a client should
	}
}

// extend extends a lease by ckLease seconds once (no retry: an extension
// whose outcome is unknown can only have made the lease longer).
func (c *ckClient) extend(leaseID string) {
	n := c.node()
	e := &ckExtend{Client: c.id, Node: n.id, LeaseID: leaseID, Seconds: ckLease}
	var out struct {
		Success bool `json:"success"`
		Renewed int  `json:"renewed"`
	}
	e.Invoke = time.Now()
	code, err := send(n, http.MethodPost, "/api/v1/lease/"+url.PathEscape(leaseID)+"/extend", map[string]any{"seconds": ckLease}, &out, 10*time.Second)
	e.Complete = time.Now()
	e.Code = code
	if code == 200 && err == nil {
		e.Success, e.Renewed = out.Success, out.Renewed
	} else if code >= 400 && code < 500 {
		c.t.Errorf("extend refused: %d %v", code, err)
	}
	c.h.mu.Lock()
	c.h.exts = append(c.h.exts, e)
	c.h.mu.Unlock()
}

// produce pushes one to three messages at a time to random partitions,
// each with its own transactionId, retrying a push with the same ids
// through any node until one answers 201.
func (c *ckClient) produce(ctx context.Context) {
	for i := 0; ctx.Err() == nil; i++ {
		var items []pushItem
		for j := range 1 + c.rng.IntN(3) {
			items = append(items, pushItem{Queue: ckQueue, Partition: fmt.Sprint("c-", c.rng.IntN(ckParts)), TransactionID: fmt.Sprintf("w%d-%d-%d", c.id, i, j),
				Payload: json.RawMessage(fmt.Sprintf(`{"w":%d,"i":%d,"j":%d}`, c.id, i, j))})
		}
		for attempt := 0; ; attempt++ {
			n := c.node()
			p := &ckPush{Client: c.id, Node: n.id, Items: items}
			p.Invoke = time.Now()
			var out []pushAnswer
			code, err := send(n, http.MethodPost, "/api/v1/push", map[string]any{"items": items}, &out, 10*time.Second)
			p.Complete = time.Now()
			p.Code = code
			if err != nil {
				p.Err = err.Error()
			}
			if code == 201 && (err != nil || len(out) != len(items)) {
				c.t.Errorf("push answered %d results for %d items: %v", len(out), len(items), err)
				p.Code = -1
			}
			if p.Code == 201 {
				p.Answers = out
			}
			c.h.mu.Lock()
			c.h.pushes = append(c.h.pushes, p)
			c.h.mu.Unlock()
			if p.Code == 201 {
				break
			}
			if code >= 400 && code < 500 {
				c.t.Errorf("push refused: %d %v", code, err)
				return
			}
			if attempt >= 200 {
				return // never acknowledged: the checker expects nothing of it
			}
			time.Sleep(50 * time.Millisecond) // back off before the retry
		}
		time.Sleep(time.Duration(50+c.rng.IntN(40)) * time.Millisecond) // pacing
	}
}

// consume pops (batch 1..8, one or two partitions, short leases, a long
// poll of 1 s) through random nodes and acks most messages completed, some
// failed or retry; now and then it extends a lease, acks late (near or past
// the lease's end) or lets the lease expire without acking.
func (c *ckClient) consume(ctx context.Context) {
	for ctx.Err() == nil {
		parts := 1
		if c.rng.IntN(5) == 0 {
			parts = 2
		}
		q := url.Values{"consumerGroup": {ckGroup}, "subscriptionMode": {"all"}, "batch": {strconv.Itoa(1 + c.rng.IntN(8))},
			"partitions": {strconv.Itoa(parts)}, "wait": {"true"}, "timeout": {"1000"}, "leaseSeconds": {strconv.Itoa(ckLease)}}
		p := c.pop(q, ckLease*time.Second)
		if p.Code == 204 {
			continue
		}
		if p.Code != 200 {
			time.Sleep(50 * time.Millisecond) // unknown outcome: what it may have leased comes back when the lease ends
			continue
		}
		r := c.rng.Float64()
		if r < 0.02 {
			c.h.mu.Lock()
			c.h.expired++
			c.h.mu.Unlock()
			continue
		}
		if len(p.parts()) == 1 && c.rng.IntN(8) == 0 {
			c.extend(p.LeaseID)
		}
		if r < 0.04 {
			// Ack late: from 300 ms before the lease's end to 200 ms past its
			// end plus the skew margin. Early enough, the broker takes it
			// (nobody else can hold the partition before then); later, it
			// refuses and the messages come back.
			c.h.mu.Lock()
			c.h.slow++
			c.h.mu.Unlock()
			time.Sleep(time.Until(p.Invoke.Add(ckLease*time.Second - 300*time.Millisecond + time.Duration(c.rng.IntN(int(ckSkew/time.Millisecond)+500))*time.Millisecond)))
		} else {
			time.Sleep(time.Duration(c.rng.IntN(20)) * time.Millisecond) // processing
		}
		var items []ckAckItem
		for _, m := range p.Msgs {
			st := "completed"
			switch x := c.rng.IntN(100); {
			case x < 8:
				st = "failed"
			case x < 12:
				st = "retry"
			}
			items = append(items, ckAckItem{m, st})
		}
		switch x := c.rng.IntN(10); {
		case x == 0:
			// An offset commit: the last message of each partition alone,
			// completed, settles the lease's earlier ones.
			items = items[:0]
			for i, m := range p.Msgs {
				if i == len(p.Msgs)-1 || p.Msgs[i+1].Part != m.Part {
					items = append(items, ckAckItem{m, "completed"})
				}
			}
			c.h.mu.Lock()
			c.h.commits++
			c.h.mu.Unlock()
		case x == 1:
			slices.Reverse(items) // a nack clamps the commit by offset, not by item order
		}
		if len(items) > 1 && c.rng.IntN(4) == 0 {
			cut := 1 + c.rng.IntN(len(items)-1)
			c.ack(p.LeaseID, items[:cut])
			c.ack(p.LeaseID, items[cut:])
		} else {
			c.ack(p.LeaseID, items)
		}
	}
}

// drain pops everything that is left, through any node, and acks it
// completed, until a long poll of ckDrainWait finds nothing: by then every
// lease the run left (ckLease plus the skew at most after its last pop or
// extension) has ended.
func (c *ckClient) drain(t *testing.T) {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		q := url.Values{"consumerGroup": {ckGroup}, "subscriptionMode": {"all"}, "batch": {"200"}, "partitions": {strconv.Itoa(ckParts)},
			"wait": {"true"}, "timeout": {strconv.Itoa(ckDrainWait)}, "leaseSeconds": {"3"}}
		p := c.pop(q, 3*time.Second)
		switch p.Code {
		case 204:
			return
		case 200:
			var items []ckAckItem
			for _, m := range p.Msgs {
				items = append(items, ckAckItem{m, "completed"})
			}
			c.ack(p.LeaseID, items)
		default:
			time.Sleep(50 * time.Millisecond)
		}
	}
	t.Fatal("the drain did not end within 60 s")
}

func (h *ckHistory) waitCompleted(t *testing.T, n int, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		h.mu.Lock()
		got := h.completed
		h.mu.Unlock()
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d acks completed within %v", got, n, d)
		}
		time.Sleep(20 * time.Millisecond) // acks carry no event a test can wait on: poll the count
	}
}

func (h *ckHistory) completedCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.completed
}

// TestConsumeChecker: producers and consumers of one group run for about
// 20 s against three nodes while the leader is killed with SIGKILL and
// restarted; the rest is drained; then the histories alone are checked
// (see ckHistory.check).
func TestConsumeChecker(t *testing.T) {
	nodes := startedCluster(t, 3, "three processes and a failover; run without -short", fmt.Sprintf("QUEEN_RAFT_MAX_CLOCK_SKEW_MS=%d", ckSkew.Milliseconds()))
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	// retryLimit high enough that a failed ack never files a message in the
	// DLQ: every message ends completed.
	if err := nodes[0].configure(ctx, ckQueue, map[string]any{"retryLimit": 1000, "retryDelay": 100, "leaseTime": ckLease}); err != nil {
		t.Fatalf("configure: %v", err)
	}
	cancel()

	var mu sync.Mutex
	live := append([]*node(nil), nodes...)
	alive := func() []*node { mu.Lock(); defer mu.Unlock(); return append([]*node(nil), live...) }
	h := &ckHistory{t0: time.Now()}
	client := func(id int) *ckClient {
		return &ckClient{t: t, id: id, h: h, rng: rand.New(rand.NewPCG(seed, uint64(id))), alive: alive}
	}
	load, stop := context.WithCancel(context.Background())
	defer stop()
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() { defer wg.Done(); client(i).produce(load) }()
	}
	for i := range 6 {
		wg.Add(1)
		go func() { defer wg.Done(); client(10 + i).consume(load) }()
	}
	loadStart := time.Now()
	h.waitCompleted(t, 200, 60*time.Second)
	leader, _ := leaderOf(t, nodes)
	mu.Lock()
	live = slices.DeleteFunc(live, func(n *node) bool { return n == leader })
	mu.Unlock()
	killedAt := time.Now()
	leader.signal(syscall.SIGKILL)
	t.Logf("killed leader %d at %s", leader.id, h.at(killedAt))
	h.waitCompleted(t, h.completedCount()+200, 60*time.Second) // the survivors elect a leader and consume again
	leader.start()
	leader.waitReady()
	mu.Lock()
	live = append(live, leader)
	mu.Unlock()
	t.Logf("leader %d back at %s", leader.id, h.at(time.Now()))
	h.waitCompleted(t, h.completedCount()+100, 60*time.Second)
	if d := 20*time.Second - time.Since(loadStart); d > 0 {
		time.Sleep(d) // pacing: the load runs for 20 s in all
	}
	stop()
	wg.Wait()
	loadEnd := time.Now()

	// Drain, then read each partition's high watermark; drain again should
	// a push whose answer was lost have landed after the first drain.
	var hwm map[string]int64
	for round := 0; ; round++ {
		client(99).drain(t)
		hwm = map[string]int64{}
		for i := range ckParts {
			p := fmt.Sprint("c-", i)
			for _, n := range nodes {
				var out struct{ Entries []fetchEntry }
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				_, err := n.call(ctx, http.MethodPost, "/api/v1/fetch", map[string]any{"entries": []map[string]any{{"queue": ckQueue, "partition": p, "offset": 0, "maxBytes": 1}}}, &out)
				cancel()
				if err != nil || len(out.Entries) != 1 || out.Entries[0].Error != "" {
					t.Fatalf("fetch %s from node %d: %v %+v", p, n.id, err, out)
				}
				hwm[p] = max(hwm[p], out.Entries[0].HighWatermark)
			}
		}
		if round == 1 || h.allDelivered(hwm) {
			break
		}
		t.Logf("a partition grew after the drain: drain again")
	}
	t.Logf("load %v, drain %v", loadEnd.Sub(loadStart).Round(time.Millisecond), time.Since(loadEnd).Round(time.Millisecond))
	v, summary := h.check(hwm)
	for _, l := range summary {
		t.Log(l)
	}
	v.report(t)
}
