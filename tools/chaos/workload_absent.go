package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/queen-mq/queen-go/tools/chaos/check"
)

// absentWorkload runs rounds of a race: each round a fresh key, and
// several clients putIfAbsent on it at once, each with its own value,
// each once through a random running node (API.md §5). An attempt
// answered applied won; answered not applied lost, and was told the
// winner's value; without an answer (timeout, 5xx) it may have won or
// not; refused (400, 429, 507) it did nothing and is no attempt. At the end
// every node reads every key, and per round check.CheckPutIfAbsent (one
// winner, the final value its), check.CheckLosersSaw (each loser told the
// final value) and check.CheckSame (every node reads the same).
type absentWorkload struct {
	c       *Cluster
	ns      string
	clients int

	refusalCounter
	rounds []absentRound
}

// absentRound is one round's attempts, each named by the value it put.
type absentRound struct {
	key                string
	won, lost, unknown []string
	saw                []string // what each lost attempt was told won
}

// run plays rounds until ctx ends.
func (w *absentWorkload) run(ctx context.Context, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0x616273))
	for k := 0; ctx.Err() == nil; k++ {
		round := absentRound{key: fmt.Sprintf("r%06d", k)}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for cl := range w.clients {
			n := w.c.pick(r)
			wg.Add(1)
			go func() {
				defer wg.Done()
				value := fmt.Sprintf("%s-c%d", round.key, cl)
				res, o := kvCall(ctx, n, map[string]any{"op": "putIfAbsent", "ns": w.ns, "key": round.key, "value": value, "forever": true})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case o == kvFull:
					w.n.Add(1)
				case o == kvRefused || o == kvNotSent:
				case o == kvUnknown:
					round.unknown = append(round.unknown, value)
				case res[0].Applied:
					round.won = append(round.won, value)
				default:
					round.lost = append(round.lost, value)
					round.saw = append(round.saw, jsonString(res[0].Value))
				}
			}()
		}
		wg.Wait()
		w.rounds = append(w.rounds, round)
		if len(round.won)+len(round.lost) < w.clients { // a refusal or no answer: back off, as a client does
			sleep(ctx, 50*time.Millisecond)
		}
	}
}

// finish reads every key from every node and checks each round.
func (w *absentWorkload) finish(ctx context.Context) (ops, answered int, anomalies []check.Anomaly, err error) {
	finals, err := readStable(ctx, w.c, 60*time.Second, func(ctx context.Context, n *Node) (map[string]string, error) { // node → key → value
		got, err := kvPrefix(ctx, n, w.ns, "r")
		for k, v := range got {
			got[k] = jsonString([]byte(v))
		}
		return got, err
	})
	if err != nil {
		return 0, 0, nil, err
	}
	rounds := slices.Clone(w.rounds)
	played := map[string]bool{}
	for _, r := range rounds {
		played[r.key] = true
	}
	for _, got := range finals {
		for k := range got {
			if !played[k] {
				played[k] = true
				rounds = append(rounds, absentRound{key: k}) // a key no round played: CheckPutIfAbsent finds its value
			}
		}
	}
	for _, r := range rounds {
		ops += len(r.won) + len(r.lost) + len(r.unknown)
		answered += len(r.won) + len(r.lost)
		reads := map[string]string{}
		for node, got := range finals {
			reads[node] = got[r.key]
		}
		anomalies = append(anomalies, check.CheckSame("key "+r.key, reads)...)
		final := reads["node1"]
		for _, a := range append(check.CheckPutIfAbsent(r.won, r.lost, r.unknown, final), check.CheckLosersSaw(r.saw, final)...) {
			a.Detail = fmt.Sprintf("key %s: %s", r.key, a.Detail)
			anomalies = append(anomalies, a)
		}
	}
	return ops, answered, anomalies, nil
}
