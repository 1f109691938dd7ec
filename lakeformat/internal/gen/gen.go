// Package gen makes deterministic records for lakeformat's tests and
// benchmarks: the same arguments give the same records on every machine.
// It also holds what those tests and benchmarks share to encode them: every
// format and codec (AllOptions), and one object's encoding (Encode).
package gen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"unsafe"

	"github.com/queen-mq/queen-go/lakeformat"
)

// Records returns n records spread over the given number of partitions
// (named p-000, p-001, …), in log order: offsets from 0 per partition, ts
// rising from start in pushes of up to 8 records that share a stamp. Each
// payload is a JSON object of about payloadBytes bytes.
func Records(n, partitions, payloadBytes int, start int64, seed uint64) []lakeformat.Record {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	next := make([]int64, partitions)
	out := make([]lakeformat.Record, 0, n)
	ts := start
	for len(out) < n {
		ts += 1 + rng.Int64N(2000)
		for push := 1 + rng.IntN(8); push > 0 && len(out) < n; push-- {
			p := rng.IntN(partitions)
			out = append(out, lakeformat.Record{
				Partition:     fmt.Sprintf("p-%03d", p),
				Offset:        next[p],
				TransactionID: uuidLike(rng),
				Ts:            ts,
				Payload:       payload(rng, payloadBytes),
			})
			next[p]++
		}
	}
	return out
}

// Sorted returns records sorted in the lake's order (partition, then
// offset), their bytes laid out in that order in one block of memory, as a
// sink that fetched each partition's records holds them.
func Sorted(records []lakeformat.Record) []lakeformat.Record {
	s := slices.Clone(records)
	slices.SortStableFunc(s, func(a, b lakeformat.Record) int {
		if lakeformat.Less(&a, &b) {
			return -1
		}
		if lakeformat.Less(&b, &a) {
			return 1
		}
		return 0
	})
	size := 0
	for _, r := range s {
		size += len(r.Partition) + len(r.TransactionID) + len(r.Payload)
	}
	arena := make([]byte, 0, size)
	str := func(v string) string {
		arena = append(arena, v...)
		return unsafe.String(&arena[len(arena)-len(v)], len(v))
	}
	for i := range s {
		r := &s[i]
		if i > 0 && r.Partition == s[i-1].Partition {
			r.Partition = s[i-1].Partition
		} else if r.Partition != "" {
			r.Partition = str(r.Partition)
		}
		if r.TransactionID != "" {
			r.TransactionID = str(r.TransactionID)
		}
		if len(r.Payload) > 0 {
			arena = append(arena, r.Payload...)
			r.Payload = arena[len(arena)-len(r.Payload) : len(arena) : len(arena)]
		}
	}
	return s
}

func uuidLike(rng *rand.Rand) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 36)
	for i := range b {
		switch i {
		case 8, 13, 18, 23:
			b[i] = '-'
		default:
			b[i] = hex[rng.IntN(16)]
		}
	}
	return string(b)
}

var statuses = []string{"new", "paid", "shipped", "cancelled", "refunded"}

// words fill the note: text like a person's, not random letters, so that
// codecs see what they see in a real queue.
var words = []string{"please", "deliver", "to", "the", "back", "door", "after", "five", "pm", "call",
	"before", "arrival", "gift", "wrap", "leave", "with", "neighbour", "fragile", "handle", "care",
	"order", "replaces", "earlier", "one", "customer", "asked", "for", "express", "shipping", "invoice"}

// payload is an order-like JSON object padded with a note to about size bytes.
func payload(rng *rand.Rand, size int) []byte {
	b := []byte(`{"order":`)
	b = strconv.AppendInt(b, rng.Int64N(1_000_000), 10)
	b = append(b, `,"customer":"cust-`...)
	b = strconv.AppendInt(b, rng.Int64N(10_000), 10)
	b = append(b, `","status":"`...)
	b = append(b, statuses[rng.IntN(len(statuses))]...)
	b = append(b, `","total":`...)
	b = strconv.AppendInt(b, rng.Int64N(100_000), 10)
	b = append(b, '.')
	b = append(b, byte('0'+rng.IntN(10)), byte('0'+rng.IntN(10)))
	b = append(b, `,"items":[{"sku":"SKU-`...)
	b = strconv.AppendInt(b, rng.Int64N(100_000), 10)
	b = append(b, `","qty":`...)
	b = strconv.AppendInt(b, 1+rng.Int64N(9), 10)
	b = append(b, `}],"note":"`...)
	for len(b) < size-2 {
		b = append(b, words[rng.IntN(len(words))]...)
		b = append(b, ' ')
	}
	return append(b[:size-2], `"}`...)
}
