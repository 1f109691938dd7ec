// Command bench measures pushes into raftlog's queue log, in process: one
// node or three NodeHosts on 127.0.0.1, concurrent proposers, batches of
// records. Every answered push is committed: written and fsynced on a
// majority, and applied. It prints a Markdown table for BENCHMARKS.md.
//
//	go run ./bench -nodes 1,3 -proposers 1,16,64 -batch 1,100   (from raftlog/)
//	go run ./bench -nodes 1 -proposers 64 -batch 1,100 -logdb tiny,small,medium,large
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

func main() {
	nodes := flag.String("nodes", "1,3", "cluster sizes to run")
	proposers := flag.String("proposers", "1,16,64", "concurrent proposers")
	batches := flag.String("batch", "1,100", "records per push")
	size := flag.Int("size", 200, "payload bytes per record")
	duration := flag.Duration("duration", 5*time.Second, "how long each combination runs")
	partitions := flag.Int("partitions", 100, "partitions the pushes spread over")
	rtt := flag.Duration("rtt", 50*time.Millisecond, "raft round trip time (dragonboat RTTMillisecond)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	logdbs := flag.String("logdb", string(raftlog.DefaultLogDB), "raft log store presets to run (tiny, small, medium, large)")
	flag.Parse()
	log.SetFlags(0)
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}

	fmt.Printf("payload %d bytes, %d partitions, %s per row, every push committed (fsync on a majority) before it is answered\n\n",
		*size, *partitions, *duration)
	fmt.Println("| log store | nodes | proposers | records/push | records/s | MB/s | pushes/s | p50 ms | p99 ms |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	rows, row := len(ints(*nodes))*len(ints(*proposers))*len(ints(*batches))*len(strings.Split(*logdbs, ",")), 0
	for _, n := range ints(*nodes) {
		for _, p := range ints(*proposers) {
			for _, b := range ints(*batches) {
				for _, logdb := range strings.Split(*logdbs, ",") {
					row++
					progress("row %d of %d: %s, %d nodes, %d proposers, %d records/push, %s", row, rows, logdb, n, p, b, *duration)
					// A fresh cluster for every row: a row never pays for the
					// compactions of the rows before it.
					shard, stop := startCluster(n, *rtt, raftlog.LogDBSize(strings.TrimSpace(logdb)))
					r := run(shard, p, b, *size, *partitions, *duration)
					stop()
					progress("") // the status line cleared for the row
					fmt.Printf("| %s | %d | %d | %d | %.0f | %.1f | %.0f | %.2f | %.2f |\n", logdb, n, p, b,
						r.records, r.records*float64(*size)/1e6, r.pushes, ms(r.p50), ms(r.p99))
				}
			}
		}
	}
}

// progress says on a terminal which row runs now, on one line that the
// next overwrites (progress("") clears it before a row of the table); it
// writes nothing when stderr is not a terminal.
func progress(format string, args ...any) {
	if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		fmt.Fprintf(os.Stderr, "\r\033[K"+format, args...)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			log.Fatalf("%q is not a list of numbers", s)
		}
		out = append(out, v)
	}
	return out
}

// startCluster starts n hosts in this process and returns the leader's shard.
func startCluster(n int, rtt time.Duration, logdb raftlog.LogDBSize) (*raftlog.Shard, func()) {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	l, err := raftlogtest.StartLocal(n, nil, rtt, logger, func(c *raftlog.Config) { c.LogDB = logdb })
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := l.Leader(ctx)
	if err != nil {
		log.Fatal(err)
	}
	return s, l.Close
}

type result struct {
	records, pushes float64
	p50, p99        time.Duration
}

func run(s *raftlog.Shard, proposers, batch, size, partitions int, d time.Duration) result {
	payload := []byte(`{"pad":"` + strings.Repeat("x", max(size-10, 0)) + `"}`)
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for p := 0; p < proposers; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for i := 0; time.Now().Before(deadline); i++ {
				items := make([]raftlog.PushItem, batch)
				for j := range items {
					var id [16]byte
					copy(id[:], fmt.Sprintf("%04d%08d%04d", p, i, j))
					items[j] = raftlog.PushItem{Queue: "bench", Partition: "p-" + strconv.Itoa((p*7919+i)%partitions),
						TransactionID: string(id[:]), MessageID: id, Dedup: true, Payload: payload}
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				t0 := time.Now()
				_, _, err := s.Push(ctx, raftlog.PushOp{Tenant: "00000000-0000-0000-0000-000000000001", Items: items})
				mine = append(mine, time.Since(t0))
				cancel()
				if err != nil {
					log.Fatalf("push: %v", err)
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	slices.Sort(lat)
	return result{records: float64(len(lat)*batch) / elapsed, pushes: float64(len(lat)) / elapsed,
		p50: lat[len(lat)/2], p99: lat[len(lat)*99/100]}
}
