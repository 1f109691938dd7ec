package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/queen-mq/queen-go/tools/chaos/check"
)

// Config is one run of the campaign.
type Config struct {
	// Bin is the queen binary; Dir holds the nodes' data and logs.
	Bin, Dir string
	Nodes    int
	// Seed fixes the schedule: which faults, when, for how long, whom
	// they strike, and the workload's choices.
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
	// Refused counts the answers 507 storage_full the workload got.
	Refused   int
	Anomalies []check.Anomaly
}

// refuser is a workload that counts the answers 507 storage_full it got.
type refuser interface{ refusals() int }

// Run starts a cluster, drives the workload through it while the fault
// strikes on the seed's schedule, heals everything, and checks the
// history.
func Run(ctx context.Context, cfg Config) (Result, error) {
	res := Result{Workload: cfg.Workload, Fault: cfg.Fault, Seed: cfg.Seed, Nodes: cfg.Nodes}
	if res.Workload == "" {
		res.Workload = WorkloadLog
	}
	if !slices.Contains(Faults, cfg.Fault) {
		return res, fmt.Errorf("unknown fault %q (one of %v)", cfg.Fault, Faults)
	}
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return res, err
	}
	env, stopEnv, err := clusterEnv(res.Workload, cfg.Dir)
	if err != nil {
		return res, err
	}
	defer stopEnv()
	c, err := StartCluster(ctx, cfg.Bin, cfg.Dir, cfg.Nodes, ClusterOptions{PowerLoss: cfg.Fault == FaultPowerLoss,
		DiskFull: cfg.Fault == FaultDiskFull}, env...)
	if err != nil {
		return res, err
	}
	defer c.Stop()
	w, err := newWorkload(res.Workload, c)
	if err != nil {
		return res, err
	}
	if s, ok := w.(skewAllower); ok && cfg.Fault == FaultClock {
		s.allowSkew(clockFaultSkew)
	}
	wctx, stop := context.WithTimeout(ctx, cfg.Duration)
	defer stop()
	done := make(chan struct{})
	go func() { w.run(wctx, cfg.Seed); close(done) }()

	s := &striker{c: c, r: rand.New(rand.NewPCG(cfg.Seed, 0x6661756c74))}
	sctx, stopStrike := context.WithCancel(ctx) // a fault's own goroutines end with the run
	defer stopStrike()
	for wctx.Err() == nil && cfg.Fault != FaultNone {
		if !sleep(wctx, time.Duration(1000+s.r.IntN(2000))*time.Millisecond) {
			break
		}
		if s.leader, err = c.Leader(wctx, 20*time.Second); err != nil {
			break // the workload's end came first, or no leader: the check says what that cost
		}
		hold := time.Duration(2000+s.r.IntN(3000)) * time.Millisecond
		what, heal, err := s.strike(sctx, cfg.Fault)
		if err != nil {
			stop()
			<-done
			return res, err
		}
		res.Faults++
		logf("fault %d: %s", res.Faults, what)
		if heal == nil {
			continue
		}
		sleep(wctx, hold)
		if err := heal(ctx); err != nil {
			stop()
			<-done
			return res, err
		}
		logf("healed")
	}
	<-done
	c.Mesh.Heal()
	if cfg.Fault != FaultBitFlip {
		res.Ops, res.Acked, res.Anomalies, err = w.finish(ctx)
	} else {
		// A flipped node may stop itself when the check's reads meet the
		// flip: it is replaced (the sweep), and the check runs again.
		for try := 0; ; try++ {
			if err := s.settle(ctx, logf); err != nil {
				return res, err
			}
			res.Ops, res.Acked, res.Anomalies, err = w.finish(ctx)
			if err == nil || try == 2 {
				break
			}
			logf("check failed, settling again: %v", err)
		}
		logf("%s", s.tally())
	}
	if r, ok := w.(refuser); ok {
		res.Refused = r.refusals()
	}
	return res, err
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

// spawn starts n clients in wg, client cl with its own random source
// seeded (seed, salt+cl), so that a run replays from its seed.
func spawn(wg *sync.WaitGroup, n int, seed, salt uint64, client func(cl int, r *rand.Rand)) {
	for cl := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client(cl, rand.New(rand.NewPCG(seed, salt+uint64(cl))))
		}()
	}
}

// untilDone runs n clients as spawn does until ctx ends: client cl's k-th
// turn (k from 0) is turn(cl, k, r), and the next one starts while ctx
// has not ended. It returns once every client stopped.
func untilDone(ctx context.Context, n int, seed, salt uint64, turn func(cl, k int, r *rand.Rand)) {
	var wg sync.WaitGroup
	spawn(&wg, n, seed, salt, func(cl int, r *rand.Rand) {
		for k := 0; ctx.Err() == nil; k++ {
			turn(cl, k, r)
		}
	})
	wg.Wait()
}

// history is what a workload's clients did, one entry an op, appended
// from their goroutines and read once they stopped.
type history[T any] struct {
	mu  sync.Mutex
	ops []T
}

func (h *history[T]) add(op T) {
	h.mu.Lock()
	h.ops = append(h.ops, op)
	h.mu.Unlock()
}

// answered counts the ops that were answered, as the workload's finish
// reports them next to len(h.ops).
func (h *history[T]) answered(was func(op T) bool) (n int) {
	for _, op := range h.ops {
		if was(op) {
			n++
		}
	}
	return n
}
