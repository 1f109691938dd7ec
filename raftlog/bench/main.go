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
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
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
	rows, row := len(raftlogtest.Ints(*nodes))*len(raftlogtest.Ints(*proposers))*len(raftlogtest.Ints(*batches))*len(strings.Split(*logdbs, ",")), 0
	for _, n := range raftlogtest.Ints(*nodes) {
		for _, p := range raftlogtest.Ints(*proposers) {
			for _, b := range raftlogtest.Ints(*batches) {
				for _, logdb := range strings.Split(*logdbs, ",") {
					row++
					raftlogtest.Progress("row %d of %d: %s, %d nodes, %d proposers, %d records/push, %s", row, rows, logdb, n, p, b, *duration)
					// A fresh cluster for every row: a row never pays for the
					// compactions of the rows before it.
					shard, stop := startCluster(n, *rtt, raftlog.LogDBSize(strings.TrimSpace(logdb)))
					r := run(shard, p, b, *size, *partitions, *duration)
					stop()
					raftlogtest.Progress("") // the status line cleared for the row
					fmt.Printf("| %s | %d | %d | %d | %.0f | %.1f | %.0f | %.2f | %.2f |\n", logdb, n, p, b,
						r.records, r.records*float64(*size)/1e6, r.pushes, raftlogtest.Ms(r.p50), raftlogtest.Ms(r.p99))
				}
			}
		}
	}
}

// startCluster starts n hosts in this process and returns the leader's shard.
func startCluster(n int, rtt time.Duration, logdb raftlog.LogDBSize) (*raftlog.Shard, func()) {
	l, s := raftlogtest.StartLeader(n, nil, rtt, func(c *raftlog.Config) { c.LogDB = logdb })
	return s, l.Close
}

type result struct {
	records, pushes float64
	p50, p99        time.Duration
}

func run(s *raftlog.Shard, proposers, batch, size, partitions int, d time.Duration) result {
	payload := []byte(`{"pad":"` + strings.Repeat("x", max(size-10, 0)) + `"}`)
	l := raftlogtest.Load(proposers, d, func(p, i int) error {
		items := make([]queuelog.PushItem, batch)
		for j := range items {
			var id [16]byte
			copy(id[:], fmt.Sprintf("%04d%08d%04d", p, i, j))
			items[j] = queuelog.PushItem{Queue: "bench", Partition: "p-" + strconv.Itoa((p*7919+i)%partitions),
				TransactionID: string(id[:]), MessageID: id, Dedup: true, Payload: payload}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, _, err := queuelog.Push(ctx, s, queuelog.PushOp{Tenant: "00000000-0000-0000-0000-000000000001", Items: items}); err != nil {
			return fmt.Errorf("push: %w", err)
		}
		return nil
	})
	return result{records: l.PerSecond() * float64(batch), pushes: l.PerSecond(), p50: l.Percentile(50), p99: l.Percentile(99)}
}
