package chaos

import (
	"context"
	"fmt"
	"time"

	"github.com/queen-mq/queen-go/tools/chaos/check"
)

// The workloads a run drives (Config.Workload).
const (
	// WorkloadLog pushes records; the check is the log's (check.CheckLog).
	WorkloadLog = "log"
	// WorkloadKV puts and gets registers; the check is linearizability
	// (check.CheckKV).
	WorkloadKV = "kv"
	// WorkloadCounter incrs a few counters by 1; the check is
	// check.CheckCounter.
	WorkloadCounter = "counter"
	// WorkloadAbsent races putIfAbsent on a fresh key each round; the
	// check is check.CheckPutIfAbsent.
	WorkloadAbsent = "absent"
	// WorkloadTxn sends transactions of two pushes and a KV put; the check
	// is check.CheckTxn.
	WorkloadTxn = "txn"
	// WorkloadConsume pushes records and pops and acks them in one
	// consumer group; the checks are check.CheckLog and
	// check.CheckConsume.
	WorkloadConsume = "consume"
	// WorkloadLock contends for locks and writes under their guards; the
	// check is check.CheckLock.
	WorkloadLock = "lock"
	// WorkloadTimer schedules and cancels timers and watches them fire;
	// the check is check.CheckTimers.
	WorkloadTimer = "timer"
)

// workload is what a run drives through the cluster while the faults
// strike, and then checks.
type workload interface {
	// run drives the workload until ctx ends; seed fixes its choices.
	run(ctx context.Context, seed uint64)
	// finish is called once run returned and every fault healed: it
	// waits for what the check needs (the nodes to agree), reads the
	// state, and checks the history against it.
	finish(ctx context.Context) (ops, answered int, anomalies []check.Anomaly, err error)
}

// skewAllower is a workload whose check allows the nodes' clocks to
// differ by a bound (leases, locks and timers hold in real time only
// within it). Run widens the bound under FaultClock, which sets a node's
// clock up to maxClockJump ahead: past the QUEEN_RAFT_MAX_CLOCK_SKEW_MS
// (500 ms) those guarantees assume.
type skewAllower interface {
	// allowSkew widens the bound to at least d.
	allowSkew(d time.Duration)
}

// clockFaultSkew is the bound a skewAllower is given under FaultClock.
const clockFaultSkew = maxClockJump + 500*time.Millisecond

// workloads makes each workload for a cluster, by name.
var workloads = map[string]func(c *Cluster) workload{
	WorkloadLog: func(c *Cluster) workload {
		return &logWorkload{c: c, queue: "chaos-log", partitions: []string{"p0", "p1", "p2"}, writers: 4}
	},
	WorkloadKV: func(c *Cluster) workload {
		return &kvWorkload{c: c, ns: "chaos", keys: []string{"a", "b", "c"}, clients: 5}
	},
	WorkloadLake: newLakeWorkload,
	WorkloadCounter: func(c *Cluster) workload {
		return &counterWorkload{c: c, ns: "chaos-counter", keys: []string{"c0", "c1"}, clients: 5}
	},
	WorkloadAbsent: func(c *Cluster) workload {
		return &absentWorkload{c: c, ns: "chaos-absent", clients: 4}
	},
	WorkloadTxn: func(c *Cluster) workload {
		return &txnWorkload{c: c, queue: "chaos-txn", ns: "chaos-txn", clients: 4}
	},
	WorkloadConsume: func(c *Cluster) workload {
		return &consumeWorkload{log: &logWorkload{c: c, queue: "chaos-consume", partitions: []string{"p0", "p1", "p2"}, writers: 2,
			pause: 5 * time.Millisecond},
			group: "chaos", consumers: 3, lease: 3 * time.Second, skew: time.Second}
	},
	WorkloadLock: func(c *Cluster) workload {
		return &lockWorkload{c: c, ns: "chaos-lock", locks: []string{"l0", "l1"}, clients: 4, ttl: 2 * time.Second, skew: time.Second}
	},
	WorkloadTimer: func(c *Cluster) workload {
		return &timerWorkload{c: c, queue: "chaos-timer", clients: 3, skew: time.Second}
	},
}

// Workloads lists the workloads Run knows, in the campaign's order.
var Workloads = []string{WorkloadLog, WorkloadKV, WorkloadLake, WorkloadCounter, WorkloadAbsent, WorkloadTxn, WorkloadConsume, WorkloadLock, WorkloadTimer}

// newWorkload is the named workload on c.
func newWorkload(name string, c *Cluster) (workload, error) {
	mk, ok := workloads[name]
	if !ok {
		return nil, fmt.Errorf("unknown workload %q (one of %v)", name, Workloads)
	}
	return mk(c), nil
}
