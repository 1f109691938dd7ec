package kvstore_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// TestLinearizable runs concurrent clients on a few keys through every
// node's Store while the leader is stopped and started twice, and checks
// the history with porcupine against the one-key model above. Calls that
// failed with an unknown outcome are possibly applied: their return time
// is infinite. Calls that failed surely unapplied (ErrNoLeader, or any
// failed read) are left out.
func TestLinearizable(t *testing.T) {
	c := raftlogtest.New(t, 3, kvstore.Appliers())
	c.StartAll()
	c.Leader()
	warm(t, c)
	var stores [4]atomic.Pointer[kvstore.Store] // by node id; nil while stopped
	for id, s := range c.Shards {
		stores[id].Store(kvstore.New(s))
	}

	const clients = 6
	keys := []string{"x", "y", "z"}
	start := time.Now()
	now := func() int64 { return int64(time.Since(start)) }
	var (
		mu      sync.Mutex
		history []porcupine.Operation
		known   [3]int // calls by outcome: answered, unknown, surely not applied
	)
	answered := make(chan struct{}, 1<<16) // a token per answered call
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(cl), 7))
			for seq := int64(1); ; seq++ {
				select {
				case <-stop:
					return
				default:
				}
				var kv *kvstore.Store
				for n := range 3 {
					if kv = stores[(cl+n)%3+1].Load(); kv != nil {
						break
					}
				}
				in := lin{op: []string{"put", "putIfAbsent", "incr", "delete", "get", "get"}[rng.IntN(6)],
					key: keys[rng.IntN(len(keys))], value: int64(cl+1)*1_000_000_000 + seq*1000}
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				call := now()
				a, err := kv.Do(ctx, tenant, []kvstore.Op{linOp(in)})
				ret := now()
				cancel()
				op := porcupine.Operation{ClientId: cl, Input: in, Call: call, Return: ret}
				switch {
				case err == nil && a.OK && len(a.Results) == 1:
					op.Output = linResult(t, a.Results[0])
				case err == nil:
					t.Errorf("answer %+v", a)
					return
				case errors.Is(err, raftlog.ErrNoLeader) || in.op == "get":
					mu.Lock()
					known[2]++
					mu.Unlock()
					continue // nothing applied: not in the history
				default: // ErrTimeout, ErrClosed: it may have applied
					op.Output, op.Return = linOut{unknown: true}, math.MaxInt64
				}
				mu.Lock()
				history = append(history, op)
				if op.Output.(linOut).unknown {
					known[1]++
				} else {
					known[0]++
				}
				mu.Unlock()
				if !op.Output.(linOut).unknown {
					select {
					case answered <- struct{}{}:
					default:
					}
				}
			}
		}()
	}

	// Faults: twice, stop the leader, wait for the next, restart it. Each
	// phase waits for the clients to get calls answered, not for time.
	progress := func(n int) {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for range n {
			select {
			case <-answered:
			case <-timeout:
				t.Fatalf("clients answered fewer than %d calls in 10 s", n)
			}
		}
	}
	progress(150)
	for range 2 {
		leader, _ := c.Leader()
		stores[leader].Store(nil)
		c.Stop(leader)
		c.Leader()
		progress(150)
		stores[leader].Store(kvstore.New(c.Start(leader)))
		progress(150)
	}
	close(stop)
	wg.Wait()

	t.Logf("%d calls answered, %d with an unknown outcome, %d refused or failed reads left out, in %v",
		known[0], known[1], known[2], time.Since(start).Round(time.Millisecond))
	checkStart := time.Now()
	res, info := porcupine.CheckOperationsVerbose(linModel, history, 20*time.Second)
	t.Logf("porcupine checked the history in %v", time.Since(checkStart).Round(time.Millisecond))
	if res != porcupine.Ok {
		path := filepath.Join(os.TempDir(), fmt.Sprintf("kvstore-linearizable-%d.html", os.Getpid()))
		if err := porcupine.VisualizePath(linModel, info, path); err != nil {
			t.Log(err)
		}
		t.Fatalf("the history is not linearizable (%v); porcupine drew it in %s", res, path)
	}
}
