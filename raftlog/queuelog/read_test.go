package queuelog_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// TestReadRecords: limits, the first record over MaxBytes, the high
// watermark and log start, and the errors for offsets and names.
func TestReadRecords(t *testing.T) {
	_, s := started(t, 1)
	_, base := push(t, s, item("other", "p", "first", nil))
	for i := range 10 { // record i: 10(i+1) bytes, stamped base + 1000(i+1)
		pushAt(t, s, base+1000*int64(i+1), item("q", "p", fmt.Sprint(i), bytes.Repeat([]byte{byte('a' + i)}, 10*(i+1))))
	}
	rr := func(from int64, lim queuelog.ReadLimits) (queuelog.Batch, error) {
		return readErr(t, s, func(v *raftlog.View) (queuelog.Batch, error) {
			return queuelog.ReadRecords(v, tenant, "q", "p", from, lim)
		})
	}
	for _, tc := range []struct {
		from    int64
		lim     queuelog.ReadLimits
		offsets []int64
	}{
		{0, queuelog.ReadLimits{}, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{2, queuelog.ReadLimits{MaxRecords: 3}, []int64{2, 3, 4}},
		{0, queuelog.ReadLimits{MaxBytes: 60}, []int64{0, 1, 2}},                  // 10+20+30
		{0, queuelog.ReadLimits{MaxBytes: 99}, []int64{0, 1, 2}},                  // +40 passes 99
		{4, queuelog.ReadLimits{MaxBytes: 5}, []int64{4}},                         // the first, 50 bytes, all the same
		{8, queuelog.ReadLimits{MaxBytes: 1 << 20, MaxRecords: 5}, []int64{8, 9}}, // the end comes first
		{1, queuelog.ReadLimits{MaxBytes: 1 << 20, MaxRecords: 2}, []int64{1, 2}},
		{10, queuelog.ReadLimits{}, nil}, // at the high watermark: nothing yet
	} {
		b, err := rr(tc.from, tc.lim)
		if err != nil {
			t.Fatalf("from %d %+v: %v", tc.from, tc.lim, err)
		}
		var got []int64
		for _, r := range b.Records {
			got = append(got, r.Offset)
			if len(r.Payload) != 10*int(r.Offset+1) || r.Payload[0] != byte('a'+r.Offset) || r.Ts != base+1000*(r.Offset+1) {
				t.Fatalf("offset %d: payload %q stamp %d", r.Offset, r.Payload, r.Ts)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.offsets) || b.HighWatermark != 10 || b.LogStart != 0 {
			t.Fatalf("from %d %+v: offsets %v high watermark %d log start %d; want %v, 10, 0", tc.from, tc.lim, got, b.HighWatermark, b.LogStart, tc.offsets)
		}
	}
	for _, from := range []int64{-1, 11, 1 << 40} {
		b, err := rr(from, queuelog.ReadLimits{})
		if !errors.Is(err, queuelog.ErrOffsetOutOfRange) || b.HighWatermark != 10 || b.LogStart != 0 || len(b.Records) != 0 {
			t.Fatalf("from %d: %v, %+v; want ErrOffsetOutOfRange with the bounds", from, err, b)
		}
	}

	// Retention moves the log start: below it is out of range.
	if n, err := queuelog.Trim(raftlogtest.Ctx(t, testTimeout), s, queuelog.TrimOp{Tenant: tenant, Queue: "q", Partition: "p", Before: base + 4000}); err != nil || n != 3 {
		t.Fatalf("trim: %d, %v; want 3 deleted", n, err)
	}
	if b, err := rr(2, queuelog.ReadLimits{}); !errors.Is(err, queuelog.ErrOffsetOutOfRange) || b.LogStart != 3 {
		t.Fatalf("from 2 after trim: %v, log start %d", err, b.LogStart)
	}
	if b, err := rr(3, queuelog.ReadLimits{MaxRecords: 1}); err != nil || len(b.Records) != 1 || b.Records[0].Offset != 3 || b.LogStart != 3 {
		t.Fatalf("from 3 after trim: %v, %+v", err, b)
	}

	// Names: a queue, a partition or a tenant that does not exist.
	for _, n := range [][3]string{{tenant, "nope", "p"}, {tenant, "q", "nope"}, {"00000000-0000-0000-0000-000000000002", "q", "p"}, {tenant, "", "p"}} {
		_, err := readErr(t, s, func(v *raftlog.View) (queuelog.Batch, error) {
			return queuelog.ReadRecords(v, n[0], n[1], n[2], 0, queuelog.ReadLimits{})
		})
		if !errors.Is(err, queuelog.ErrUnknownPartition) {
			t.Fatalf("read of %v: %v, want ErrUnknownPartition", n, err)
		}
		_, err = readErr(t, s, func(v *raftlog.View) (queuelog.OffsetAt, error) {
			return queuelog.OffsetForTime(v, n[0], n[1], n[2], 0)
		})
		if !errors.Is(err, queuelog.ErrUnknownPartition) {
			t.Fatalf("offset for time of %v: %v, want ErrUnknownPartition", n, err)
		}
	}
}

// TestOffsetForTime: the first offset stamped at or after a time, none
// after the last record, and never below the log start.
func TestOffsetForTime(t *testing.T) {
	_, s := started(t, 1)
	_, base := push(t, s, item("other", "p", "first", nil))
	at := func(i int64) int64 { return base + 1000*(i+1) }
	for i := range int64(6) { // offsets 0..5 stamped at(0)..at(5)
		pushAt(t, s, at(i), item("q", "p", fmt.Sprint(i), nil))
	}
	pushAt(t, s, at(6), item("q", "p", "6", nil), item("q", "p", "7", nil)) // offsets 6 and 7 share at(6)
	oft := func(ts int64) queuelog.OffsetAt {
		return read(t, s, func(v *raftlog.View) (queuelog.OffsetAt, error) {
			return queuelog.OffsetForTime(v, tenant, "q", "p", ts)
		})
	}
	for _, tc := range []struct {
		ts            int64
		found         bool
		offset, stamp int64
	}{
		{0, true, 0, at(0)},
		{at(0), true, 0, at(0)},
		{at(3) - 1, true, 3, at(3)},
		{at(3), true, 3, at(3)},
		{at(3) + 1, true, 4, at(4)},
		{at(6), true, 6, at(6)},
		{at(6) + 1, false, 0, 0},
		{1 << 62, false, 0, 0},
	} {
		a := oft(tc.ts)
		if a.Found != tc.found || a.HighWatermark != 8 || a.LogStart != 0 || (tc.found && (a.Offset != tc.offset || a.Stamp != tc.stamp)) {
			t.Fatalf("at %d: %+v; want found %v offset %d stamp %d", tc.ts, a, tc.found, tc.offset, tc.stamp)
		}
	}
	if _, err := queuelog.Trim(raftlogtest.Ctx(t, testTimeout), s, queuelog.TrimOp{Tenant: tenant, Queue: "q", Before: at(2)}); err != nil {
		t.Fatal(err)
	}
	if a := oft(0); !a.Found || a.Offset != 2 || a.Stamp != at(2) || a.LogStart != 2 {
		t.Fatalf("at 0 after a trim to offset 2: %+v", a)
	}
}

// TestPartitionsChanged: pages in creation order by cursor, with and
// without since.
func TestPartitionsChanged(t *testing.T) {
	_, s := started(t, 1)
	_, base := push(t, s, item("other", "p", "first", nil))
	ids := map[string][16]byte{}
	for k := 1; k <= 5; k++ { // c1..c5 created in order, written at base+1000k
		name := fmt.Sprintf("c%d", k)
		ans, _ := pushAt(t, s, base+1000*int64(k), item("pc", name, name, nil))
		ids[name] = ans[0].PartitionID
	}
	pushAt(t, s, base+10_000, item("pc", "c4", "c4b", nil))
	pushAt(t, s, base+11_000, item("pc", "c2", "c2b", nil))

	type page struct {
		names string
		next  uint64
	}
	pc := func(since int64, after uint64, limit int) page {
		parts, next := partitionsChanged(t, s, "pc", since, after, limit)
		var names []string
		for _, p := range parts {
			names = append(names, p.Name)
			wantLast := map[string]int64{"c2": 1, "c4": 1}[p.Name]
			if p.ID != ids[p.Name] || p.ID == ([16]byte{}) || p.LastOffset != wantLast || p.LogStart != 0 || fmt.Sprint("c", p.Seq) != p.Name {
				t.Fatalf("partition %+v (answered id %x)", p, ids[p.Name])
			}
		}
		return page{strings.Join(names, ","), next}
	}
	for _, tc := range []struct {
		since int64
		after uint64
		limit int
		want  page
	}{
		{minStamp, 0, 2, page{"c1,c2", 2}},
		{minStamp, 2, 2, page{"c3,c4", 4}},
		{minStamp, 4, 2, page{"c5", 0}},
		{minStamp, 0, 5, page{"c1,c2,c3,c4,c5", 0}},
		{minStamp, 0, 0, page{"c1", 1}}, // a limit below 1 is 1
		{minStamp, 5, 10, page{"", 0}},
		{base + 3000, 0, 10, page{"c2,c3,c4,c5", 0}}, // c1 was last written before
		{base + 10_000, 0, 10, page{"c2,c4", 0}},     // creation order, not write order
		{base + 10_000, 0, 1, page{"c2", 2}},
		{base + 10_000, 2, 1, page{"c4", 4}},
		{base + 11_001, 0, 10, page{"", 0}},
	} {
		if got := pc(tc.since, tc.after, tc.limit); got != tc.want {
			t.Errorf("since %d after %d limit %d: %+v, want %+v", tc.since-base, tc.after, tc.limit, got, tc.want)
		}
	}
	_, err := readErr(t, s, func(v *raftlog.View) ([]queuelog.PartitionInfo, error) {
		p, _, err := queuelog.PartitionsChanged(v, tenant, "nope", minStamp, 0, 10)
		return p, err
	})
	if !errors.Is(err, queuelog.ErrUnknownPartition) {
		t.Fatalf("partitions of an unknown queue: %v", err)
	}
}

// partitionsChanged reads one page of PartitionsChanged.
func partitionsChanged(t testing.TB, s *raftlog.Shard, queue string, since int64, after uint64, limit int) ([]queuelog.PartitionInfo, uint64) {
	t.Helper()
	type res struct {
		parts []queuelog.PartitionInfo
		next  uint64
	}
	r := read(t, s, func(v *raftlog.View) (res, error) {
		p, n, err := queuelog.PartitionsChanged(v, tenant, queue, since, after, limit)
		return res{p, n}, err
	})
	return r.parts, r.next
}

// TestEachPartition: every partition of a queue in creation order from a
// Seq, across pages; fn's false stops the walk; an unknown queue has none.
func TestEachPartition(t *testing.T) {
	_, s := started(t, 1)
	var items []queuelog.PushItem
	for i := range 300 { // more than one page of 256
		items = append(items, item("q", fmt.Sprintf("p%03d", i), fmt.Sprint(i), []byte(`{}`)))
	}
	push(t, s, items...)
	walk := func(queue string, after uint64, stopAt int) []string {
		got, err := readErr(t, s, func(v *raftlog.View) ([]string, error) {
			var names []string
			err := queuelog.EachPartition(v, tenant, queue, after, func(p queuelog.PartitionInfo) (bool, error) {
				names = append(names, p.Name)
				return len(names) < stopAt, nil
			})
			return names, err
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := walk("q", 0, 1000); len(got) != 300 || got[0] != "p000" || got[299] != "p299" {
		t.Fatalf("the whole walk: %d names, %v..", len(got), got[:min(3, len(got))])
	}
	if got := walk("q", 297, 1000); fmt.Sprint(got) != "[p297 p298 p299]" {
		t.Fatalf("after Seq 297: %v", got)
	}
	if got := walk("q", 0, 2); fmt.Sprint(got) != "[p000 p001]" {
		t.Fatalf("stopped after two: %v", got)
	}
	if got := walk("none", 0, 1000); len(got) != 0 {
		t.Fatalf("an unknown queue: %v", got)
	}
}
