// Command queen-chaos runs the fault campaign against real queen
// processes: each run starts a cluster whose raft links go through
// proxies it can cut (tools/chaos/netproxy), drives a workload, strikes
// with a fault on a schedule fixed by the seed, heals, and checks the
// history (tools/chaos/check). It prints one line per run and exits 1
// when any run found an anomaly.
//
//	go build -o /tmp/queen ./queen/cmd/queen
//	go run ./tools/cmd/queen-chaos -bin /tmp/queen -workload kv -fault partition -runs 5 -seed 1 -duration 20s
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/queen-mq/queen-go/tools/chaos"
	"github.com/queen-mq/queen-go/tools/chaos/check"
)

func main() {
	bin := flag.String("bin", "", "the queen binary (required)")
	nodes := flag.Int("nodes", 3, "nodes of each run's cluster (3 or 5)")
	fault := flag.String("fault", chaos.FaultPartition, fmt.Sprintf("the fault: one of %v", chaos.Faults))
	workload := flag.String("workload", chaos.WorkloadLog, fmt.Sprintf("the workload: one of %v", chaos.Workloads))
	seed := flag.Uint64("seed", 1, "the first run's seed; run k uses seed+k")
	runs := flag.Int("runs", 1, "runs, each a fresh cluster")
	duration := flag.Duration("duration", 20*time.Second, "how long each run's workload runs")
	dir := flag.String("dir", "", "where the runs keep data and logs (default: a new temporary directory, removed when every run passed)")
	verbose := flag.Bool("v", false, "log each fault as it strikes")
	flag.Parse()
	if *bin == "" {
		fatal("-bin is required: the queen binary to run (go build -o /tmp/queen ./queen/cmd/queen)")
	}
	if !slices.Contains(chaos.Faults, *fault) {
		fatal(fmt.Sprintf("-fault %q is not a fault: one of %v", *fault, chaos.Faults))
	}
	if !slices.Contains(chaos.Workloads, *workload) {
		fatal(fmt.Sprintf("-workload %q is not a workload: one of %v", *workload, chaos.Workloads))
	}
	if *nodes != 3 && *nodes != 5 {
		fatal(fmt.Sprintf("-nodes %d: a run has 3 or 5 nodes", *nodes))
	}
	root, keep := *dir, *dir != ""
	if root == "" {
		d, err := os.MkdirTemp("", "queen-chaos-")
		if err != nil {
			fatal(err.Error())
		}
		root = d
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	bad := 0
	fmt.Printf("%-8s %-10s %5s %5s %7s %7s %6s  %s\n", "workload", "fault", "nodes", "seed", "ops", "acked", "faults", "anomalies")
	for k := range *runs {
		cfg := chaos.Config{Bin: *bin, Dir: filepath.Join(root, fmt.Sprintf("run%d", k)), Nodes: *nodes, Seed: *seed + uint64(k),
			Duration: *duration, Fault: *fault, Workload: *workload}
		if *verbose {
			cfg.Logf = func(format string, args ...any) { log.Info(fmt.Sprintf(format, args...), "seed", cfg.Seed) }
		}
		res, err := chaos.Run(ctx, cfg)
		if err != nil {
			bad++
			fmt.Printf("run %d (seed %d) failed: %v (logs under %s)\n", k, cfg.Seed, err, cfg.Dir)
			keep = true
			continue
		}
		fmt.Printf("%-8s %-10s %5d %5d %7d %7d %6d  %s\n", res.Workload, res.Fault, res.Nodes, res.Seed, res.Ops, res.Acked, res.Faults,
			check.Summary(res.Anomalies))
		if len(res.Anomalies) > 0 {
			bad++
			keep = true
			for _, a := range res.Anomalies[:min(len(res.Anomalies), 20)] {
				fmt.Printf("  %s: %s\n", a.Kind, a.Detail)
			}
			fmt.Printf("  logs under %s\n", cfg.Dir)
		}
	}
	if !keep {
		os.RemoveAll(root)
	}
	if bad > 0 {
		os.Exit(1)
	}
}

func fatal(msg string) {
	fmt.Fprintln(os.Stderr, "queen-chaos: FATAL:", msg)
	os.Exit(2)
}
