package sinks

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"time"
)

// Status is the s3 block of GET /status (SINK-CONFIG.md §6): the node's
// phase, its threads, the last error reading the control plane's rows,
// and one entry per sink, the environment's first, then the control
// plane's by cluster. Each entry is the unit's keys (tenant, source,
// cluster, phase, error, restarts, lastExit, uptimeMs, backoffMs), then
// its engine's report, the unit's keys winning. A nil Supervisor has
// none (nil).
func (s *Supervisor) Status(ctx context.Context) map[string]any {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	runners := make([]*runner, 0, len(s.units))
	for _, r := range s.units {
		runners = append(runners, r)
	}
	var cpErr any
	if s.cpErr != nil {
		cpErr = *s.cpErr
	}
	phase := s.phase
	s.mu.Unlock()
	slices.SortFunc(runners, func(a, b *runner) int {
		return cmp.Or(cmp.Compare(b.source, a.source), cmp.Compare(a.cluster, b.cluster)) // env before cp
	})
	sinks := make([]any, 0, len(runners))
	for _, r := range runners {
		sinks = append(sinks, r.status(ctx))
	}
	return map[string]any{"mode": "in-process", "phase": phase, "threads": s.o.Env.Node.Threads,
		"controlPlane": map[string]any{"error": cpErr}, "sinks": sinks}
}

// status is the unit's entry. A running engine shows starting until its
// bucket answered the probe; uptimeMs counts from the engine's start while
// it runs, and backoffMs is the wait before the next start while it backs
// off.
func (r *runner) status(ctx context.Context) map[string]any {
	r.mu.Lock()
	phase, tenant, restarts, backoff := r.phase, r.tenant, r.restarts, r.backoff
	var errText, lastExit, cluster any
	if r.err != nil {
		errText = *r.err
	}
	if r.lastExit != nil {
		lastExit = *r.lastExit
	}
	if r.source == sourceCP {
		cluster = r.cluster
	}
	cur := r.cur
	r.mu.Unlock()
	out := map[string]any{}
	var uptime int64
	if cur != nil && phase == phaseRunning {
		rep := cur.eng.Report(ctx)
		if b, err := json.Marshal(rep); err == nil {
			_ = json.Unmarshal(b, &out)
		}
		if rep.Bucket.Reachable == nil || !*rep.Bucket.Reachable {
			phase = phaseStarting
		}
		uptime = time.Since(cur.started).Milliseconds()
	}
	if phase != phaseRunning {
		uptime = 0
	}
	if phase != phaseBackoff {
		backoff = 0
	}
	for k, v := range map[string]any{"tenant": tenant, "source": r.source, "cluster": cluster, "phase": phase,
		"error": errText, "restarts": restarts, "lastExit": lastExit, "uptimeMs": uptime, "backoffMs": backoff.Milliseconds()} {
		out[k] = v
	}
	return out
}
