package s3sink

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/queen-mq/queen-go/lakeformat"
)

func testSettings() (Settings, NodeSettings) {
	set := Settings{Queues: []string{"orders"}, Endpoint: "http://127.0.0.1:9000", Region: "us-east-1", Bucket: "lake",
		AccessKey: "AK", SecretKey: "SK", Prefix: "queen", Format: lakeformat.JSONL,
		Compression: lakeformat.Zstd, ParquetCodec: lakeformat.Zstd, Layout: lakeformat.Merged, Align: lakeformat.AlignHour,
		StartEarliest: true, TargetBytes: 128 << 20, MaxWindow: 10 * time.Second, Sink: "default"}
	node := NodeSettings{Threads: 1, ShutdownGrace: 30 * time.Second, MemoryBytes: 512 << 20, FetchConcurrency: 4, DiscoveryInterval: 2 * time.Second,
		SafeGuard: 5 * time.Second, LeaseTTL: 30 * time.Second, MultipartThreshold: 64 << 20, CheckpointEvery: 20,
		Instance: "node-1@test", CrashAt: CrashNever}
	return set, node
}

// world is a broker and a bucket in memory, and engines running on them.
type world struct {
	t     *testing.T
	log   *fakeLog
	kv    *fakeKV
	store *fakeStore
}

func newWorld(t *testing.T) *world {
	return &world{t: t, log: newFakeLog(), kv: newFakeKV(), store: newFakeStore()}
}

// start runs an engine until the returned stop is called.
func (w *world) start(set Settings, node NodeSettings, crash func(CrashPoint)) (*Engine, func()) {
	e, err := NewEngine(DefaultTenant, set, node, Deps{Log: w.log, KV: w.kv, Store: w.store, Crash: crash,
		Logger: slog.New(slog.NewTextHandler(testOut, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		w.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.Run(ctx); close(done) }()
	return e, func() { cancel(); <-done }
}

// advance lets d pass on the fake clock, with a leader tick every second
// so that safeTime moves, as on a broker with no other traffic.
func (w *world) advance(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		time.Sleep(time.Second)
		w.log.tick()
	}
	synctest.Wait()
}

func unzstd(t *testing.T, b []byte) string {
	d, err := zstd.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out, err := io.ReadAll(d)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// The spec's "Try it" run in memory: three records on two partitions make
// one window, its data object and manifest at the spec's keys, and the
// commit pointer.
func TestEngineCommitsAWindow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorld(t)
		set, node := testSettings()
		w.advance(time.Hour) // a clock past the epoch's first hour
		e, stop := w.start(set, node, nil)
		defer stop()
		w.advance(3 * time.Second)
		ts := w.log.push(DefaultTenant, "orders", [2]string{"cust-1", `{"order":1,"status":"new","total":42.00}`},
			[2]string{"cust-2", `{"order":2,"status":"new","total":17.50}`}, [2]string{"cust-1", `{"order":1,"status":"paid","total":42.00}`})
		w.advance(20 * time.Second)

		keys := w.store.keys()
		if len(keys) != 2 {
			t.Fatalf("bucket holds %v, want a data object and a manifest", keys)
		}
		hour := ts - ts%microsPerHour
		if !strings.HasPrefix(keys[0], "queen/_queen/tenant="+DefaultTenant+"/queue=orders/windows/0000000001.json") ||
			!strings.HasPrefix(keys[1], "queen/tenant="+DefaultTenant+"/queue=orders/dt=2000-01-01/hour=01/w-0000000001-"+strconv.Itoa(int(hour))+"-") {
			t.Fatalf("keys %v", keys)
		}
		lines := unzstd(t, w.store.objs[keys[1]])
		if strings.Count(lines, "\n") != 3 || !strings.Contains(lines, `"payload":{"order":1,"status":"new","total":42.00}`) {
			t.Fatalf("data object:\n%s", lines)
		}
		m, err := lakeformat.DecodeManifest(w.store.objs[keys[0]])
		if err != nil || m.Records != 3 || m.Partitions != 2 || *m.MinTs != ts || m.TStart != hour {
			t.Fatalf("manifest %+v: %v", m, err)
		}
		rows, _ := w.kv.Get(context.Background(), DefaultTenant, Namespace, []string{"s3:default:orders:committed", "s3:default:orders:lease"})
		if k, tEnd, err := decodeCommitted(rows[0].Value); err != nil || k != 1 || tEnd != m.TEnd {
			t.Fatalf("commit pointer %s: %v", rows[0].Value, err)
		}
		if !rows[1].Found {
			t.Fatal("the running node holds no lease")
		}
		r := e.Report(context.Background())
		if len(r.Queues) != 1 || r.Queues[0].State != StateFilling || r.Queues[0].WindowsCommitted != 1 || r.Queues[0].Records != 3 || !r.OK {
			t.Fatalf("report %+v", r)
		}
	})
}

var testOut io.Writer = os.Stderr
