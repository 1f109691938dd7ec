package lake_test

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/s3sink"
	"github.com/queen-mq/queen-go/s3sink/s3store"
	"github.com/queen-mq/queen-go/s3sink/s3test"
	"github.com/queen-mq/queen-go/tools/lake"
)

const (
	tenant = lake.DefaultTenant
	queue  = "orders"
	minute = int64(60_000_000)
	// t0 is 2026-10-03T06:00:00Z, the hour of the spec's example.
	t0 = int64(1791007200000000)
)

// winSpec is one window of a fixture.
type winSpec struct {
	tStart, tEnd int64
	layout       lakeformat.Layout
	opts         lakeformat.Options
}

// fixture is a queue's log and the windows a sink cut it into.
type fixture struct {
	// log holds every record ever appended, by partition, offsets from 0.
	log map[string][]lakeformat.Record
	// brokerStart is each partition's log start at the broker: offsets
	// below it were deleted by retention.
	brokerStart map[string]int64
	// lakeStart is the first offset the sink read of a partition; the
	// offsets below it are a lost range of window 1.
	lakeStart map[string]int64
	// skip are records the lake leaves out with no lost range (a fault).
	skip map[string][]int64
	// lostExtra are more lost ranges of window 1.
	lostExtra []lakeformat.LostRange
	windows   []winSpec
}

var (
	jsonlZstd     = lakeformat.Options{Format: lakeformat.JSONL, Codec: lakeformat.Zstd}
	jsonlGzip     = lakeformat.Options{Format: lakeformat.JSONL, Codec: lakeformat.Gzip}
	jsonlNone     = lakeformat.Options{Format: lakeformat.JSONL, Codec: lakeformat.None}
	parquetZstd   = lakeformat.Options{Format: lakeformat.Parquet, Codec: lakeformat.Zstd}
	parquetSnappy = lakeformat.Options{Format: lakeformat.Parquet, Codec: lakeformat.Snappy}
)

// newFixture is a log of five partitions over an hour and a little more,
// cut into six windows of every format, codec and layout, with a gap in
// time between windows 5 and 6. Partition cust-3 lost offsets 0..1 to
// retention before the sink read them (a lost range of window 1); the
// broker has since deleted cust-2's offsets 0..1 too, which the lake
// holds. Partition "old" is stamped before the first window (start=latest).
func newFixture() *fixture {
	f := &fixture{log: map[string][]lakeformat.Record{},
		brokerStart: map[string]int64{"cust-2": 2, "cust-3": 2},
		lakeStart:   map[string]int64{"cust-3": 2},
		skip:        map[string][]int64{}}
	payloads := []string{`{"order":%d,"total":42.00}`, "{\n  \"order\": %d,\n  \"pretty\": true\n}", ``, `[%d, "x", null]`, `"s%d"`}
	for pi, part := range []string{"cust-1", "cust-2", "a b/c", "cust-3"} {
		for m := int64(1); m < 65; m += 2 {
			if m >= 50 && m < 55 {
				continue // the stretch with no record
			}
			off := int64(len(f.log[part]))
			p := payloads[int(off)%len(payloads)]
			if p != "" {
				p = fmt.Sprintf(p, off)
			}
			f.log[part] = append(f.log[part], lakeformat.Record{Partition: part, Offset: off,
				TransactionID: fmt.Sprintf("tx-%s-%d", part, off), Ts: t0 + m*minute + int64(pi)*1000, Payload: []byte(p)})
		}
	}
	for i := range int64(2) {
		f.log["old"] = append(f.log["old"], lakeformat.Record{Partition: "old", Offset: i, TransactionID: fmt.Sprint("old-", i),
			Ts: t0 - 5*minute + i, Payload: []byte(`{"old":true}`)})
	}
	w := func(from, to int64, l lakeformat.Layout, o lakeformat.Options) winSpec {
		return winSpec{t0 + from*minute, t0 + to*minute, l, o}
	}
	f.windows = []winSpec{
		w(0, 10, lakeformat.Merged, jsonlZstd),
		w(10, 20, lakeformat.Merged, jsonlGzip),
		w(20, 30, lakeformat.Merged, jsonlNone),
		w(30, 40, lakeformat.Merged, parquetZstd),
		w(40, 50, lakeformat.PerPartition, jsonlZstd),
		w(55, 60, lakeformat.PerPartition, parquetSnappy),
	}
	return f
}

// records returns the records of window ws that the lake holds, in the
// lake's order.
func (f *fixture) records(ws winSpec) []lakeformat.Record {
	var out []lakeformat.Record
	for _, part := range sortedParts(f.log) {
		for _, r := range f.log[part] {
			if r.Ts >= ws.tStart && r.Ts < ws.tEnd && r.Offset >= f.lakeStart[part] && !slices.Contains(f.skip[part], r.Offset) {
				out = append(out, r)
			}
		}
	}
	return out
}

func sortedParts(m map[string][]lakeformat.Record) []string {
	var ps []string
	for p := range m {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

// bucket is a bucket of a test server with the lake of a fixture.
type bucket struct {
	t     *testing.T
	srv   *s3test.Server
	set   s3sink.Settings
	st    *s3store.Store
	keys  lakeformat.Keys
	built map[uint64]*lakeformat.Manifest
}

var bucketSeq atomic.Int64

// newBucket makes a new bucket on srv.
func newBucket(t *testing.T, srv *s3test.Server) *bucket {
	t.Helper()
	set := srv.Bucket(t, fmt.Sprintf("lake-%d", bucketSeq.Add(1)))
	st, err := s3store.New(context.Background(), s3test.StoreConfig(set), s3store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := lakeformat.NewKeys("queen")
	return &bucket{t: t, srv: srv, set: set, st: st, keys: keys, built: map[uint64]*lakeformat.Manifest{}}
}

// builtBucket makes a new bucket on srv and writes the lake of f in it.
func builtBucket(t *testing.T, srv *s3test.Server, f *fixture) *bucket {
	t.Helper()
	b := newBucket(t, srv)
	b.build(f)
	return b
}

// config is the lake.Config of the bucket.
func (b *bucket) config() lake.Config {
	return lake.Config{Endpoint: b.set.Endpoint, Region: b.set.Region, Bucket: b.set.Bucket, PathStyle: true,
		AccessKey: b.set.AccessKey, SecretKey: b.set.SecretKey, Queue: queue}
}

// build writes the lake of f: every window's objects and manifest.
func (b *bucket) build(f *fixture) {
	b.t.Helper()
	for i, ws := range f.windows {
		k := uint64(i + 1)
		var lost []lakeformat.LostRange
		if k == 1 {
			lost = append(lost, f.lostExtra...)
			for _, part := range sortedParts(f.log) {
				if s := f.lakeStart[part]; s > 0 {
					lost = append(lost, lakeformat.LostRange{Partition: part, From: 0, To: s - 1})
				}
			}
		}
		b.window(k, ws, f.records(ws), lost)
	}
}

// window encodes records as window k and uploads its objects and manifest.
func (b *bucket) window(k uint64, ws winSpec, records []lakeformat.Record, lost []lakeformat.LostRange) *lakeformat.Manifest {
	b.t.Helper()
	w := lakeformat.Window{Tenant: tenant, Queue: queue, K: k, TStart: ws.tStart, TEnd: ws.tEnd}
	o := ws.opts
	o.Tenant, o.Queue = tenant, queue
	objs, err := lakeformat.EncodeWindow(b.keys, w, lakeformat.AlignHour, ws.layout, o, records)
	if err != nil {
		b.t.Fatalf("encode window %d: %v", k, err)
	}
	var mos []lakeformat.ManifestObject
	for _, obj := range objs {
		b.put(obj.Key, obj.Body)
		mos = append(mos, obj.ManifestObject())
	}
	m := b.manifest(w, ws, mos, records, lost)
	b.putManifest(m)
	return m
}

// manifest builds the manifest of window w over its objects and records.
func (b *bucket) manifest(w lakeformat.Window, ws winSpec, mos []lakeformat.ManifestObject, records []lakeformat.Record, lost []lakeformat.LostRange) *lakeformat.Manifest {
	m := &lakeformat.Manifest{Sink: "default", Tenant: tenant, Queue: queue, K: w.K, TStart: w.TStart, TEnd: w.TEnd,
		Format: ws.opts.Format, Codec: ws.opts.Codec, Layout: ws.layout, Objects: mos, Lost: lost,
		Writer: "queen-s3/2.0.0 " + ws.opts.WriterID(), CommittedAt: w.TEnd + 7_000_000}
	parts := map[string]bool{}
	for _, mo := range mos {
		m.Records += mo.Records
		m.Bytes += mo.Bytes
	}
	for i, r := range records {
		parts[r.Partition] = true
		if i == 0 {
			lo, hi := r.Ts, r.Ts
			m.MinTs, m.MaxTs = &lo, &hi
		}
		*m.MinTs, *m.MaxTs = min(*m.MinTs, r.Ts), max(*m.MaxTs, r.Ts)
	}
	m.Partitions = int64(len(parts))
	return m
}

// putManifest encodes and uploads m under its key.
func (b *bucket) putManifest(m *lakeformat.Manifest) {
	b.t.Helper()
	body, err := m.Encode()
	if err != nil {
		b.t.Fatalf("encode manifest %d: %v", m.K, err)
	}
	b.put(b.manifestKey(m.K), body)
	b.built[m.K] = m
}

func (b *bucket) manifestKey(k uint64) string {
	key, err := b.keys.Manifest(tenant, queue, k)
	if err != nil {
		b.t.Fatal(err)
	}
	return key
}

func (b *bucket) put(key string, body []byte) {
	b.t.Helper()
	if err := b.st.Put(context.Background(), key, body); err != nil {
		b.t.Fatalf("put %s: %v", key, err)
	}
}

func (b *bucket) remove(key string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := b.srv.Client().DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(b.set.Bucket), Key: aws.String(key)}); err != nil {
		b.t.Fatalf("delete %s: %v", key, err)
	}
}

// verify runs lake.Verify on the bucket, with the broker at url when set.
func (b *bucket) verify(url string) lake.Report {
	b.t.Helper()
	cfg := b.config()
	cfg.Broker = url
	r, err := lake.Verify(context.Background(), cfg)
	if err != nil {
		b.t.Fatalf("verify: %v", err)
	}
	return r
}
