package sinks

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/s3sink"
	"github.com/queen-mq/queen-go/s3sink/s3test"
)

// The s3 block (SINK-CONFIG.md §6): the node's keys, then one entry per
// sink, the environment's first, each the unit's keys then its engine's
// report; a sink in error has the unit's keys alone. The sinks share one
// buffer budget and one set of series, the tenant label telling them
// apart.
func TestStatusBlockShape(t *testing.T) {
	w := newWorld(t, s3test.Fake(t))
	broken := w.row("broken", tenantB, 1)
	broken.Config = []byte(`[]`)
	src := &fakeSource{}
	src.set(w.row("acme", tenantA, 1), broken)
	r := w.startWithEnv(src)
	r.waitCommitted("acme", "acme committed")
	r.waitCommitted("", "env committed")

	st := r.status()
	if got := slices.Sorted(maps.Keys(st)); !slices.Equal(got, []string{"controlPlane", "mode", "phase", "sinks", "threads"}) {
		t.Fatalf("s3 keys %v", got)
	}
	if st["mode"] != "in-process" || st["phase"] != "running" || st["threads"] != 1.0 {
		t.Errorf("s3 block %v", st)
	}
	if cp := st["controlPlane"].(map[string]any); len(cp) != 1 || cp["error"] != nil {
		t.Errorf("controlPlane %v", cp)
	}
	sinks := st["sinks"].([]any)
	if len(sinks) != 3 {
		t.Fatalf("sinks %v", sinks)
	}
	envU, acme, brokenU := sinks[0].(map[string]any), sinks[1].(map[string]any), sinks[2].(map[string]any)
	unitKeys := []string{"backoffMs", "cluster", "error", "lastExit", "phase", "restarts", "source", "tenant", "uptimeMs"}
	reportKeys := []string{"align", "bucket", "compression", "format", "health", "instance", "layout", "memory", "ok", "placement",
		"queues", "running", "sink", "version"}
	for _, c := range []struct {
		u                     map[string]any
		source, tenant, phase string
		cluster               any
		report                bool
	}{
		{envU, "env", s3sink.DefaultTenant, "running", nil, true},
		{acme, "cp", tenantA, "running", "acme", true},
		{brokenU, "cp", tenantB, "error", "broken", false},
	} {
		want := unitKeys
		if c.report {
			want = slices.Sorted(slices.Values(append(slices.Clone(unitKeys), reportKeys...)))
		}
		if got := slices.Sorted(maps.Keys(c.u)); !slices.Equal(got, want) {
			t.Errorf("%s/%v: keys %v, want %v", c.source, c.cluster, got, want)
		}
		if c.u["source"] != c.source || c.u["tenant"] != c.tenant || c.u["phase"] != c.phase || c.u["cluster"] != c.cluster ||
			c.u["restarts"] != 0.0 || c.u["lastExit"] != nil || c.u["backoffMs"] != 0.0 {
			t.Errorf("unit %v", c.u)
		}
		if up := c.u["uptimeMs"].(float64); (c.phase == "running") != (up > 0) {
			t.Errorf("%v: uptimeMs %v in phase %s", c.cluster, up, c.phase)
		}
	}
	if envU["error"] != nil || acme["error"] != nil || !contains(brokenU["error"], "not a JSON object") {
		t.Errorf("errors: %v, %v, %v", envU["error"], acme["error"], brokenU["error"])
	}
	for _, u := range []map[string]any{envU, acme} {
		if u["ok"] != true || u["sink"] != "default" || u["memory"].(map[string]any)["limitBytes"] != float64(64<<20) {
			t.Errorf("report of %v: %v", u["cluster"], u)
		}
	}
	metrics := r.metrics()
	for _, tenant := range []string{"", tenantA} {
		if line := fmt.Sprintf(`queen_s3_windows_committed_total{queue=%q,tenant=%q}`, queue, tenant); !strings.Contains(metrics, line) {
			t.Errorf("no %s in\n%s", line, metrics)
		}
	}
}
