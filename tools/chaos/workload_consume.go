package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/queen-mq/queen-go/tools/chaos/check"
)

// consumeWorkload has producers push records (as the log workload does,
// through its own logWorkload) while consumers of one group pop them and
// ack them (API.md §2), each call through a random running node. A
// consumer works on what a pop gave it for 0–100 ms and acks it all in
// one batch, or now and then abandons it, so that its lease expires and
// the records are delivered again. Every delivery, every lease as its
// consumer held it and every ack answered success is recorded on one
// monotonic clock. After the run and the log's own check (check.CheckLog),
// consumers drain the queue until every record answered stored was
// delivered, and check.CheckConsume requires: each of them delivered, none
// delivered by a pop called after its ack was answered, none settled
// twice, no two leases of one partition held at once for more than skew.
type consumeWorkload struct {
	log       *logWorkload
	group     string
	consumers int
	lease     time.Duration // each pop's leaseSeconds
	skew      time.Duration // how long two leases may seem to overlap
	start     time.Time

	mu         sync.Mutex
	deliveries []check.Delivery
	acks       []check.Ack
	leases     []check.Lease
	pops       int
}

// popMessage is one message of a pop's answer.
type popMessage struct {
	TransactionID string `json:"transactionId"`
	PartitionID   string `json:"partitionId"`
	Partition     string `json:"partition"`
	LeaseID       string `json:"leaseId"`
}

// now is the workload's clock: ns since its run began (monotonic).
func (w *consumeWorkload) now() int64 { return time.Since(w.start).Nanoseconds() }

// run produces and consumes until ctx ends.
func (w *consumeWorkload) run(ctx context.Context, seed uint64) {
	w.start = time.Now()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); w.log.run(ctx, seed) }()
	w.consume(ctx, seed, 0.1, 100*time.Millisecond, &wg)
	wg.Wait()
}

// consume starts the consumers, each abandoning a pop with probability
// abandon and else working on it up to work before it acks, until ctx
// ends.
func (w *consumeWorkload) consume(ctx context.Context, seed uint64, abandon float64, work time.Duration, wg *sync.WaitGroup) {
	spawn(wg, w.consumers, seed, 0x636f6e, func(cl int, r *rand.Rand) {
		for ctx.Err() == nil {
			if !w.once(ctx, r, cl, r.Float64() < abandon, work) {
				sleep(ctx, 50*time.Millisecond)
			}
		}
	})
}

// once pops through a random node and acks what it got after up to work
// (unless abandon); false when the pop leased nothing.
func (w *consumeWorkload) once(ctx context.Context, r *rand.Rand, consumer int, abandon bool, work time.Duration) bool {
	q := url.Values{"consumerGroup": {w.group}, "batch": {"16"}, "wait": {"false"}, "subscriptionMode": {"all"},
		"leaseSeconds": {fmt.Sprint(int(w.lease.Seconds()))}}
	var out struct{ Messages []popMessage }
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	call := w.now()
	code, err := w.c().pick(r).Call(pctx, http.MethodGet, "/api/v1/pop/queue/"+w.log.queue+"?"+q.Encode(), nil, &out)
	ret := w.now()
	cancel()
	if err != nil || code != http.StatusOK || len(out.Messages) == 0 {
		return false
	}
	w.mu.Lock()
	w.pops++
	held := map[string]int{} // lease id + partition → index in w.leases
	for _, m := range out.Messages {
		w.deliveries = append(w.deliveries, check.Delivery{Consumer: consumer, TxnID: m.TransactionID, Partition: m.Partition,
			LeaseID: m.LeaseID, Call: call, Return: ret})
		if _, ok := held[m.LeaseID+"/"+m.Partition]; !ok {
			held[m.LeaseID+"/"+m.Partition] = len(w.leases)
			w.leases = append(w.leases, check.Lease{Consumer: consumer, ID: m.LeaseID, Partition: m.Partition, From: ret, To: call + w.lease.Nanoseconds()})
		}
	}
	w.mu.Unlock()
	if abandon {
		return true
	}
	if work > 0 {
		sleep(ctx, time.Duration(r.Int64N(int64(work))))
	}
	var items []map[string]any
	for _, m := range out.Messages {
		items = append(items, map[string]any{"transactionId": m.TransactionID, "partitionId": m.PartitionID, "leaseId": m.LeaseID, "status": "completed"})
	}
	var answers []struct {
		TransactionID string `json:"transactionId"`
		Success       bool   `json:"success"`
		Noop          bool   `json:"noop"`
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	acall := w.now()
	code, err = w.c().pick(r).Call(actx, http.MethodPost, "/api/v1/ack/batch", map[string]any{"acknowledgments": items, "consumerGroup": w.group}, &answers)
	aret := w.now()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, i := range held {
		w.leases[i].To = min(w.leases[i].To, acall)
	}
	if err == nil && code == http.StatusOK {
		for _, a := range answers {
			if a.Success {
				w.acks = append(w.acks, check.Ack{Consumer: consumer, TxnID: a.TransactionID, Noop: a.Noop, Return: aret})
			}
		}
	}
	return true
}

// refusals is how many pushes were answered 507 storage_full.
func (w *consumeWorkload) refusals() int { return w.log.refusals() }

// c is the cluster the workload runs on.
func (w *consumeWorkload) c() *Cluster { return w.log.c }

// finish checks the log, drains the queue and checks the consumers.
func (w *consumeWorkload) finish(ctx context.Context) (ops, answered int, anomalies []check.Anomaly, err error) {
	ops, answered, anomalies, err = w.log.finish(ctx)
	if err != nil {
		return 0, 0, nil, err
	}
	var pushed []string
	for _, p := range w.log.history.ops {
		if p.Acked {
			pushed = append(pushed, p.TxnID)
		}
	}
	w.drain(ctx, pushed, 60*time.Second)
	w.mu.Lock()
	defer w.mu.Unlock()
	return ops + w.pops, answered + w.pops, append(anomalies, check.CheckConsume(pushed, w.deliveries, w.acks, w.leases, w.skew)...), nil
}

// drain runs the consumers, never abandoning, until every record of
// pushed was delivered or timeout passed (CheckConsume tells what was
// not).
func (w *consumeWorkload) drain(ctx context.Context, pushed []string, timeout time.Duration) {
	dctx, stop := context.WithTimeout(ctx, timeout)
	defer stop()
	var wg sync.WaitGroup
	w.consume(dctx, 0xd7a1, 0, 0, &wg)
	for sleep(dctx, 500*time.Millisecond) {
		w.mu.Lock()
		got := map[string]bool{}
		for _, d := range w.deliveries {
			got[d.TxnID] = true
		}
		w.mu.Unlock()
		all := true
		for _, id := range pushed {
			all = all && got[id]
		}
		if all {
			break
		}
	}
	stop()
	wg.Wait()
}

// allowSkew widens the skew bound of the check to at least d.
func (w *consumeWorkload) allowSkew(d time.Duration) { w.skew = max(w.skew, d) }
