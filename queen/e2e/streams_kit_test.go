package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// What the streams tests share: the SDK pipeline as a process of its own
// (clients/python/streams/pipelines.py, stopped by its pid), the broker's
// view of a query (GET /streams/v1/queries), and the sink read back and
// compared, payload by payload, with what the input implies.

const streamsScript = "../../clients/python/streams/pipelines.py"

// probes numbers the probe groups of popPartitionIDs.
var probes atomic.Int64

// streamWorker is one run of the pipelines script: its output goes to a
// file shown when the test fails.
type streamWorker struct {
	t       *testing.T
	name    string
	logPath string
	child
}

// startWorker starts `pipelines.py args…` with the lane's python.
func startWorker(t *testing.T, python, name string, args ...string) *streamWorker {
	t.Helper()
	script, err := filepath.Abs(streamsScript)
	if err != nil {
		t.Fatal(err)
	}
	w := &streamWorker{t: t, name: name, logPath: filepath.Join(t.TempDir(), name+".log")}
	logf, err := os.Create(w.logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, append([]string{script}, args...)...)
	// The broker is on 127.0.0.1: no proxy of the environment may stand
	// between (httpx reads the proxy variables).
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1", "NO_PROXY=127.0.0.1,localhost",
		"no_proxy=127.0.0.1,localhost")
	if err := w.spawn(cmd, logf); err != nil {
		t.Fatal(err)
	}
	t.Logf("worker %s started, pid %d: pipelines.py %s", name, w.cmd.Process.Pid, strings.Join(args, " "))
	t.Cleanup(func() {
		w.kill()
		if t.Failed() {
			t.Logf("output of worker %s:\n%s", name, w.output())
		}
	})
	return w
}

// signal sends sig to the worker by its pid and waits for it to exit.
func (w *streamWorker) signal(sig syscall.Signal) *os.ProcessState {
	w.t.Helper()
	if w.cmd == nil {
		return w.state
	}
	if !w.signalWait(w.t, sig, 30*time.Second) {
		w.t.Fatalf("worker %s did not exit within 30 s of signal %d:\n%s", w.name, sig, w.output())
	}
	return w.state
}

// stop ends the worker with SIGTERM and requires the clean stop the script
// makes of one: exit 0 after its "stopped" line.
func (w *streamWorker) stop() {
	w.t.Helper()
	st := w.signal(syscall.SIGTERM)
	if st.ExitCode() != 0 || len(w.lines("stopped")) != 1 {
		w.t.Fatalf("worker %s did not stop cleanly on SIGTERM (%v):\n%s", w.name, st, w.output())
	}
}

// alive fails the test when the worker exited on its own.
func (w *streamWorker) alive() {
	w.t.Helper()
	select {
	case <-w.exited:
		w.t.Fatalf("worker %s exited (%v) while it should run:\n%s", w.name, w.state, w.output())
	default:
	}
}

func (w *streamWorker) output() string {
	b, _ := os.ReadFile(w.logPath)
	return string(b)
}

// lines answers the JSON bodies of the script's "<kind> {json}" lines.
func (w *streamWorker) lines(kind string) []map[string]any {
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(w.output()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), kind+" {")
		if !ok {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte("{"+rest), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// last is the body of the worker's last line of kind (nil: none).
func (w *streamWorker) last(kind string) map[string]any {
	ls := w.lines(kind)
	if len(ls) == 0 {
		return nil
	}
	return ls[len(ls)-1]
}

// waitStarted waits until the worker has registered its query and answers
// its "started" line.
func (w *streamWorker) waitStarted() map[string]any {
	w.t.Helper()
	var started map[string]any
	waitFor(w.t, "worker "+w.name+" to register its query", 60*time.Second, func() bool {
		w.alive()
		started = w.last("started")
		return started != nil
	})
	return started
}

// streamQuery is one query of GET /streams/v1/queries.
type streamQuery struct {
	QueryID       string `json:"query_id"`
	Name          string `json:"name"`
	SourceQueue   string `json:"source_queue"`
	SinkQueue     string `json:"sink_queue"`
	ConfigHash    string `json:"config_hash"`
	ConsumerGroup string `json:"consumer_group"`
	Resets        int    `json:"resets"`
	State         struct {
		Rows  int64 `json:"rows"`
		Bytes int64 `json:"bytes"`
	} `json:"state"`
	Lag int64 `json:"lag"`
}

// streamQuery reads one query; found is false on its 404.
func (n *node) streamQuery(ctx context.Context, name string) (q streamQuery, found bool, err error) {
	code, err := n.call(ctx, http.MethodGet, "/streams/v1/queries/"+url.PathEscape(name), nil, &q)
	if code == http.StatusNotFound {
		return q, false, nil
	}
	return q, err == nil, err
}

// streamQueries reads the list of queries.
func (n *node) streamQueries(ctx context.Context) ([]streamQuery, error) {
	var out struct {
		Queries []streamQuery `json:"queries"`
	}
	_, err := n.call(ctx, http.MethodGet, "/streams/v1/queries", nil, &out)
	return out.Queries, err
}

// stateRow is one row of POST /streams/v1/state/get.
type stateRow struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

// streamState reads every state row of a query's partition.
func (n *node) streamState(ctx context.Context, queryID, partitionID string) ([]stateRow, error) {
	var out struct {
		Success bool       `json:"success"`
		Rows    []stateRow `json:"rows"`
	}
	_, err := n.call(ctx, http.MethodPost, "/streams/v1/state/get",
		map[string]any{"query_id": queryID, "partition_id": partitionID, "keys": []string{}}, &out)
	if err == nil && !out.Success {
		err = fmt.Errorf("state/get of %s/%s did not succeed", queryID, partitionID)
	}
	return out.Rows, err
}

// queueParts answers a queue's partitions (name → id) and the records they
// hold; a queue that does not exist has none.
func (n *node) queueParts(ctx context.Context, queue string) (map[string]string, int64, error) {
	var d struct {
		Partitions []struct{ Name, ID string }
		Totals     struct{ Messages int64 }
	}
	code, err := n.call(ctx, http.MethodGet, "/api/v1/resources/queues/"+url.PathEscape(queue), nil, &d)
	if code == http.StatusNotFound {
		return map[string]string{}, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	parts := map[string]string{}
	for _, p := range d.Partitions {
		parts[p.Name] = p.ID
	}
	return parts, d.Totals.Messages, nil
}

// popPartitionIDs answers the partitionId a pop gives each of a queue's
// partitions (what the SDK names a partition's state by), learnt from one
// pop per partition by a group of its own (a new one each call: the pop
// leaves its lease): the query's group and its lag are untouched.
func (n *node) popPartitionIDs(ctx context.Context, t *testing.T, queue string, parts []string) map[string]string {
	t.Helper()
	ids := map[string]string{}
	q := url.Values{"consumerGroup": {fmt.Sprint("streams-test-probe-", probes.Add(1))}, "subscriptionMode": {"all"}, "batch": {"1"}, "wait": {"false"}}
	for _, p := range parts {
		code, a := n.popPartition(ctx, t, queue, p, q)
		if code != http.StatusOK || a.PartitionID == "" {
			t.Fatalf("a probe pop of %s/%s answered %d %+v", queue, p, code, a)
		}
		ids[p] = a.PartitionID
	}
	return ids
}

// readSink reads every partition of a queue from offset 0 on n.
func (n *node) readSink(ctx context.Context, queue string) (map[string][]fetchRecord, error) {
	parts, _, err := n.queueParts(ctx, queue)
	if err != nil {
		return nil, err
	}
	out := map[string][]fetchRecord{}
	for p := range parts {
		recs, _, err := n.fetchAll(ctx, queue, p)
		if err != nil {
			return nil, err
		}
		out[p] = recs
	}
	return out, nil
}

// canon is a JSON value in one spelling (keys sorted, numbers as written),
// so a payload compares with what the input implies whatever the encoder.
func canon(raw []byte) string {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return "!invalid " + string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// canonOf is canon of v's JSON.
func canonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return canon(b)
}

// sinkDiff compares a sink, partition by partition, with what it must
// hold: in that order when ordered, else as a multiset (every output once).
// It answers "" when they agree, else what differs.
func sinkDiff(want map[string][]string, got map[string][]fetchRecord, ordered bool) string {
	var d []string
	for p := range got {
		if _, ok := want[p]; !ok {
			d = append(d, fmt.Sprintf("partition %q holds %d records, none expected", p, len(got[p])))
		}
	}
	for p, w := range want {
		g := make([]string, len(got[p]))
		for i, r := range got[p] {
			g[i] = canon(r.Payload)
		}
		if ordered {
			if !slices.Equal(g, w) {
				d = append(d, fmt.Sprintf("partition %q: %d records, want %d in order; %s", p, len(g), len(w), firstDiff(w, g)))
			}
			continue
		}
		missing, extra := multisetDiff(w, g)
		if len(missing)+len(extra) > 0 {
			d = append(d, fmt.Sprintf("partition %q: %d records, want %d; missing %d %s; extra or duplicated %d %s",
				p, len(g), len(w), len(missing), head(missing), len(extra), head(extra)))
		}
	}
	slices.Sort(d)
	return strings.Join(d, "\n")
}

// multisetDiff answers what want has more of than got, and got than want.
func multisetDiff(want, got []string) (missing, extra []string) {
	n := map[string]int{}
	for _, s := range want {
		n[s]++
	}
	for _, s := range got {
		n[s]--
	}
	for s, c := range n {
		for ; c > 0; c-- {
			missing = append(missing, s)
		}
		for ; c < 0; c++ {
			extra = append(extra, s)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	return missing, extra
}

func firstDiff(want, got []string) string {
	for i := range max(len(want), len(got)) {
		var w, g string = "(none)", "(none)"
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			return fmt.Sprintf("first difference at offset %d: %s, want %s", i, g, w)
		}
	}
	return "no difference"
}

func head(s []string) string {
	if len(s) > 5 {
		return fmt.Sprint(s[:5], "…")
	}
	return fmt.Sprint(s)
}

func total[V any](m map[string][]V) int {
	n := 0
	for _, v := range m {
		n += len(v)
	}
	return n
}
