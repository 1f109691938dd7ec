// Command compat-gen writes the lakes of the compatibility lane: one queen
// node pushes a fixed data set to two tenants across a midnight (UTC)
// boundary of its clock, then mirrors it, through the real embedded sink
// into a real S3 server (versitygw): the default tenant's by the
// environment's sink once for each combination of format, codec, layout
// and alignment, and a control-plane tenant's by the sink PUT through
// /api/cp for two of them. It leaves the bucket's directory and the
// contract files (lakes.json, and each tenant's expected*.jsonl) in -out
// for compat/run.py; see the compat package's doc.
//
//	compat-gen -out .cache/compat-out [-versitygw .cache/bin/versitygw] [-queen BIN] [-lakes id,id]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/s3sink/s3test/versitygw"
	"github.com/queen-mq/queen-go/testkit/freeport"
)

var started = time.Now()

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "compat-gen %5.1fs: %s\n", time.Since(started).Seconds(), fmt.Sprintf(format, args...))
}

func main() {
	out := flag.String("out", "", "the output directory (required): s3/, expected*.jsonl, lakes.json, logs/")
	queenBin := flag.String("queen", "", "the queen binary (default: built from the workspace into <out>/bin)")
	vgw := flag.String("versitygw", "", "the versitygw binary (default: <workspace>/.cache/bin/versitygw, where make tools puts it)")
	lead := flag.Duration("lead", 20*time.Second, "how far before midnight UTC the node's clock stands when it boots")
	only := flag.String("lakes", "", "comma-separated lake ids to write (default: all 22)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "compat-gen: -out is required")
		flag.Usage()
		os.Exit(2)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s := <-sig
		logf("%v: stopping the processes it started", s)
		killAll()
		os.Exit(1)
	}()
	err := run(*out, *queenBin, *vgw, *lead, *only)
	killAll()
	if err != nil {
		fmt.Fprintln(os.Stderr, "compat-gen: FAIL:", err)
		os.Exit(1)
	}
	logf("done")
}

func run(out, queenBin, vgw string, lead time.Duration, only string) error {
	out, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	root := versitygw.RepoRoot()
	if vgw == "" {
		if root == "" {
			return fmt.Errorf("-versitygw is not set and no go.work is above %s", mustGetwd())
		}
		vgw = filepath.Join(root, ".cache", "bin", "versitygw")
	}
	if _, err := os.Stat(vgw); err != nil {
		return fmt.Errorf("versitygw: %w (make tools installs it into .cache/bin)", err)
	}
	lakes := combos()
	if only != "" {
		want := strings.Split(only, ",")
		lakes = slices.DeleteFunc(lakes, func(c combo) bool { return !slices.Contains(want, c.ID()) })
		if len(lakes) != len(want) {
			return fmt.Errorf("-lakes %s: unknown lake id (ids look like jsonl-zstd-merged-hour, cp-jsonl-gzip-merged-hour)", only)
		}
	}

	// A fresh output: only what compat-gen itself writes is removed.
	old, _ := filepath.Glob(filepath.Join(out, "expected*.jsonl"))
	for _, name := range []string{"s3", "queen-data", "logs", "lakes.json"} {
		old = append(old, filepath.Join(out, name))
	}
	for _, path := range old {
		if err := os.RemoveAll(path); err != nil {
			return err
		}
	}
	s3dir, logDir := filepath.Join(out, "s3"), filepath.Join(out, "logs")
	for _, d := range []string{filepath.Join(s3dir, s3Bucket), logDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if queenBin == "" {
		if root == "" {
			return fmt.Errorf("-queen is not set and no go.work is above %s", mustGetwd())
		}
		queenBin = filepath.Join(out, "bin", "queen")
		logf("go build queen")
		build := exec.Command("go", "build", "-o", queenBin, "./queen/cmd/queen")
		build.Dir, build.Stdout, build.Stderr = root, os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("go build ./queen/cmd/queen: %w", err)
		}
	}

	gw, endpoint, err := startVersitygw(vgw, s3dir, filepath.Join(logDir, "versitygw.log"))
	if err != nil {
		return err
	}
	defer gw.stop(10 * time.Second)
	logf("versitygw at %s over %s", endpoint, s3dir)

	n, boundary, err := newNode(queenBin, filepath.Join(out, "queen-data"), logDir, lead)
	if err != nil {
		return err
	}
	recs, err := pushDataSet(n, boundary)
	if err != nil {
		return err
	}
	want := map[string][]expectedRow{}    // by tenant
	last := map[string]map[string]int64{} // by tenant, then queue
	var dtValues []string
	var tinfos []tenantInfo
	for _, t := range tenants {
		rows, err := expectations(t, recs[t])
		if err != nil {
			return err
		}
		if dts := dtsOf(rows); dtValues == nil {
			dtValues = dts
		} else if !slices.Equal(dts, dtValues) {
			return fmt.Errorf("tenant %s's records fall on dt %v, the default tenant's on %v", t, dts, dtValues)
		}
		ti := newTenantInfo(out, t, len(rows))
		if err := writeJSONL(ti.Expected, rows); err != nil {
			return err
		}
		want[t], last[t], tinfos = rows, lastStamps(rows), append(tinfos, ti)
	}

	var infos []lakeInfo
	for _, c := range lakes {
		t0 := time.Now()
		if err := writeLake(n, c, endpoint, last[c.tenant()]); err != nil {
			return fmt.Errorf("lake %s: %w", c.ID(), err)
		}
		objects, err := verifyLake(s3dir, c, want[c.tenant()])
		if err != nil {
			return err
		}
		logf("lake %s: %d records of tenant %s in %d objects (%.1f s)", c.ID(), len(want[c.tenant()]), c.tenant(), objects,
			time.Since(t0).Seconds())
		infos = append(infos, c.info(s3dir, filepath.Join(out, expectedFile(c.tenant())), objects))
	}

	return writeJSON(filepath.Join(out, "lakes.json"), lakesFile{
		GeneratedAt: time.Now().UTC().Format("2006-01-02T15:04:05Z"), S3Dir: s3dir, Bucket: s3Bucket,
		AccessKey: s3Access, SecretKey: s3Secret, Region: s3Region, Tenants: tinfos, Lakes: infos,
		Queues: queues, DtValues: dtValues, HourBoundary: lakeformat.FormatTs(boundary.UnixMicro()),
	})
}

// writeLake boots the node with the lake's sink and waits until the sink
// has committed every record of the lake's tenant (last: each queue's
// last stamp), then stops the node. The default tenant's sink comes from
// the environment; a control-plane tenant's is PUT through /api/cp on a
// node with tenancy and the control plane on and no QUEEN_S3_QUEUES, and
// its row deleted again once its lake is complete.
func writeLake(n *queenNode, c combo, endpoint string, last map[string]int64) error {
	env := nodeSinkEnv()
	if c.CP {
		env = append(env, cpNodeEnv()...)
	} else {
		env = append(env, c.env(endpoint)...)
	}
	if err := n.start(c.ID(), env...); err != nil {
		return err
	}
	defer n.stop()
	if c.CP {
		if err := n.cpSetup(); err != nil {
			return err
		}
		if err := n.cpPutSink(c, endpoint); err != nil {
			return err
		}
	}
	if err := n.waitComplete(c.tenant(), c.ID(), last, 120*time.Second); err != nil {
		return err
	}
	if c.CP {
		return n.cpDeleteSink()
	}
	return nil
}

// newNode picks the node's ports and its clock offset: the node's clock
// (wall clock plus QUEEN_RAFT_CLOCK_OFFSET_MS, forward only and at most a
// day) stands lead before the next midnight UTC when it boots, so the data
// set falls on two dates and two hours. It returns that midnight.
func newNode(bin, dataDir, logDir string, lead time.Duration) (*queenNode, time.Time, error) {
	now := time.Now().UTC()
	midnight := now.Truncate(24 * time.Hour).Add(24 * time.Hour)
	if midnight.Sub(now) < lead+5*time.Second {
		// Too close to a real midnight for a forward shift: let it pass.
		wait := midnight.Sub(now) + time.Second
		logf("midnight UTC is %v away: waiting for it", wait.Round(time.Second))
		time.Sleep(wait)
		now = time.Now().UTC()
		midnight = midnight.Add(24 * time.Hour)
	}
	offset := midnight.Sub(now) - lead
	hp, err := freeport.Port()
	if err != nil {
		return nil, time.Time{}, err
	}
	rp, err := freeport.Port()
	if err != nil {
		return nil, time.Time{}, err
	}
	n := &queenNode{bin: bin, dataDir: dataDir, logDir: logDir, httpPort: hp, raftPort: rp,
		offsetMs: offset.Milliseconds(), url: fmt.Sprintf("http://127.0.0.1:%d", hp)}
	return n, midnight, nil
}

// clock is the node's proposer clock: our wall clock plus its offset.
func (n *queenNode) clock() time.Time {
	return time.Now().Add(time.Duration(n.offsetMs) * time.Millisecond).UTC()
}

// pushDataSet boots the node without the sink, with tenancy on (and the
// control plane off: with it on, a data-plane request needs an API key,
// and no cluster may hold the default tenant), pushes the rounds before the
// boundary (each push to every tenant), waits until the node's safeTime
// passes it, pushes the rest, reads every tenant's records back and stops
// the node. It returns the records by tenant.
func pushDataSet(n *queenNode, boundary time.Time) (map[string][]record, error) {
	if err := n.start("push", pushNodeEnv()...); err != nil {
		return nil, err
	}
	defer n.stop()
	logf("queen at %s, its clock at %s (offset %d ms), boundary %s", n.url, n.clock().Format(time.RFC3339Nano),
		n.offsetMs, boundary.Format(time.RFC3339))
	for _, p := range batch(0, roundsBefore) {
		if left := boundary.Sub(n.clock()); left < time.Second {
			return nil, fmt.Errorf("the node's clock reached the boundary during the first batch (%v left): raise -lead", left)
		}
		if err := n.pushAll(p); err != nil {
			return nil, err
		}
	}
	if st, err := n.safeTime(); err != nil || st >= boundary.UnixMicro() {
		return nil, fmt.Errorf("after the first batch, safeTime %d (boundary %d): %v; raise -lead", st, boundary.UnixMicro(), err)
	}
	logf("first batch pushed; waiting %v for the node's clock to pass %s", boundary.Sub(n.clock()).Round(time.Second),
		boundary.Format(time.RFC3339))
	time.Sleep(max(boundary.Sub(n.clock()), 0))
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := n.safeTime() // an idle leader's tick moves it
		if err == nil && st > boundary.UnixMicro() {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("safeTime %d did not pass the boundary %d within 30 s: %v", st, boundary.UnixMicro(), err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, p := range batch(roundsBefore, roundsBefore+roundsAfter) {
		if err := n.pushAll(p); err != nil {
			return nil, err
		}
	}

	recs := map[string][]record{}
	for _, t := range tenants {
		got, err := n.fetchTenant(t, boundary)
		if err != nil {
			return nil, err
		}
		recs[t] = got
	}
	return recs, nil
}

// pushAll pushes items to every tenant, one push each.
func (n *queenNode) pushAll(items []item) error {
	for _, t := range tenants {
		if err := n.push(t, items); err != nil {
			return err
		}
	}
	return nil
}

// fetchTenant reads back every record of tenant and checks that each
// partition holds every round, on the right side of the boundary.
func (n *queenNode) fetchTenant(tenant string, boundary time.Time) ([]record, error) {
	var recs []record
	before, after := 0, 0
	for _, q := range queues {
		for _, p := range partitions {
			got, err := n.fetchAll(tenant, q, p)
			if err != nil {
				return nil, err
			}
			if len(got) != roundsBefore+roundsAfter {
				return nil, fmt.Errorf("tenant %s: %s/%s holds %d records, %d were pushed", tenant, q, p, len(got), roundsBefore+roundsAfter)
			}
			for _, f := range got {
				ts, err := lakeformat.ParseTs(f.Ts)
				if err != nil {
					return nil, err
				}
				if ts < boundary.UnixMicro() {
					before++
				} else {
					after++
				}
				recs = append(recs, record{Queue: q, Record: lakeformat.Record{Partition: p, Offset: f.Offset,
					TransactionID: f.TransactionID, Ts: ts, Payload: []byte(f.Payload)}})
			}
		}
	}
	per := len(queues) * len(partitions)
	if before != roundsBefore*per || after != roundsAfter*per {
		return nil, fmt.Errorf("tenant %s: %d records before the boundary and %d after, want %d and %d", tenant, before, after,
			roundsBefore*per, roundsAfter*per)
	}
	logf("tenant %s: %d records, %d before %s and %d after", tenant, len(recs), before, boundary.Format(time.RFC3339), after)
	return recs, nil
}

func mustGetwd() string {
	d, err := os.Getwd()
	if err != nil {
		return "."
	}
	return d
}
