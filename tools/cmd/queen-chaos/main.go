// Command queen-chaos runs the fault campaign against real queen
// processes: each run starts a cluster whose raft links go through
// proxies it can cut (tools/chaos/netproxy), drives a workload, strikes
// with a fault on a schedule fixed by the seed, heals, and checks the
// history (tools/chaos/check). It prints one line per run, then the
// campaign's table (workload × fault) in Markdown, and exits 1 when any
// run found an anomaly or failed.
//
//	go build -o /tmp/queen ./queen/cmd/queen
//	go run ./tools/cmd/queen-chaos -bin /tmp/queen -workload kv -fault partition -runs 5 -seed 1 -duration 20s
//	go run ./tools/cmd/queen-chaos -bin /tmp/queen -workload all -fault all -runs 2 -nodes 5
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
	"strings"
	"syscall"
	"time"

	"github.com/queen-mq/queen-go/tools/chaos"
	"github.com/queen-mq/queen-go/tools/chaos/check"
)

func main() {
	bin := flag.String("bin", "", "the queen binary (required)")
	nodes := flag.Int("nodes", 3, "nodes of each run's cluster (3 or 5)")
	faultList := flag.String("fault", chaos.FaultPartition, fmt.Sprintf("the faults, comma-separated, or all: of %v", chaos.Faults))
	workloadList := flag.String("workload", chaos.WorkloadLog, fmt.Sprintf("the workloads, comma-separated, or all: of %v", chaos.Workloads))
	seed := flag.Uint64("seed", 1, "the first run's seed; run k of each workload and fault uses seed+k")
	runs := flag.Int("runs", 1, "runs of each workload and fault, each a fresh cluster")
	duration := flag.Duration("duration", 20*time.Second, "how long each run's workload runs")
	dir := flag.String("dir", "", "where the runs keep data and logs (default: a new temporary directory, removed when every run passed)")
	verbose := flag.Bool("v", false, "log each fault as it strikes")
	flag.Parse()
	if *bin == "" {
		fatal("-bin is required: the queen binary to run (go build -o /tmp/queen ./queen/cmd/queen)")
	}
	faults := list("-fault", *faultList, chaos.Faults)
	workloads := list("-workload", *workloadList, chaos.Workloads)
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
	var table []row
	fmt.Printf("%-8s %-10s %5s %5s %7s %7s %6s %6s  %s\n", "workload", "fault", "nodes", "seed", "ops", "acked", "faults", "507s", "anomalies")
	for _, w := range workloads {
		for _, f := range faults {
			t := row{workload: w, fault: f, nodes: *nodes}
			for k := range *runs {
				if ctx.Err() != nil {
					break
				}
				cfg := chaos.Config{Bin: *bin, Dir: filepath.Join(root, fmt.Sprintf("%s-%s-%d", w, f, k)), Nodes: *nodes, Seed: *seed + uint64(k),
					Duration: *duration, Fault: f, Workload: w}
				if *verbose {
					cfg.Logf = func(format string, args ...any) { log.Info(fmt.Sprintf(format, args...), "seed", cfg.Seed) }
				}
				res, err := chaos.Run(ctx, cfg)
				t.runs++
				if err != nil {
					bad++
					t.failed++
					fmt.Printf("%-8s %-10s run %d (seed %d) failed: %v (logs under %s)\n", w, f, k, cfg.Seed, err, cfg.Dir)
					keep = true
					continue
				}
				t.ops, t.acked, t.faults, t.anomalies = t.ops+res.Ops, t.acked+res.Acked, t.faults+res.Faults, t.anomalies+len(res.Anomalies)
				fmt.Printf("%-8s %-10s %5d %5d %7d %7d %6d %6d  %s\n", res.Workload, res.Fault, res.Nodes, res.Seed, res.Ops, res.Acked, res.Faults,
					res.Refused, check.Summary(res.Anomalies))
				if len(res.Anomalies) > 0 {
					bad++
					keep = true
					for _, a := range res.Anomalies[:min(len(res.Anomalies), 20)] {
						fmt.Printf("  %s: %s\n", a.Kind, a.Detail)
					}
					fmt.Printf("  logs under %s\n", cfg.Dir)
				}
			}
			table = append(table, t)
		}
	}
	printTable(table)
	if !keep {
		os.RemoveAll(root)
	}
	if bad > 0 {
		os.Exit(1)
	}
}

// list parses a comma-separated flag value of known names ("all": every
// one).
func list(flagName, value string, known []string) []string {
	if value == "all" {
		return known
	}
	var out []string
	for _, v := range strings.Split(value, ",") {
		if v = strings.TrimSpace(v); !slices.Contains(known, v) {
			fatal(fmt.Sprintf("%s %q: not one of %v (or all)", flagName, v, known))
		}
		out = append(out, v)
	}
	return out
}

// row is one line of the campaign's table: a workload under a fault.
type row struct {
	workload, fault               string
	nodes, runs, failed           int
	ops, acked, faults, anomalies int
}

// printTable prints the campaign's table as RELIABILITY.md shows it.
func printTable(rows []row) {
	fmt.Println()
	fmt.Println("| workload | fault | nodes | runs | ops | answered | faults | anomalies |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|")
	total := row{}
	for _, r := range rows {
		runs := fmt.Sprint(r.runs)
		if r.failed > 0 {
			runs = fmt.Sprintf("%d (%d failed)", r.runs, r.failed)
		}
		fmt.Printf("| %s | %s | %d | %s | %d | %d | %d | %d |\n", r.workload, r.fault, r.nodes, runs, r.ops, r.acked, r.faults, r.anomalies)
		total.runs, total.failed, total.anomalies = total.runs+r.runs, total.failed+r.failed, total.anomalies+r.anomalies
	}
	fmt.Printf("\n%d runs, %d failed, %d anomalies\n", total.runs, total.failed, total.anomalies)
}

func fatal(msg string) {
	fmt.Fprintln(os.Stderr, "queen-chaos: FATAL:", msg)
	os.Exit(2)
}
