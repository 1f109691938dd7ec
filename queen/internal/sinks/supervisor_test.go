package sinks

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/queen/config"
	"github.com/queen-mq/queen-go/s3sink"
	"github.com/queen-mq/queen-go/s3sink/s3test"
)

// A new enabled and runnable row starts its tenant's sink, which mirrors
// the tenant's queue into the row's bucket, under the tenant's keys.
func TestStartsASinkForANewRow(t *testing.T) {
	w := newWorld(t, s3test.Fake(t))
	w.b.push(t, tenantA, `{"n":1}`, `{"n":2}`)
	src := &fakeSource{}
	r := w.start(src, Options{Env: env(t)})
	if u := r.unit("acme"); u != nil {
		t.Fatalf("a sink before any row: %v", u)
	}
	src.set(w.row("acme", tenantA, 1))
	u := r.waitCommitted("acme", "window 1 committed")
	if u["phase"] != "running" || u["source"] != "cp" || u["tenant"] != tenantA || u["error"] != nil {
		t.Fatalf("unit %v", u)
	}
	if ks := keys(t, w.srv, "lake", lakeOf(tenantA)); len(ks) != 1 {
		t.Fatalf("tenant A's lake holds %v, want one data object", ks)
	}
	if _, held := w.b.lease(t, tenantA); !held {
		t.Fatal("no lease row in tenant A's KV")
	}
}

// A row whose updatedAt moves is rebuilt from its new settings: a rotated
// secret reaches the store client, against a server that checks
// signatures. A row written again without moving updatedAt is not.
func TestRebuildsARowWhoseUpdatedAtMoved(t *testing.T) {
	w := newWorld(t, s3test.Versitygw(t))
	w.b.push(t, tenantA, `{"n":1}`)
	src := &fakeSource{}
	r := w.start(src, Options{Env: env(t)})
	row := w.row("acme", tenantA, 1)
	row.SecretSealed = sealed(t, w.key, "not-the-secret")
	src.set(row)
	u := r.waitUnit("acme", "the wrong secret's probe refused", func(u map[string]any) bool {
		bucket, _ := u["bucket"].(map[string]any)
		return bucket != nil && bucket["reachable"] == false
	})
	if u["phase"] != "starting" || u["bucket"].(map[string]any)["error"] == nil {
		t.Fatalf("unit with a secret the server refuses: %v", u)
	}

	row.SecretSealed = sealed(t, w.key, w.srv.Secret) // the same updatedAt: not a write
	src.set(row)
	time.Sleep(10 * r.sup.o.Interval)
	if u := r.unit("acme"); u["phase"] != "starting" {
		t.Fatalf("rebuilt without a move of updatedAt: %v", u)
	}

	row.UpdatedAtUs = 2
	src.set(row)
	u = r.waitCommitted("acme", "window 1 committed with the new secret")
	if u["phase"] != "running" || u["restarts"] != 0.0 || u["bucket"].(map[string]any)["reachable"] != true {
		t.Fatalf("rebuilt unit %v", u)
	}
	if ks := keys(t, w.srv, "lake", lakeOf(tenantA)); len(ks) != 1 {
		t.Fatalf("lake %v", ks)
	}
	if !strings.Contains(r.logs.String(), "its row changed") {
		t.Error("no log line says the sink drained for its changed row")
	}
}

// A row disabled, not runnable, or gone drains its sink (the lease is
// given back) and runs nothing; a row enabled again runs again.
func TestStopsARowDisabledNotRunnableOrGone(t *testing.T) {
	w := newWorld(t, s3test.Fake(t))
	for _, c := range []struct {
		name  string
		tweak func(u *Unit) bool // false: the row is removed
	}{
		{"disabled", func(u *Unit) bool { u.Enabled = false; return true }},
		{"not runnable", func(u *Unit) bool { u.Runnable = false; return true }},
		{"removed", func(u *Unit) bool { return false }},
	} {
		t.Run(c.name, func(t *testing.T) {
			w.b.push(t, tenantA, `{"n":1}`)
			src := &fakeSource{}
			r := w.start(src, Options{Env: env(t)})
			row := w.row("acme", tenantA, 1)
			src.set(row)
			r.waitCommitted("acme", "the queue held")
			if _, held := w.b.lease(t, tenantA); !held {
				t.Fatal("no lease while running")
			}
			off := row
			if c.tweak(&off) {
				src.set(off)
				u := r.waitUnit("acme", "stopped", func(u map[string]any) bool { return phase(u) == "stopped" })
				if u["error"] != nil || u["queues"] != nil || u["uptimeMs"] != 0.0 {
					t.Fatalf("stopped unit %v", u)
				}
			} else {
				src.set()
				r.waitUnit("acme", "gone from the status", func(u map[string]any) bool { return u == nil })
			}
			if v, held := w.b.lease(t, tenantA); held {
				t.Fatalf("the lease is still held after the drain: %s", v)
			}
			row.UpdatedAtUs = 2
			src.set(row)
			r.waitUnit("acme", "running again", func(u map[string]any) bool {
				qs, _ := u["queues"].([]any)
				return phase(u) == "running" && len(qs) == 1 && qs[0].(map[string]any)["ownedHere"] == true
			})
		})
	}
}

// A secret that is not sealed, is missing, or does not open under this
// node's key is that row's error, naming the row and QUEEN_ENCRYPTION_KEY;
// it runs none of its queues, and another row runs on.
func TestASecretThatDoesNotOpenIsThatRowsError(t *testing.T) {
	w := newWorld(t, s3test.Fake(t))
	w.b.push(t, tenantA, `{"n":1}`)
	const tenantC, tenantD = "0c000000-0000-4000-8000-00000000000c", "0d000000-0000-4000-8000-00000000000d"
	src := &fakeSource{}
	r := w.start(src, Options{Env: env(t)})
	otherKey, plain, none := w.row("other-key", tenantB, 1), w.row("plain", tenantC, 1), w.row("none", tenantD, 1)
	otherKey.SecretSealed = sealed(t, newSealer(t, 2), w.srv.Secret)
	plain.SecretSealed = []byte(w.srv.Secret)
	none.SecretSealed = nil
	src.set(w.row("acme", tenantA, 1), otherKey, plain, none)
	r.waitCommitted("acme", "acme committed")
	for cluster, want := range map[string]error{"other-key": errWrongKey, "plain": errUnsealed, "none": errNoSecret} {
		u := r.unit(cluster)
		if u["phase"] != "error" || !contains(u["error"], `cluster "`+cluster+`"`) || !contains(u["error"], "QUEEN_ENCRYPTION_KEY") ||
			!contains(u["error"], want.Error()) || u["queues"] != nil {
			t.Errorf("%s: %v", cluster, u)
		}
	}
	for _, tenant := range []string{tenantB, tenantC, tenantD} {
		if v, held := w.b.lease(t, tenant); held {
			t.Errorf("tenant %s's queue is held (%s) by a sink in error", tenant, v)
		}
	}

	// A node without QUEEN_ENCRYPTION_KEY opens no secret.
	src2 := &fakeSource{}
	src2.set(w.row("acme", tenantA, 1))
	r2 := startRig(t, w.b, src2, Options{Env: env(t)})
	u := r2.waitUnit("acme", "an error", func(u map[string]any) bool { return phase(u) == "error" })
	if !contains(u["error"], errNoKey.Error()) {
		t.Errorf("no key: %v", u)
	}
}

// A document ParseDocument refuses is the row's error, with the sink's
// own sentence; so are a row of the default tenant and two rows of one
// tenant. A row written again with a good document runs.
func TestARefusedRowIsAnErrorWithItsSentence(t *testing.T) {
	w := newWorld(t, s3test.Fake(t))
	src := &fakeSource{}
	r := w.start(src, Options{Env: env(t)})
	const twin = "0e000000-0000-4000-8000-00000000000e"
	short, nodeWide := w.row("short", tenantA, 1), w.row("node-wide", tenantB, 1)
	short.Config, nodeWide.Config = doc(w.srv, "lake", "maxWindowMs", 50), doc(w.srv, "lake", "memoryMb", 10)
	src.set(short, nodeWide, w.row("default", s3sink.DefaultTenant, 1), w.row("twin-1", twin, 1), w.row("twin-2", twin, 1))
	waitFor(t, "five errors", func() bool {
		for _, c := range []string{"short", "node-wide", "default", "twin-1", "twin-2"} {
			if phase(r.unit(c)) != "error" {
				return false
			}
		}
		return true
	})
	for _, row := range []Unit{short, nodeWide} {
		_, perr := s3sink.ParseDocument(row.Config)
		if perr == nil {
			t.Fatalf("%s: ParseDocument took it", row.Cluster)
		}
		if u := r.unit(row.Cluster); !contains(u["error"], perr.Error()) || !contains(u["error"], `cluster "`+row.Cluster+`"`) {
			t.Errorf("%s: %v, want the sentence %q", row.Cluster, u["error"], perr)
		}
	}
	if u := r.unit("default"); !contains(u["error"], "the default tenant's sink comes from the environment") {
		t.Errorf("default tenant: %v", u["error"])
	}
	if u := r.unit("twin-2"); !contains(u["error"], "clusters twin-1, twin-2") {
		t.Errorf("twins: %v", u["error"])
	}
	w.b.push(t, tenantA, `{"n":1}`)
	src.set(w.row("short", tenantA, 2))
	r.waitUnit("short", "the fixed row committed", func(u map[string]any) bool { return committed(u) >= 1 && u["error"] == nil })
}

// A failed read of the rows sets controlPlane.error and leaves the sinks
// running as they are; the next good read clears it.
func TestASourceErrorKeepsTheSinksRunning(t *testing.T) {
	w := newWorld(t, s3test.Fake(t))
	w.b.push(t, tenantA, `{"n":1}`)
	src := &fakeSource{}
	r := w.start(src, Options{Env: env(t)})
	src.set(w.row("acme", tenantA, 1))
	before := r.waitCommitted("acme", "running")
	src.fail(errors.New("kv: no leader"))
	waitFor(t, "controlPlane.error", func() bool { return r.status()["controlPlane"].(map[string]any)["error"] == "kv: no leader" })
	time.Sleep(10 * r.sup.o.Interval)
	after := r.unit("acme")
	if after["phase"] != "running" || after["restarts"] != 0.0 || after["uptimeMs"].(float64) <= before["uptimeMs"].(float64) {
		t.Fatalf("the sink moved on a source error: before %v, after %v", before, after)
	}
	src.set(w.row("acme", tenantA, 1))
	waitFor(t, "controlPlane.error cleared", func() bool { return r.status()["controlPlane"].(map[string]any)["error"] == nil })
	if u := r.unit("acme"); u["uptimeMs"].(float64) < after["uptimeMs"].(float64) {
		t.Fatalf("the sink was rebuilt after the source came back: %v", u)
	}
}

// flaky makes an engine's first Run return at once and its second panic;
// the third runs.
type flaky struct {
	engine
	runs *atomic.Int32
}

func (f flaky) Run(ctx context.Context) {
	switch f.runs.Add(1) {
	case 1:
		return
	case 2:
		panic("boom")
	}
	f.engine.Run(ctx)
}

// An engine that exits unasked is started again after a backoff, counted
// in restarts, with its lastExit.
func TestRestartsAnEngineThatExits(t *testing.T) {
	w := newWorld(t, s3test.Fake(t))
	w.b.push(t, tenantA, `{"n":1}`)
	src := &fakeSource{}
	runs := &atomic.Int32{}
	o := Options{Env: env(t), RestartMin: 200 * time.Millisecond, RestartMax: time.Second}
	o.wrap = func(tenant string, e engine) engine { return flaky{e, runs} }
	r := w.start(src, o)
	src.set(w.row("acme", tenantA, 1))
	u := r.waitUnit("acme", "backing off", func(u map[string]any) bool { return phase(u) == "backoff" })
	if u["backoffMs"] != 200.0 || u["uptimeMs"] != 0.0 || !contains(u["lastExit"].(map[string]any)["message"], "returned on its own") {
		t.Fatalf("first backoff %v", u)
	}
	u = r.waitUnit("acme", "the second backoff", func(u map[string]any) bool { return u["restarts"] == 1.0 && phase(u) == "backoff" })
	if u["backoffMs"] != 400.0 || u["lastExit"].(map[string]any)["message"] != "panic: boom" {
		t.Fatalf("second backoff %v", u)
	}
	u = r.waitCommitted("acme", "running after two restarts")
	if u["restarts"] != 2.0 || u["backoffMs"] != 0.0 || u["phase"] != "running" {
		t.Fatalf("after the restarts %v", u)
	}
}

// Drain stops every sink, giving the leases back, and the block says
// stopped; a drain that cannot finish is cut at QUEEN_S3_SHUTDOWN_GRACE_MS.
func TestDrainStopsEverySinkWithinTheGrace(t *testing.T) {
	w := newWorld(t, s3test.Fake(t))
	src := &fakeSource{}
	src.set(w.row("acme", tenantA, 1))
	r := w.startWithEnv(src)
	r.waitCommitted("acme", "acme committed")
	r.waitCommitted("", "env committed")
	r.sup.Drain()
	st := r.status()
	if st["phase"] != "stopped" {
		t.Fatalf("after the drain: %v", st)
	}
	for _, u := range st["sinks"].([]any) {
		if phase(u.(map[string]any)) != "stopped" {
			t.Errorf("unit after the drain: %v", u)
		}
	}
	for _, tenant := range []string{tenantA, s3sink.DefaultTenant} {
		if v, held := w.b.lease(t, tenant); held {
			t.Errorf("tenant %s: lease %s still held after the drain", tenant, v)
		}
	}

	// An engine whose drain never ends is cut at the grace.
	o := Options{Env: env(t, append(envSink(w.srv, "lake"), "QUEEN_S3_SHUTDOWN_GRACE_MS", "300")...)}
	o.wrap = func(tenant string, e engine) engine { return stuck{e} }
	r2 := w.start(nil, o)
	r2.waitUnit("", "env running", func(u map[string]any) bool { return phase(u) == "running" })
	done := make(chan struct{})
	go func() { r2.sup.Drain(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Drain did not return at the end of the grace")
	}
}

// stuck is an engine whose Drain waits for its budget to run out.
type stuck struct{ engine }

func (s stuck) Drain(ctx context.Context) { <-ctx.Done() }

// QUEEN_S3_EMBEDDED=false runs nothing; true with QUEEN_S3_QUEUES unset
// and no control plane runs no sink, and says so.
func TestEmbeddedOffRunsNothing(t *testing.T) {
	sup, err := Start(context.Background(), Options{Env: &config.S3{}})
	if sup != nil || err != nil {
		t.Fatalf("Start with the sink off: %v, %v", sup, err)
	}
	sup.Drain()
	if st := sup.Status(context.Background()); st != nil {
		t.Fatalf("status of no supervisor: %v", st)
	}
	r := startRig(t, newBroker(t), nil, Options{Env: env(t)})
	st := r.status()
	if sinks := st["sinks"].([]any); len(sinks) != 0 || st["phase"] != "running" {
		t.Fatalf("status %v", st)
	}
	if !strings.Contains(r.logs.String(), "no sink runs on this node") {
		t.Errorf("log:\n%s", r.logs.String())
	}
}
