package lake

import (
	"context"
	"maps"
	"slices"

	"github.com/queen-mq/queen-go/lakeformat"
)

// checkOrphans lists the queue's data prefix and reports every key no
// manifest names. Keys are deterministic, so an upload a crash cut short
// and the next owner rewrote is the same key, named by the manifest: an
// orphan is a stray key. The data keys of windows past the last manifest
// are a commit in flight (or one a stopped sink left), a note only.
// Checkpoints are counted, not checked: they are a cache.
func (v *verifier) checkOrphans(ctx context.Context) error {
	list, err := v.st.List(ctx, v.dirs.data)
	if err != nil {
		return err
	}
	inFlight := map[uint64]int{}
	for _, o := range list {
		if v.named[o.Key] {
			continue
		}
		p, err := v.keys.Parse(o.Key)
		if err == nil && p.Kind == lakeformat.KindData && p.Window.Tenant == v.cfg.Tenant &&
			p.Window.Queue == v.cfg.Queue && p.Window.K > v.lastK {
			inFlight[p.Window.K]++
			continue
		}
		k := uint64(0)
		if err == nil {
			k = p.Window.K
		}
		v.r.add(CheckOrphan, k, o.Key, "no manifest names this object (%d bytes)", o.Size)
	}
	for _, k := range slices.Sorted(maps.Keys(inFlight)) {
		v.r.note("window %d has %d data objects and no manifest yet: a commit in flight, or one a stopped sink left", k, inFlight[k])
	}
	ckpts, err := v.st.List(ctx, v.dirs.checkpoint)
	if err != nil {
		return err
	}
	v.r.Checkpoints = len(ckpts)
	return nil
}
