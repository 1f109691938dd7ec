package s3sink

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/queen-mq/queen-go/lakeformat"
)

// fakeLog is an in-memory queue log: partitions in creation order, records
// stamped by the (synctest) clock, safeTime the last stamp or a tick.
type fakeLog struct {
	mu     sync.Mutex
	queues map[string]*fakeQueue // by tenant/queue
	stamp  int64
	// offset is subtracted from the clock when stamping, so that a world
	// started later stamps as one started at the bubble's first instant.
	offset time.Duration
}

type fakeQueue struct {
	parts []*fakePart
}

type fakePart struct {
	name string
	id   string // the life's id; "" for the first life

	recs      []lakeformat.Record // recs[i] has offset logStart+i
	logStart  int64
	lastWrite int64
}

func newFakeLog() *fakeLog { return &fakeLog{queues: map[string]*fakeQueue{}} }

// next stamps an entry: max(now, previous + 1), as the broker does.
func (l *fakeLog) next() int64 {
	l.stamp = max(time.Now().Add(-l.offset).UnixMicro(), l.stamp+1)
	return l.stamp
}

// push appends records of one entry (one stamp) to queue's partitions.
func (l *fakeLog) push(tenant, queue string, items ...[2]string) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := l.queues[tenant+"/"+queue]
	if q == nil {
		q = &fakeQueue{}
		l.queues[tenant+"/"+queue] = q
	}
	ts := l.next()
	for i, it := range items {
		var p *fakePart
		for _, c := range q.parts {
			if c.name == it[0] {
				p = c
			}
		}
		if p == nil {
			p = &fakePart{name: it[0]}
			q.parts = append(q.parts, p)
		}
		off := p.logStart + int64(len(p.recs))
		p.recs = append(p.recs, lakeformat.Record{Partition: p.name, Offset: off, TransactionID: fmt.Sprintf("tx-%d-%d", ts, i), Ts: ts, Payload: []byte(it[1])})
		p.lastWrite = ts
	}
	return ts
}

// tick moves safeTime with an empty entry, as the leader's ticks do.
func (l *fakeLog) tick() {
	l.mu.Lock()
	l.next()
	l.mu.Unlock()
}

// trim deletes a partition's records before offset (retention).
func (l *fakeLog) trim(tenant, queue, part string, before int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.queues[tenant+"/"+queue].parts {
		if p.name == part && before > p.logStart {
			p.recs = p.recs[before-p.logStart:]
			p.logStart = before
		}
	}
}

// recreate deletes a partition and creates it again empty, in a new life
// (a queue deleted and pushed again).
func (l *fakeLog) recreate(tenant, queue, part string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, p := range l.queues[tenant+"/"+queue].parts {
		if p.name == part {
			l.queues[tenant+"/"+queue].parts[i] = &fakePart{name: part, id: p.id + "'", lastWrite: l.next()}
		}
	}
}

func (l *fakeLog) Partitions(_ context.Context, tenant, queue string, since int64, after string, limit int) (PartitionPage, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := l.queues[tenant+"/"+queue]
	if q == nil {
		return PartitionPage{}, ErrQueueNotFound
	}
	from := 0
	if after != "" {
		from, _ = strconv.Atoi(after)
	}
	page := PartitionPage{SafeTime: l.stamp}
	for i := from; i < len(q.parts); i++ {
		if len(page.Partitions) == limit {
			page.Next = strconv.Itoa(i)
			break
		}
		p := q.parts[i]
		if p.lastWrite >= since {
			page.Partitions = append(page.Partitions, PartitionInfo{Name: p.name, ID: "life-" + p.id, LastOffset: p.logStart + int64(len(p.recs)) - 1,
				LogStart: p.logStart, LastWrite: p.lastWrite})
		}
	}
	return page, nil
}

func (l *fakeLog) part(tenant, queue, partition string) *fakePart {
	if q := l.queues[tenant+"/"+queue]; q != nil {
		for _, p := range q.parts {
			if p.name == partition {
				return p
			}
		}
	}
	return nil
}

func (l *fakeLog) Fetch(_ context.Context, tenant, queue, partition string, offset int64, maxBytes int) (FetchResult, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.part(tenant, queue, partition)
	if p == nil {
		return FetchResult{}, ErrQueueNotFound
	}
	hwm := p.logStart + int64(len(p.recs))
	res := FetchResult{HighWatermark: hwm, LogStart: p.logStart}
	if offset < p.logStart {
		return res, ErrOffsetOutOfRange
	}
	size := 0
	for _, r := range p.recs[offset-p.logStart:] {
		if len(res.Records) > 0 && size+len(r.Payload) > maxBytes {
			break
		}
		size += len(r.Payload)
		res.Records = append(res.Records, r)
	}
	return res, nil
}

func (l *fakeLog) OffsetAt(_ context.Context, tenant, queue, partition string, ts int64) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.part(tenant, queue, partition)
	if p == nil {
		return 0, ErrQueueNotFound
	}
	i := sort.Search(len(p.recs), func(i int) bool { return p.recs[i].Ts >= ts })
	return p.logStart + int64(i), nil
}

func (l *fakeLog) Queues(_ context.Context, tenant string) ([]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for k := range l.queues {
		if t, q, ok := strings.Cut(k, "/"); ok && t == tenant {
			out = append(out, q)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (l *fakeLog) SafeTime(context.Context) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stamp, nil
}

// fakeKV is an in-memory KV with versions from one counter and TTLs on the
// (synctest) clock.
type fakeKV struct {
	mu      sync.Mutex
	rows    map[string]fakeRow
	version int64
	calls   int
	// gens counts the writes of each key, deletes included: a version that
	// does not depend on the order of writes to other keys, for scripts.
	gens map[string]int64
}

type fakeRow struct {
	val     []byte
	version int64
	expires time.Time // zero: forever
}

func newFakeKV() *fakeKV { return &fakeKV{rows: map[string]fakeRow{}, gens: map[string]int64{}} }

func (k *fakeKV) live(key string) (fakeRow, bool) {
	r, ok := k.rows[key]
	if ok && !r.expires.IsZero() && !time.Now().Before(r.expires) {
		return fakeRow{}, false
	}
	return r, ok
}

func (k *fakeKV) Get(_ context.Context, tenant, ns string, keys []string) ([]Row, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make([]Row, len(keys))
	for i, key := range keys {
		out[i] = Row{Key: key}
		if r, ok := k.live(tenant + "/" + key); ok {
			out[i] = Row{Key: key, Found: true, Value: r.val, Version: r.version}
		}
	}
	return out, nil
}

func (k *fakeKV) Batch(_ context.Context, tenant, ns string, ops []KVOp) (BatchResult, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.calls++
	saved := make(map[string]fakeRow, len(k.rows))
	for key, r := range k.rows {
		saved[key] = r
	}
	savedVersion := k.version
	savedGens := make(map[string]int64, len(k.gens))
	for key, g := range k.gens {
		savedGens[key] = g
	}
	res := BatchResult{OK: true, Results: make([]OpResult, len(ops))}
	for i, op := range ops {
		key := tenant + "/" + op.Key
		cur, exists := k.live(key)
		ok, reason := true, ""
		switch {
		case op.Kind == KVPutIfAbsent && exists:
			ok, reason = false, "exists"
		case op.Expect != nil && *op.Expect == 0 && exists:
			ok, reason = false, "exists"
		case op.Expect != nil && *op.Expect > 0 && (!exists || cur.version != *op.Expect):
			ok, reason = false, "version"
		case op.Kind == KVDelete && !exists:
			ok, reason = false, "absent"
		}
		if !ok {
			res.Results[i] = OpResult{Reason: reason, Version: cur.version, Value: cur.val}
			if op.Required {
				k.rows, k.version, k.gens = saved, savedVersion, savedGens
				return BatchResult{OK: false, FailedIndex: i, Results: make([]OpResult, len(ops))}, nil
			}
			continue
		}
		if op.Kind == KVCheck {
			res.Results[i] = OpResult{Applied: true, Version: cur.version, Value: cur.val}
			continue
		}
		k.gens[key]++
		if op.Kind == KVDelete {
			delete(k.rows, key)
			res.Results[i] = OpResult{Applied: true}
			continue
		}
		k.version++
		r := fakeRow{val: op.Value, version: k.version}
		if op.TTL > 0 {
			r.expires = time.Now().Add(op.TTL)
		}
		k.rows[key] = r
		res.Results[i] = OpResult{Applied: true, Version: r.version, Value: r.val}
	}
	return res, nil
}

func (k *fakeKV) Prefix(_ context.Context, tenant, ns, prefix, after string, limit int) ([]Row, string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	var keys []string
	for key := range k.rows {
		if strings.HasPrefix(key, tenant+"/"+prefix) && key > tenant+"/"+after {
			if _, ok := k.live(key); ok {
				keys = append(keys, key)
			}
		}
	}
	slices.Sort(keys)
	var rows []Row
	next := ""
	for i, key := range keys {
		if i == limit {
			next = strings.TrimPrefix(keys[i-1], tenant+"/")
			break
		}
		r := k.rows[key]
		rows = append(rows, Row{Key: strings.TrimPrefix(key, tenant+"/"), Found: true, Value: r.val, Version: r.version})
	}
	return rows, next, nil
}

// fakeStore is an in-memory bucket; fail makes the next n writes fail.
type fakeStore struct {
	mu   sync.Mutex
	objs map[string][]byte
	fail int
	puts int
}

func newFakeStore() *fakeStore { return &fakeStore{objs: map[string][]byte{}} }

func (s *fakeStore) Put(_ context.Context, key string, body []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail > 0 {
		s.fail--
		return fmt.Errorf("fake store: 500 on %s", key)
	}
	s.puts++
	s.objs[key] = slices.Clone(body)
	return nil
}

func (s *fakeStore) PutMultipart(ctx context.Context, key string, body []byte, _ int) error {
	return s.Put(ctx, key, body)
}

func (s *fakeStore) Get(_ context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.objs[key]
	if !ok {
		return nil, ErrNotFound
	}
	return slices.Clone(b), nil
}

func (s *fakeStore) Head(_ context.Context, key string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.objs[key]
	if !ok {
		return 0, ErrNotFound
	}
	return int64(len(b)), nil
}

// keys lists the bucket's keys in order.
func (s *fakeStore) keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k := range s.objs {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

var _ = math.MinInt64
