package raftlogtest

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/queen-mq/queen-go/raftlog"
)

// Latencies are the timed calls of one Load, sorted.
type Latencies struct {
	// Sorted holds every call's latency, shortest first.
	Sorted []time.Duration
	// Elapsed is the Load's wall time.
	Elapsed time.Duration
}

// PerSecond is the calls of the run per second.
func (l Latencies) PerSecond() float64 { return float64(len(l.Sorted)) / l.Elapsed.Seconds() }

// Percentile is the latency below which p percent of the calls finished
// (50: the median); 0 when there was no call.
func (l Latencies) Percentile(p int) time.Duration {
	if len(l.Sorted) == 0 {
		return 0
	}
	return l.Sorted[min(len(l.Sorted)*p/100, len(l.Sorted)-1)]
}

// Load runs clients loops at once for d; loop c makes call(c, i) for
// i = 0, 1, … until d has passed, timing each. A call that fails ends the
// program (log.Fatal): a benchmark's figures must not hide a failure.
func Load(clients int, d time.Duration, call func(c, i int) error) Latencies {
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for i := 0; time.Now().Before(deadline); i++ {
				t0 := time.Now()
				err := call(c, i)
				mine = append(mine, time.Since(t0))
				if err != nil {
					log.Fatal(err)
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(lat)
	return Latencies{Sorted: lat, Elapsed: elapsed}
}

// Progress says on a terminal which row of a benchmark's table runs now,
// on one line that the next overwrites (Progress("") clears it before the
// row is printed); it writes nothing when stderr is not a terminal.
func Progress(format string, args ...any) {
	if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		fmt.Fprintf(os.Stderr, "\r\033[K"+format, args...)
	}
}

// Ms is d in milliseconds.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Ints reads a flag's comma-separated list of numbers; anything else ends
// the program naming the flag's text.
func Ints(s string) []int {
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

// StartLeader starts a Local of n nodes for a benchmark, as StartLocal
// does, with warnings and errors logged to stderr, and returns it with its
// leader's shard once one is elected, within 30 s. A failure ends the
// program (log.Fatal).
func StartLeader(n int, appliers map[raftlog.OpKind]raftlog.Applier, rtt time.Duration, tweaks ...func(*raftlog.Config)) (*Local, *raftlog.Shard) {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	l, err := StartLocal(n, appliers, rtt, logger, tweaks...)
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := l.Leader(ctx)
	if err != nil {
		log.Fatal(err)
	}
	return l, s
}
