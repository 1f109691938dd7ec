package s3sink

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/queen-mq/queen-go/lakeformat"
)

// TestEngineScripts runs the scripts of testdata/engine: engines (nodes)
// against one in-memory broker log, KV store and bucket, on synctest's
// fake clock. Each script runs in a bubble of its own, whose clock starts
// at 2000-01-01T00:00:00Z. Rewrite the expected output with -rewrite, and
// only after reading the diff. S3SINK_SCRIPT_LOG=1 prints the engines' logs.
//
// The commands:
//
//	engine name=n1 [instance=n1] [crash=<point>] [queues=(a,b)|*] [start=earliest|latest]
//	       [format=jsonl|parquet] [codec=zstd|gzip|none|snappy] [layout=merged|per-partition]
//	       [align=hour|day|none] [target=<bytes>] [maxwindow=10s] [guard=5s] [ttl=30s]
//	       [discovery=2s] [memory=<bytes>] [checkpoint=<windows>] [multipart=<bytes>]
//	       [lag=<d>]        a follower whose applied log trails the leader's by lag
//	       [settle]         the first claims wait for a second presence beat, a
//	                        third of the TTL after the first, as in production;
//	                        without it (or cluster) they follow the first beat
//	       [cluster=<n>]    the cluster has n nodes: the first claims wait until
//	                        n presence rows are counted, or a TTL
//	                        start a node: a new life (incarnation n1#<life>)
//	stop n1                 drain (SIGTERM), then wait for it to end
//	kill n1                 end at once, leaving its rows and objects (SIGKILL)
//	freeze n1 / thaw n1     every call of the node waits (SIGSTOP) / goes on, in a fixed order
//	push [queue=orders]     one entry (one stamp); input: "<partition> <payload>" lines,
//	                        the payload "*N" is a JSON string N bytes long, none is null,
//	                        \n a line break
//	trim [queue=orders] p=<partition> before=<offset>   retention
//	retain [queue=orders] p=<partition> before=<offset> retention as the broker runs it:
//	                        the lost notes of the sinks' debts (LostNotes), fenced,
//	                        and the trim, all or nothing
//	advance <d> [tick=1s] [quiet]   the clock moves, the log ticking safeTime every tick
//	bucket [brief]          the objects, with the records of data objects
//	manifest [queue=orders] k=<k>
//	kv                      the live s3: rows; vN is the Nth write of that row
//	kv-put key=orders:committed   writes the input as a row, as another writer did
//	status n1 / metrics n1
//	fail-store n=<n> [after=<n>]                      the next puts fail
//	fail-kv n=<n> [after=<n>] [op=batch|get] [applied|late=<d>]
//	                        the next KV calls fail, timeout: not applied, applied,
//	                        or applied d later (a proposal that commits late)
//	fail-log n=<n> [op=partitions|fetch]               the next log reads fail
//	stall-kv n1 for=<d>     the node's KV calls go unanswered for d (a leader
//	                        that stopped): each waits until d has passed or its
//	                        deadline has, and then fails, not applied
//	save name=<s> / compare name=<s>   the bucket, then whether it is the same again
//	reset                   kill every node; a new broker and bucket whose clock
//	                        restarts at the bubble's first instant
//
// Commands print the trace of what happened since the last command: the
// nodes' KV writes and reads of the pointers, their puts and gets, and the
// states of their queues as seen at each tick. Lease refreshes and
// presence beats are left out, and a claim that finds the queue held is
// shown when its answer changes.

func TestEngineScripts(t *testing.T) {
	datadriven.Walk(t, "testdata/engine", func(t *testing.T, path string) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			h := newHarness(t)
			t.Cleanup(h.close)
			datadriven.RunTest(t, path, h.run)
		})
	})
}

// harness is a script's world: one broker and bucket, and the nodes.
type harness struct {
	t     *testing.T
	start time.Time // the bubble's first instant
	w     *hworld

	mu      sync.Mutex // guards the fields below, written by engine goroutines
	trace   []string
	lastOut map[string]string // the last shown answer of a repeated call
	logs    bytes.Buffer

	nodes  map[string]*hnode // by name: the current life
	all    []*hnode          // every life, for cleanup
	lives  map[string]int
	labels map[string]string // incarnation -> n1#2
	saved  map[string]map[string][]byte
}

// hworld is the shared broker and bucket. Its clock reads the bubble's
// first instant when it starts, so that a reset world replays a script's
// stamps and keys exactly.
type hworld struct {
	log    *fakeLog
	kv     *fakeKV
	store  *fakeStore
	offset time.Duration

	fmu       sync.Mutex
	storeFail injection
	kvFail    injection
	kvOp      string
	kvApplied bool
	kvLate    time.Duration // a failed batch applies this long after (a late write)
	logFail   injection
	logOp     string
}

// injection fails n calls after letting after of them pass.
type injection struct{ after, n int }

func (i *injection) fire() bool {
	if i.n == 0 {
		return false
	}
	if i.after > 0 {
		i.after--
		return false
	}
	i.n--
	return true
}

func newHarness(t *testing.T) *harness {
	h := &harness{t: t, start: time.Now(), lastOut: map[string]string{}, nodes: map[string]*hnode{},
		lives: map[string]int{}, labels: map[string]string{}, saved: map[string]map[string][]byte{}}
	h.w = &hworld{log: newFakeLog(), kv: newFakeKV(), store: newFakeStore()}
	return h
}

// now is the world's clock.
func (h *harness) now() time.Time { return time.Now().Add(-h.w.offset) }

func (h *harness) close() {
	for _, n := range h.all {
		n.die("")
	}
	for _, n := range h.all {
		<-n.done
	}
	if h.t.Failed() || os.Getenv("S3SINK_SCRIPT_LOG") != "" {
		h.mu.Lock()
		h.t.Logf("engine logs:\n%s", h.logs.String())
		h.mu.Unlock()
	}
}

func (h *harness) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.logs.Write(p)
}

// event adds a line to the trace, stamped with the world's clock.
func (h *harness) event(n *hnode, format string, args ...any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.trace = append(h.trace, clock(h.now())+" "+n.name+" "+fmt.Sprintf(format, args...))
}

// changed reports whether a repeated call's answer differs from the last
// one shown, and remembers it.
func (h *harness) changed(key, out string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lastOut[key] == out {
		return false
	}
	h.lastOut[key] = out
	return true
}

func (h *harness) flush(b *strings.Builder) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, l := range h.trace {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	h.trace = nil
}

// clock renders a wall time of the world: the time of day on its first
// day, the date too after it.
func clock(t time.Time) string {
	t = t.UTC()
	if t.YearDay() == 1 && t.Year() == 2000 {
		return t.Format("15:04:05.000")
	}
	return t.Format("01-02T15:04:05.000")
}

// stamp renders a stamp (µs) of the log like clock, to the microsecond.
func stamp(us int64) string {
	t := time.UnixMicro(us).UTC()
	if t.YearDay() == 1 && t.Year() == 2000 {
		return t.Format("15:04:05.000000")
	}
	return t.Format("01-02T15:04:05.000000")
}

// shortISO drops the first day's date from an ISO stamp of a report.
func shortISO(s *string) string {
	if s == nil {
		return "-"
	}
	if r, ok := strings.CutPrefix(*s, "2000-01-01T"); ok {
		return strings.TrimSuffix(r, "Z")
	}
	return *s
}

// hnode is one life of a node: an engine and the gates of its calls.
type hnode struct {
	h      *harness
	w      *hworld
	name   string // n1
	label  string // n1#2
	e      *Engine
	reg    *prometheus.Registry
	cancel context.CancelFunc
	done   chan struct{} // closed when Run returned

	mu       sync.Mutex
	frozen   bool
	parked   []*parkedCall
	dead     chan struct{}
	died     bool
	gone     bool          // stopped, killed or crashed: not polled
	lag      time.Duration // how far its applied log trails the leader's
	lastSeen map[string]string
	// stallUntil: until then the node's KV calls go unanswered (stall-kv).
	stallUntil time.Time
}

// stall waits out a stall-kv of the node, or the call's deadline: then the
// call fails, not applied, and says how long it waited.
func (n *hnode) stall(ctx context.Context) error {
	n.mu.Lock()
	until := n.stallUntil
	n.mu.Unlock()
	if !time.Now().Before(until) {
		return nil
	}
	start := time.Now()
	select {
	case <-time.After(time.Until(until)):
		return nil
	case <-ctx.Done():
		return fmt.Errorf("fake kv: no answer within its deadline (%v), not applied", time.Since(start))
	case <-n.dead:
		return errKilled
	}
}

type parkedCall struct {
	what string
	go_  chan struct{}
}

var errKilled = errors.New("harness: the node is dead")

// gate is the first step of every call of the node: it fails on a dead
// node and waits on a frozen one.
func (n *hnode) gate(what string) error {
	n.mu.Lock()
	if n.died {
		n.mu.Unlock()
		return errKilled
	}
	if !n.frozen {
		n.mu.Unlock()
		return nil
	}
	p := &parkedCall{what: what, go_: make(chan struct{})}
	n.parked = append(n.parked, p)
	n.mu.Unlock()
	select {
	case <-p.go_:
		return nil
	case <-n.dead:
		return errKilled
	}
}

func (n *hnode) isGone() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.gone
}

// die ends the node at once: every call fails from now on, and its context
// ends. why, when not empty, goes to the trace.
func (n *hnode) die(why string) {
	n.mu.Lock()
	if n.died {
		n.mu.Unlock()
		return
	}
	n.died, n.gone = true, true
	close(n.dead)
	n.mu.Unlock()
	n.cancel()
	if why != "" {
		n.h.event(n, "%s", why)
	}
}

// label names a lease or presence row's incarnation by its node's life.
func (h *harness) label(inc string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if l, ok := h.labels[inc]; ok {
		return l
	}
	return "?" + inc
}

// run runs one command of a script.
func (h *harness) run(t *testing.T, d *datadriven.TestData) string {
	var b strings.Builder
	out := h.command(t, d)
	h.flush(&b)
	b.WriteString(out)
	if b.Len() == 0 {
		return "ok\n"
	}
	return b.String()
}

func (h *harness) command(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "engine":
		return h.startEngine(t, d)
	case "stop":
		return h.stop(t, h.node(t, d))
	case "kill":
		n := h.node(t, d)
		n.die("")
		synctest.Wait()
		return n.label + " killed\n"
	case "freeze":
		n := h.node(t, d)
		n.mu.Lock()
		n.frozen = true
		n.mu.Unlock()
		return n.label + " frozen\n"
	case "thaw":
		return h.thaw(h.node(t, d))
	case "push":
		return h.push(t, d)
	case "trim":
		queue, part, before := "orders", "", 0
		d.MaybeScanArgs(t, "queue", &queue)
		d.ScanArgs(t, "p", &part)
		d.ScanArgs(t, "before", &before)
		h.w.log.trim(DefaultTenant, queue, part, int64(before))
		return fmt.Sprintf("%s/%s starts at offset %d\n", queue, part, before)
	case "recreate":
		queue, part := "orders", ""
		d.MaybeScanArgs(t, "queue", &queue)
		d.ScanArgs(t, "p", &part)
		h.w.log.recreate(DefaultTenant, queue, part)
		return fmt.Sprintf("%s/%s deleted and created again, empty\n", queue, part)
	case "retain":
		queue, part, before := "orders", "", 0
		d.MaybeScanArgs(t, "queue", &queue)
		d.ScanArgs(t, "p", &part)
		d.ScanArgs(t, "before", &before)
		return h.retain(t, queue, part, int64(before))
	case "advance":
		return h.advance(t, d)
	case "bucket":
		return h.bucket(t, d.HasArg("brief"))
	case "manifest":
		queue, k := "orders", 0
		d.MaybeScanArgs(t, "queue", &queue)
		d.ScanArgs(t, "k", &k)
		keys, _ := lakeformat.NewKeys("queen")
		key, err := keys.Manifest(DefaultTenant, queue, uint64(k))
		if err != nil {
			t.Fatal(err)
		}
		body, err := h.w.store.Get(context.Background(), key)
		if err != nil {
			return fmt.Sprintf("%s: %v\n", key, err)
		}
		return string(body)
	case "kv":
		return h.kv()
	case "kv-put":
		var key string
		d.ScanArgs(t, "key", &key)
		ops := []KVOp{{Kind: KVPut, Key: "s3:default:" + key, Value: []byte(strings.TrimSpace(d.Input))}}
		if _, err := h.w.kv.Batch(context.Background(), DefaultTenant, Namespace, ops); err != nil {
			t.Fatal(err)
		}
		return "ok\n"
	case "status":
		return h.status(h.node(t, d))
	case "metrics":
		return h.metrics(t, h.node(t, d))
	case "fail-store", "fail-kv", "fail-log":
		return h.inject(t, d)
	case "stall-kv":
		n := h.node(t, d)
		str := ""
		d.ScanArgs(t, "for", &str)
		d0, err := time.ParseDuration(str)
		if err != nil {
			t.Fatalf("%s: for=%s: %v", d.Pos, str, err)
		}
		n.mu.Lock()
		n.stallUntil = time.Now().Add(d0)
		n.mu.Unlock()
		return fmt.Sprintf("%s: no KV call answered until %s\n", n.label, clock(h.now().Add(d0)))
	case "save":
		var name string
		d.ScanArgs(t, "name", &name)
		h.saved[name] = h.snapshot()
		return fmt.Sprintf("saved %d objects\n", len(h.saved[name]))
	case "compare":
		var name string
		d.ScanArgs(t, "name", &name)
		return h.compare(h.saved[name], h.snapshot())
	case "reset":
		for _, n := range h.all {
			n.die("")
		}
		for _, n := range h.all {
			<-n.done
		}
		h.w = &hworld{log: newFakeLog(), kv: newFakeKV(), store: newFakeStore(), offset: time.Since(h.start)}
		h.w.log.offset = h.w.offset
		h.mu.Lock()
		h.trace, h.lastOut = nil, map[string]string{}
		h.mu.Unlock()
		h.nodes, h.lives = map[string]*hnode{}, map[string]int{}
		return "a new world at " + clock(h.now()) + "\n"
	}
	t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
	return ""
}

// node is the node a command names: its first argument.
func (h *harness) node(t *testing.T, d *datadriven.TestData) *hnode {
	if len(d.CmdArgs) == 0 {
		t.Fatalf("%s: %s names no node", d.Pos, d.Cmd)
	}
	n := h.nodes[d.CmdArgs[0].Key]
	if n == nil {
		t.Fatalf("%s: no node %s", d.Pos, d.CmdArgs[0].Key)
	}
	return n
}

func (h *harness) startEngine(t *testing.T, d *datadriven.TestData) string {
	var name string
	d.ScanArgs(t, "name", &name)
	if n := h.nodes[name]; n != nil && !n.isGone() {
		t.Fatalf("%s: %s is running", d.Pos, name)
	}
	set, node := testSettings()
	node.Instance = name
	node.MultipartThreshold = 64 << 20
	str := func(key string, f func(string)) {
		if arg, ok := d.Arg(key); ok {
			f(arg.SingleVal(t))
		}
	}
	dur := func(key string, dst *time.Duration) {
		str(key, func(s string) {
			v, err := time.ParseDuration(s)
			if err != nil {
				t.Fatalf("%s: %s=%s: %v", d.Pos, key, s, err)
			}
			*dst = v
		})
	}
	num := func(key string, f func(int64)) {
		str(key, func(s string) {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("%s: %s=%s: %v", d.Pos, key, s, err)
			}
			f(v)
		})
	}
	must := func(err error) {
		if err != nil {
			t.Fatalf("%s: %v", d.Pos, err)
		}
	}
	str("instance", func(s string) { node.Instance = s })
	str("crash", func(s string) { node.CrashAt = CrashPoint(s) })
	if arg, ok := d.Arg("queues"); ok {
		set.Queues = arg.Vals
		set.AllQueues = len(arg.Vals) == 1 && arg.Vals[0] == "*"
	}
	str("start", func(s string) { set.StartEarliest = s == "earliest" })
	str("format", func(s string) { f, err := lakeformat.ParseFormat(s); must(err); set.Format = f })
	str("codec", func(s string) {
		c, err := lakeformat.ParseCodec(s)
		must(err)
		set.Compression, set.ParquetCodec = c, c
	})
	str("layout", func(s string) { l, err := lakeformat.ParseLayout(s); must(err); set.Layout = l })
	str("align", func(s string) { a, err := lakeformat.ParseAlign(s); must(err); set.Align = a })
	num("target", func(v int64) { set.TargetBytes = v })
	num("memory", func(v int64) { node.MemoryBytes = v })
	num("checkpoint", func(v int64) { node.CheckpointEvery = int(v) })
	num("multipart", func(v int64) { node.MultipartThreshold = v })
	dur("maxwindow", &set.MaxWindow)
	dur("guard", &node.SafeGuard)
	dur("ttl", &node.LeaseTTL)
	dur("discovery", &node.DiscoveryInterval)
	var lag time.Duration
	dur("lag", &lag)
	cluster := 0
	num("cluster", func(v int64) { cluster = int(v) })

	h.lives[name]++
	n := &hnode{h: h, w: h.w, name: name, label: fmt.Sprintf("%s#%d", name, h.lives[name]), reg: prometheus.NewRegistry(),
		done: make(chan struct{}), dead: make(chan struct{}), lastSeen: map[string]string{}, lag: lag}
	var logOut io.Writer = h
	// newEngine, not NewEngine: scripts set budgets below the settings'
	// ranges (target=400, memory=600, multipart=100).
	e, err := newEngine(DefaultTenant, set, node, Deps{Log: hlog{n}, KV: hkv{n}, Store: hstore{n}, Clock: hclock{h.w},
		Metrics: NewMetrics(n.reg), Logger: slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: slog.LevelDebug})).With("node", n.label),
		ClusterNodes: cluster,
		Crash: func(p CrashPoint) {
			n.die("crashed at " + string(p))
			runtime.Goexit()
		}})
	must(err)
	// A claim's jitter depends on the node and the queue alone, so that a
	// script runs the same way every time.
	e.jitter = func(queue string) time.Duration {
		f := fnv.New32a()
		f.Write([]byte(name + "/" + queue))
		return time.Duration(1+f.Sum32()%199) * time.Millisecond
	}
	if !d.HasArg("settle") && cluster == 0 {
		e.settleAfter = 0 // claims follow the first presence beat
	}
	n.e = e
	h.mu.Lock()
	h.labels[e.incarnation] = n.label
	h.mu.Unlock()
	h.nodes[name] = n
	h.all = append(h.all, n)
	ctx, cancel := context.WithCancel(context.Background())
	n.cancel = cancel
	offPhase()
	go func() { defer close(n.done); e.Run(ctx) }()
	synctest.Wait()
	return fmt.Sprintf("%s started\n", n.label)
}

// stop drains a node as SIGTERM does, the log ticking meanwhile, and
// waits for it to end.
func (h *harness) stop(t *testing.T, n *hnode) string {
	ticking := make(chan struct{})
	ticked := make(chan struct{})
	go func() {
		defer close(ticked)
		for {
			select {
			case <-ticking:
				return
			case <-time.After(h.now().Truncate(time.Second).Add(time.Second).Sub(h.now())):
				h.w.log.tick()
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	offPhase()
	n.e.Drain(ctx)
	cancel()
	n.cancel()
	<-n.done
	close(ticking)
	<-ticked
	n.mu.Lock()
	n.gone = true
	n.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "%s stopped at %s:", n.label, clock(h.now()))
	for _, name := range n.queues() {
		fmt.Fprintf(&b, " %s %s", name, n.task(name).getState())
	}
	b.WriteString("\n")
	return b.String()
}

// offPhase lets a microsecond pass before a command sets an engine going,
// so that no engine's timer ever fires at the same instant as the log's
// ticks (whole seconds) or as another engine's: the order of goroutines
// woken at one instant is not fixed, and a script must run the same way
// every time. (Claim jitters are whole milliseconds.)
func offPhase() { time.Sleep(time.Microsecond) }

// thaw lets a frozen node go on: the calls it started meanwhile run one
// at a time, in the order of their descriptions, each to its end.
func (h *harness) thaw(n *hnode) string {
	n.mu.Lock()
	ps := n.parked
	n.parked, n.frozen = nil, false
	n.mu.Unlock()
	slices.SortStableFunc(ps, func(a, b *parkedCall) int { return strings.Compare(a.what, b.what) })
	offPhase()
	for _, p := range ps {
		close(p.go_)
		synctest.Wait()
	}
	h.poll()
	return fmt.Sprintf("%s thawed: %d calls had waited\n", n.label, len(ps))
}

func (n *hnode) queues() []string {
	n.e.mu.Lock()
	defer n.e.mu.Unlock()
	return slices.Clone(n.e.queues)
}

func (n *hnode) task(queue string) *queueTask {
	n.e.mu.Lock()
	defer n.e.mu.Unlock()
	return n.e.tasks[queue]
}

// poll adds the queue states that changed since the last poll to the trace.
func (h *harness) poll() {
	for _, n := range h.all {
		n.mu.Lock()
		gone := n.gone
		n.mu.Unlock()
		if gone {
			continue
		}
		for _, name := range n.queues() {
			q := n.task(name)
			q.mu.Lock()
			s := string(q.state)
			if q.state == StateHeld {
				s += " by " + q.holder
			}
			q.mu.Unlock()
			if n.lastSeen[name] != s {
				n.lastSeen[name] = s
				h.event(n, "%s is %s", name, s)
			}
		}
	}
}

func (h *harness) advance(t *testing.T, d *datadriven.TestData) string {
	if len(d.CmdArgs) == 0 {
		t.Fatalf("%s: advance how long?", d.Pos)
	}
	total, err := time.ParseDuration(d.CmdArgs[0].Key)
	if err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	tick := time.Second
	if arg, ok := d.Arg("tick"); ok {
		if tick, err = time.ParseDuration(arg.SingleVal(t)); err != nil {
			t.Fatalf("%s: %v", d.Pos, err)
		}
	}
	// The log ticks at whole ticks of the world's clock, whenever the
	// command started.
	end := h.now().Add(total)
	for {
		next := h.now().Truncate(tick).Add(tick)
		if next.After(end) {
			time.Sleep(end.Sub(h.now()))
			synctest.Wait()
			h.poll()
			break
		}
		time.Sleep(next.Sub(h.now()))
		h.w.log.tick()
		synctest.Wait()
		h.poll()
	}
	if d.HasArg("quiet") {
		h.mu.Lock()
		h.trace = nil
		h.mu.Unlock()
	}
	return ""
}

func (h *harness) push(t *testing.T, d *datadriven.TestData) string {
	queue := "orders"
	d.MaybeScanArgs(t, "queue", &queue)
	var items [][2]string
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		part, payload, _ := strings.Cut(strings.TrimSpace(line), " ")
		payload = strings.ReplaceAll(payload, `\n`, "\n")
		if n, ok := strings.CutPrefix(payload, "*"); ok {
			size, err := strconv.Atoi(n)
			if err != nil || size < 2 {
				t.Fatalf("%s: payload %q", d.Pos, payload)
			}
			payload = `"` + strings.Repeat("x", size-2) + `"`
		}
		items = append(items, [2]string{part, payload})
	}
	ts := h.w.log.push(DefaultTenant, queue, items...)
	return fmt.Sprintf("%d records at %s\n", len(items), stamp(ts))
}

func (h *harness) inject(t *testing.T, d *datadriven.TestData) string {
	var i injection
	d.ScanArgs(t, "n", &i.n)
	d.MaybeScanArgs(t, "after", &i.after)
	op := ""
	d.MaybeScanArgs(t, "op", &op)
	h.w.fmu.Lock()
	defer h.w.fmu.Unlock()
	switch d.Cmd {
	case "fail-store":
		h.w.storeFail = i
	case "fail-kv":
		h.w.kvFail, h.w.kvOp, h.w.kvApplied = i, op, d.HasArg("applied")
		h.w.kvLate = 0
		if arg, ok := d.Arg("late"); ok {
			late, err := time.ParseDuration(arg.SingleVal(t))
			if err != nil {
				t.Fatalf("%s: late=%s: %v", d.Pos, arg.SingleVal(t), err)
			}
			h.w.kvLate = late
		}
	case "fail-log":
		h.w.logFail, h.w.logOp = i, op
	}
	return "ok\n"
}

func (w *hworld) failStore() error {
	w.fmu.Lock()
	defer w.fmu.Unlock()
	if w.storeFail.fire() {
		return errors.New("fake store: 503 slow down")
	}
	return nil
}

func (w *hworld) failKV(op string) (fail, applied bool, late time.Duration) {
	w.fmu.Lock()
	defer w.fmu.Unlock()
	if (w.kvOp == "" || w.kvOp == op) && w.kvFail.fire() {
		return true, w.kvApplied, w.kvLate
	}
	return false, false, 0
}

func (w *hworld) failLog(op string) error {
	w.fmu.Lock()
	defer w.fmu.Unlock()
	if (w.logOp == "" || w.logOp == op) && w.logFail.fire() {
		return errors.New("fake log: not ready")
	}
	return nil
}

// retain trims as the broker's retention does: the debts of the sinks'
// documents, the lost notes of the records the trim deletes, and the
// trim, in one step that applies only while the fences hold.
func (h *harness) retain(t *testing.T, queue, part string, before int64) string {
	ctx := context.Background()
	rows, _, err := h.w.kv.Prefix(ctx, DefaultTenant, Namespace, "s3:", "", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	debts, err := Debts(rows, queue)
	if err != nil {
		return fmt.Sprintf("debts: %v\n", err)
	}
	h.w.log.mu.Lock()
	p := h.w.log.part(DefaultTenant, queue, part)
	var recs []lakeformat.Record
	if p != nil && before > p.logStart {
		recs = slices.Clone(p.recs[:before-p.logStart])
	}
	h.w.log.mu.Unlock()
	if len(recs) == 0 {
		return "nothing to trim\n"
	}
	byKey := map[string]Row{}
	for _, r := range rows {
		byKey[r.Key] = r
	}
	from, to := recs[0].Offset, recs[len(recs)-1].Offset
	ops, err := LostNotes(debts, queue, part, from, to, func(ts int64) (int64, error) {
		for _, r := range recs {
			if r.Ts >= ts {
				return r.Offset, nil
			}
		}
		return to + 1, nil
	}, func(key string) Row { return byKey[key] })
	if err != nil {
		return fmt.Sprintf("notes: %v\n", err)
	}
	var b strings.Builder
	if len(ops) > 0 {
		res, err := h.w.kv.Batch(ctx, DefaultTenant, Namespace, ops)
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK {
			return fmt.Sprintf("fence %s moved: nothing trimmed\n", short(ops[res.FailedIndex].Key))
		}
		for _, op := range ops {
			if op.Kind == KVPut {
				fmt.Fprintf(&b, "noted %s\n", op.Value)
			}
		}
	}
	h.w.log.trim(DefaultTenant, queue, part, before)
	fmt.Fprintf(&b, "%s/%s starts at offset %d\n", queue, part, before)
	return b.String()
}
