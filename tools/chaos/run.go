package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"syscall"
	"time"

	"github.com/queen-mq/queen-go/tools/chaos/check"
)

// The faults a run injects (Config.Fault).
const (
	FaultNone      = "none"
	FaultPartition = "partition" // cut the leader off from the others, then heal
	FaultOneWay    = "one-way"   // cut what the leader sends to the others, not what it hears
	// FaultClock SIGKILLs a node (the leader or another, by the seed) and
	// starts it again with its proposer clock jumped: 0 to 5 s ahead of
	// the others' (QUEEN_RAFT_CLOCK_OFFSET_MS), or back to true time from
	// an earlier jump.
	FaultClock = "clock"
)

// Faults lists the faults Run knows.
var Faults = []string{FaultNone, FaultPartition, FaultOneWay, FaultClock}

// The workloads a run drives (Config.Workload).
const (
	// WorkloadLog pushes records; the check is the log's (check.CheckLog).
	WorkloadLog = "log"
	// WorkloadKV puts and gets registers; the check is linearizability
	// (check.CheckKV).
	WorkloadKV = "kv"
)

// Workloads lists the workloads Run knows.
var Workloads = []string{WorkloadLog, WorkloadKV}

// Config is one run of the campaign.
type Config struct {
	// Bin is the queen binary; Dir holds the nodes' data and logs.
	Bin, Dir string
	Nodes    int
	// Seed fixes the schedule: which faults, when, for how long, and
	// which partition each push goes to.
	Seed     uint64
	Duration time.Duration
	Fault    string
	// Workload is one of Workloads ("": WorkloadLog).
	Workload string
	// Logf, when set, is told what the run does.
	Logf func(format string, args ...any)
}

// Result is what a run did and found.
type Result struct {
	Workload, Fault string
	Seed            uint64
	Nodes           int
	Ops, Acked      int
	Faults          int
	Anomalies       []check.Anomaly
}

// Run starts a cluster, drives the workload through it while the fault
// strikes on the seed's schedule, heals everything, and checks the
// history (the log's after the nodes agree on it).
func Run(ctx context.Context, cfg Config) (Result, error) {
	res := Result{Workload: cfg.Workload, Fault: cfg.Fault, Seed: cfg.Seed, Nodes: cfg.Nodes}
	if res.Workload == "" {
		res.Workload = WorkloadLog
	}
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return res, err
	}
	c, err := StartCluster(ctx, cfg.Bin, cfg.Dir, cfg.Nodes)
	if err != nil {
		return res, err
	}
	defer c.Stop()
	var run func(context.Context, uint64)
	var lw *logWorkload
	var kw *kvWorkload
	switch res.Workload {
	case WorkloadLog:
		lw = &logWorkload{c: c, queue: "chaos-log", partitions: []string{"p0", "p1", "p2"}, writers: 4}
		run = lw.run
	case WorkloadKV:
		kw = &kvWorkload{c: c, ns: "chaos", keys: []string{"a", "b", "c"}, clients: 5}
		run = kw.run
	default:
		return res, fmt.Errorf("unknown workload %q (one of %v)", res.Workload, Workloads)
	}
	wctx, stop := context.WithTimeout(ctx, cfg.Duration)
	done := make(chan struct{})
	go func() { run(wctx, cfg.Seed); close(done) }()

	r := rand.New(rand.NewPCG(cfg.Seed, 0x6661756c74))
	for wctx.Err() == nil && cfg.Fault != FaultNone {
		if !sleep(wctx, time.Duration(1000+r.IntN(2000))*time.Millisecond) {
			break
		}
		leader, err := c.Leader(wctx, 20*time.Second)
		if err != nil {
			break // the workload's end came first, or no leader: the check says what that cost
		}
		others := []int{}
		for _, n := range c.Nodes {
			if n != leader {
				others = append(others, n.ID)
			}
		}
		hold := time.Duration(2000+r.IntN(3000)) * time.Millisecond
		switch cfg.Fault {
		case FaultClock:
			n := leader
			if r.IntN(2) == 0 {
				n = c.Nodes[r.IntN(len(c.Nodes))]
			}
			offset := 0
			if r.IntN(3) > 0 {
				offset = r.IntN(5001)
			}
			if err := n.Signal(syscall.SIGKILL); err != nil {
				stop()
				<-done
				return res, err
			}
			if err := n.Start(c.Bin(), fmt.Sprintf("QUEEN_RAFT_CLOCK_OFFSET_MS=%d", offset)); err != nil {
				stop()
				<-done
				return res, err
			}
			logf("fault %d: node %d killed and started again with its clock %d ms ahead", res.Faults+1, n.ID, offset)
			res.Faults++
			if err := n.WaitReady(ctx, 60*time.Second); err != nil {
				stop()
				<-done
				return res, err
			}
			continue
		case FaultPartition:
			c.Mesh.Partition([]int{leader.ID}, others)
			logf("fault %d: node %d (leader) cut off from %v for %s", res.Faults+1, leader.ID, others, hold)
		case FaultOneWay:
			for _, o := range others {
				c.Mesh.Cut(leader.ID, o)
			}
			logf("fault %d: what node %d (leader) sends to %v dropped for %s", res.Faults+1, leader.ID, others, hold)
		default:
			stop()
			<-done
			return res, fmt.Errorf("unknown fault %q (one of %v)", cfg.Fault, Faults)
		}
		res.Faults++
		sleep(wctx, hold)
		c.Mesh.Heal()
		logf("healed")
	}
	<-done
	stop()
	c.Mesh.Heal()

	if kw != nil {
		res.Ops, res.Acked, res.Anomalies = kw.results()
		return res, nil
	}
	if err := converge(ctx, c, lw, 60*time.Second); err != nil {
		return res, err
	}
	logs, err := lw.logs(ctx)
	if err != nil {
		return res, err
	}
	res.Ops = len(lw.history)
	for _, p := range lw.history {
		if p.Acked {
			res.Acked++
		}
	}
	res.Anomalies = check.CheckLog(lw.history, logs)
	return res, nil
}

// converge waits until every node shows the same high watermark on every
// partition: the log has reached them all.
func converge(ctx context.Context, c *Cluster, w *logWorkload, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last []map[string]int64
	for time.Now().Before(deadline) {
		last = last[:0]
		same := true
		for _, n := range c.Nodes {
			h, err := highWatermarks(ctx, n, w.queue, w.partitions)
			if err != nil {
				same = false
				break
			}
			if len(last) > 0 && fmt.Sprint(h) != fmt.Sprint(last[0]) {
				same = false
			}
			last = append(last, h)
		}
		if same && len(last) == len(c.Nodes) {
			return nil
		}
		if !sleep(ctx, 200*time.Millisecond) {
			return ctx.Err()
		}
	}
	return fmt.Errorf("the nodes did not converge within %s: high watermarks %v", timeout, last)
}

// sleep waits d or until ctx ends; false when ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}
