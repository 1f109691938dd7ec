package s3sink

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/queen-mq/queen-go/lakeformat"
)

const (
	discoveryPage = 1000
	fetchBytes    = 4 << 20
)

// readAll reads every partition written since the open window's start up
// to its high watermark. After it, every record stamped below q.safeTime
// (the safeTime of the discovery's first page) is buffered: a partition
// with such a record was written since the start, so discovery lists it,
// and each fetch reads a view at least as recent as the discovery's.
func (q *queueTask) readAll(ctx context.Context) error {
	since := q.tStart
	if since < 0 {
		since = math.MinInt64
	}
	var todo []PartitionInfo
	first := true
	for cursor := ""; ; {
		page, err := q.e.logs.Partitions(ctx, q.e.tenant, q.queue, since, cursor, discoveryPage)
		if err != nil {
			return err
		}
		if first {
			q.safeTime, first = page.SafeTime, false
		}
		todo = append(todo, page.Partitions...)
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	q.e.metrics.discovered(q.e.tenant, q.queue, len(todo))
	var work []*partBuf
	for _, info := range todo {
		p := q.parts[info.Name]
		if p == nil {
			next := info.LogStart
			if q.tStart >= 0 {
				var err error
				if next, err = q.e.logs.OffsetAt(ctx, q.e.tenant, q.queue, info.Name, q.tStart); err != nil {
					return err
				}
			}
			p = q.addPart(info.Name, next)
		} else if q.newLife(p, info) {
			continue
		}
		if info.ID != "" {
			p.id = info.ID
		}
		if p.next <= info.LastOffset {
			work = append(work, p)
		}
	}
	return q.fetchAll(ctx, work)
}

// newLife handles a partition deleted and created again under the same
// name (DELETE /api/v1/resources/queues/:queue, then a push): its id is
// not the one this task read. Its new life starts at offset 0, so the sink
// reads it from its log start, in windows after those of the old life.
// While records of the old life are still buffered it waits (skip true),
// so a window never holds a partition's offsets out of order. The id is
// known only to the task that read it: a task restored from a checkpoint
// after the partition's new life passed the checkpoint's offset cannot
// tell (a shorter log is no sign: this node's applied state may lag the
// checkpoint).
func (q *queueTask) newLife(p *partBuf, info PartitionInfo) (skip bool) {
	if p.id == "" || info.ID == "" || info.ID == p.id {
		return false
	}
	if len(p.recs) > 0 {
		return true
	}
	q.e.log.Warn("a partition was deleted and created again: the sink reads its new life from its log start",
		"queue", q.queue, "partition", p.name, "readTo", p.next, "newEnd", info.LastOffset+1, "id", info.ID)
	p.next, p.id = info.LogStart, info.ID
	return false
}

// fetchAll reads the partitions to their ends, FETCH_CONCURRENCY at a time.
func (q *queueTask) fetchAll(ctx context.Context, work []*partBuf) error {
	sem := make(chan struct{}, max(q.e.node.FetchConcurrency, 1))
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for _, p := range work {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			n, err := q.fetchPartition(ctx, p)
			mu.Lock()
			defer mu.Unlock()
			q.buffered += n
			if err != nil && first == nil {
				first = err
			}
		}()
	}
	wg.Wait()
	return first
}

// fetchPartition reads one partition from p.next to its end and returns
// the bytes it buffered. Offsets retention deleted before they were read
// become a lost range.
func (q *queueTask) fetchPartition(ctx context.Context, p *partBuf) (int64, error) {
	var added int64
	defer func() { q.e.mem.add(q, added) }()
	for {
		res, err := q.e.logs.Fetch(ctx, q.e.tenant, q.queue, p.name, p.next, fetchBytes)
		q.e.metrics.fetched(q.e.tenant, q.queue)
		if errors.Is(err, ErrOffsetOutOfRange) && res.LogStart > p.next {
			lost := lakeformat.LostRange{Partition: p.name, From: p.next, To: res.LogStart - 1}
			q.log.Warn("records deleted by retention before the sink read them", "partition", p.name, "from", lost.From, "to", lost.To)
			p.lost = append(p.lost, lost)
			p.next = res.LogStart
			continue
		}
		if err != nil {
			return added, fmt.Errorf("fetch %s at %d: %w", p.name, p.next, err)
		}
		for i := range res.Records {
			r := &res.Records[i]
			switch {
			case r.Offset != p.next:
				return added, fmt.Errorf("fetch %s: offset %d where %d was next", p.name, r.Offset, p.next)
			case r.Partition != p.name:
				return added, fmt.Errorf("fetch %s: offset %d of partition %q", p.name, r.Offset, r.Partition)
			case q.tStart >= 0 && r.Ts < q.tStart:
				return added, fmt.Errorf("fetch %s: offset %d stamped %d, before the window's start %d", p.name, r.Offset, r.Ts, q.tStart)
			}
			p.recs = append(p.recs, *r)
			added += recordSize(r)
			p.next++
		}
		if len(res.Records) == 0 || p.next >= res.HighWatermark {
			return added, nil
		}
	}
}

// fillRound reads what is new and decides whether the open window closes.
// It returns true with q.closeAt set when it does.
func (q *queueTask) fillRound(ctx context.Context) (bool, error) {
	if err := q.readAll(ctx); err != nil {
		return false, err
	}
	parts := q.sortedParts()
	if q.tStart < 0 {
		low := int64(math.MaxInt64)
		for _, p := range parts {
			if len(p.recs) > 0 {
				low = min(low, p.recs[0].Ts)
			}
		}
		if low == math.MaxInt64 {
			return false, nil // earliest, and nothing written yet
		}
		q.tStart = alignFloor(low, q.e.set.Align)
	}
	end := q.safeTime - q.e.node.SafeGuard.Microseconds()
	complete := q.tStart
	if end > q.tStart {
		q.tStart = skipEmpty(q.tStart, end, q.e.set.Align, parts)
		complete = completeThrough(q.tStart, end, parts)
	}
	q.setComplete(complete)
	at, why, ok := decideClose(closeInput{tStart: q.tStart, end: end, align: q.e.set.Align, target: q.e.set.TargetBytes,
		maxAge: q.e.set.MaxWindow.Microseconds(), pressure: q.e.mem.pressed(q), drain: q.isDraining()}, parts)
	if !ok {
		return false, nil
	}
	q.closeAt, q.closeWhy = at, why
	return true, nil
}

// setComplete records that the lake holds every record stamped below t,
// with what the last read saw, for Report.
func (q *queueTask) setComplete(t int64) {
	q.mu.Lock()
	q.st.completeThrough = max(q.st.completeThrough, t)
	q.st.safeTime, q.st.partitions = q.safeTime, len(q.order)
	lag := float64(max(q.st.safeTime-q.st.completeThrough, 0)) / 1e6
	ckpt := q.st.ckptAge
	q.mu.Unlock()
	// The gauges move with every read, scraped or not.
	safeLag := lag + max(q.e.now().Sub(time.UnixMicro(q.safeTime)).Seconds(), 0)
	q.e.metrics.gauges(q.e.tenant, q.queue, lag, safeLag, q.e.mem.of(q), ckpt)
}
