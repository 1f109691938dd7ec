package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strconv"
	"time"

	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// ttlMode writes new keys with a TTL of 2 s at a steady rate (batches of
// 100 keys, 20 batches a second) for d, and prints the rows the store
// holds, live and in all, every second: once sweeping once a second as the
// leader's retention pass does, where the store stays near what the TTL
// keeps alive, then without sweeps, as before them, where it holds every
// key written.
func ttlMode(d, rtt time.Duration) {
	for _, sweep := range []bool{true, false} {
		ttlRun(d, rtt, sweep)
	}
}

func ttlRun(d, rtt time.Duration, sweep bool) {
	l, shard := raftlogtest.StartLeader(1, kvstore.Appliers(), rtt)
	defer l.Close()
	store := kvstore.New(shard)
	what := "a sweep a second"
	if !sweep {
		what = "no sweep"
	}
	fmt.Printf("\none node: 2,000 new keys a second (batches of 100), each with ttlSeconds 2; %s; %s\n\n", what, d)
	fmt.Println("| second | keys written | live keys | rows stored |")
	fmt.Println("|---:|---:|---:|---:|")
	ttl := int64(2)
	value := json.RawMessage(`{"session":"x"}`)
	start, written := time.Now(), 0
	nextSweep := start.Add(time.Second)
	for sec := 1; time.Since(start) < d; {
		ops := make([]kvstore.Op, 100)
		for i := range ops {
			ops[i] = kvstore.Op{Op: kvstore.OpPut, NS: "sessions", Key: "s-" + strconv.Itoa(written+i), Value: value, TTLSeconds: &ttl}
		}
		if _, err := store.Do(context.Background(), tenant, ops); err != nil {
			log.Fatal(err)
		}
		written += len(ops)
		time.Sleep(50 * time.Millisecond) // the load's pace: 20 batches a second
		if time.Now().Before(nextSweep) {
			continue
		}
		nextSweep = nextSweep.Add(time.Second)
		got, err := shard.LocalRead(func(v *raftlog.View) (any, error) { return kvstore.DueSweeps(v, v.Stamp()) })
		if err != nil {
			log.Fatal(err)
		}
		if !sweep {
			got = []kvstore.SweepOp{}
		}
		for _, op := range got.([]kvstore.SweepOp) {
			for {
				n, err := store.Sweep(context.Background(), op)
				if err != nil {
					log.Fatal(err)
				}
				if n < uint64(op.Limit) {
					break
				}
			}
		}
		ns, err := store.Namespaces(context.Background(), tenant)
		if err != nil {
			log.Fatal(err)
		}
		live := int64(0)
		if len(ns) > 0 {
			live = ns[0].Keys
		}
		fmt.Printf("| %d | %d | %d | %d |\n", sec, written, live, stored(shard))
		sec++
	}
}

// stored counts the rows of the bench's namespace in the store.
func stored(s *raftlog.Shard) int {
	got, err := s.LocalRead(func(v *raftlog.View) (any, error) {
		n := 0
		prefix := append([]byte{'K', byte(len(tenant))}, tenant...)
		prefix = append(append(prefix, byte(len("sessions"))), "sessions"...)
		err := v.Scan(prefix, append(prefix[:len(prefix):len(prefix)], 0xff), func(_, _ []byte) bool { n++; return true })
		return n, err
	})
	if err != nil {
		log.Fatal(err)
	}
	return got.(int)
}
