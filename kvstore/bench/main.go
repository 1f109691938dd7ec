// Command bench measures KV puts through kvstore, in process: one node or
// three NodeHosts on 127.0.0.1, concurrent clients, each put one raft entry
// answered only once committed (written and fsynced on a majority) and
// applied. It prints a Markdown table for BENCHMARKS.md.
//
//	go run ./bench -nodes 1,3 -clients 1,16,64   (from kvstore/)
//	go run ./bench -mode ttl                     the store's size under a steady load of TTL keys
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"strconv"
	"strings"
	"time"

	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

func main() {
	nodes := flag.String("nodes", "1,3", "cluster sizes to run")
	clients := flag.String("clients", "1,16,64", "concurrent clients")
	size := flag.Int("size", 200, "value bytes")
	keys := flag.Int("keys", 10000, "keys the puts spread over")
	duration := flag.Duration("duration", 5*time.Second, "how long each combination runs")
	rtt := flag.Duration("rtt", 50*time.Millisecond, "raft round trip time (dragonboat RTTMillisecond)")
	mode := flag.String("mode", "put", "put: put throughput; ttl: store size under a steady load of TTL keys")
	flag.Parse()
	log.SetFlags(0)
	if *mode == "ttl" {
		ttlMode(*duration, *rtt)
		return
	}

	fmt.Printf("put of a %d-byte JSON value to one of %d keys, forever; %s per row; every put committed (fsync on a majority) before it is answered\n\n",
		*size, *keys, *duration)
	fmt.Println("| nodes | clients | puts/s | p50 ms | p99 ms |")
	fmt.Println("|---:|---:|---:|---:|---:|")
	value, _ := json.Marshal(map[string]string{"pad": strings.Repeat("x", max(*size-10, 0))})
	rows, row := len(raftlogtest.Ints(*nodes))*len(raftlogtest.Ints(*clients)), 0
	for _, n := range raftlogtest.Ints(*nodes) {
		for _, c := range raftlogtest.Ints(*clients) {
			row++
			raftlogtest.Progress("row %d of %d: %d nodes, %d clients, %s", row, rows, n, c, *duration)
			// A fresh cluster for every row, as in raftlog's bench.
			l, leader := raftlogtest.StartLeader(n, kvstore.Appliers(), *rtt)
			puts, p50, p99 := run(kvstore.New(leader), c, *keys, value, *duration)
			l.Close()
			raftlogtest.Progress("") // the status line cleared for the row
			fmt.Printf("| %d | %d | %.0f | %.2f | %.2f |\n", n, c, puts, raftlogtest.Ms(p50), raftlogtest.Ms(p99))
		}
	}
}

// tenant is the tenant the bench writes as.
const tenant = "00000000-0000-0000-0000-000000000001"

func run(store *kvstore.Store, clients, keys int, value []byte, d time.Duration) (float64, time.Duration, time.Duration) {
	l := raftlogtest.Load(clients, d, func(c, i int) error {
		op := kvstore.Op{Op: kvstore.OpPut, NS: "bench", Key: "k-" + strconv.Itoa((c*7919+i*31)%keys),
			Value: value, Forever: true}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := store.Do(ctx, tenant, []kvstore.Op{op}); err != nil {
			return fmt.Errorf("put: %w", err)
		}
		return nil
	})
	return l.PerSecond(), l.Percentile(50), l.Percentile(99)
}
