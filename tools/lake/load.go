package lake

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/queen-mq/queen-go/lakeformat"
)

// Window is one manifest of the queue's windows/ directory, as read.
type Window struct {
	// Key is the manifest's key.
	Key string
	// K is the window's number, read from the key; 0 when the key is not a
	// manifest key.
	K uint64
	// Manifest is the decoded manifest; nil when it could not be read or
	// decoded.
	Manifest *lakeformat.Manifest
	// Err says what is wrong with the key or the manifest: it could not be
	// read or decoded (Manifest nil), or it decoded but its k, tenant or
	// queue are not its key's (Manifest set).
	Err error
}

// dirs are the key prefixes of one queue's lake, each ending in '/'.
type dirs struct {
	windows    string // <prefix>/_queen/tenant=<t>/queue=<q>/windows/
	checkpoint string // <prefix>/_queen/tenant=<t>/queue=<q>/checkpoint/
	data       string // <prefix>/tenant=<t>/queue=<q>/
}

// queueDirs derives the directories from the keys lakeformat builds (it
// has no builder for the directories themselves).
func queueDirs(keys lakeformat.Keys, tenant, queue string) (dirs, error) {
	m, err := keys.Manifest(tenant, queue, 1)
	if err != nil {
		return dirs{}, err
	}
	c, err := keys.Checkpoint(tenant, queue, 1)
	if err != nil {
		return dirs{}, err
	}
	d := dirs{windows: m[:strings.LastIndexByte(m, '/')+1], checkpoint: c[:strings.LastIndexByte(c, '/')+1],
		data: keys.Prefix() + "/tenant=" + lakeformat.EscapeName(tenant) + "/queue=" + lakeformat.EscapeName(queue) + "/"}
	return d, nil
}

// loadWindows lists the queue's manifests and reads each, at most
// concurrency at a time. The windows come in key order, which is k order
// (k is padded to ten digits).
func loadWindows(ctx context.Context, st Store, keys lakeformat.Keys, d dirs, tenant, queue string, concurrency int) ([]Window, error) {
	list, err := st.List(ctx, d.windows)
	if err != nil {
		return nil, err
	}
	ws := make([]Window, len(list))
	parallel(len(list), concurrency, func(i int) {
		w := &ws[i]
		w.Key = list[i].Key
		p, err := keys.Parse(w.Key)
		if err == nil && (p.Kind != lakeformat.KindManifest || p.Window.Tenant != tenant || p.Window.Queue != queue) {
			err = fmt.Errorf("not a manifest key of tenant %q, queue %q", tenant, queue)
		}
		if err != nil {
			w.Err = err
			return
		}
		w.K = p.Window.K
		body, err := st.Get(ctx, w.Key)
		if err != nil {
			w.Err = fmt.Errorf("read: %w", err)
			return
		}
		m, err := lakeformat.DecodeManifest(body)
		if err != nil {
			w.Err = err
			return
		}
		w.Manifest = m
		switch {
		case m.K != w.K:
			w.Err = fmt.Errorf("manifest says k %d, its key k %d", m.K, w.K)
		case m.Tenant != tenant || m.Queue != queue:
			w.Err = fmt.Errorf("manifest names tenant %q, queue %q, not %q, %q", m.Tenant, m.Queue, tenant, queue)
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ws, nil
}

// parallel runs f(0..n-1), at most workers at a time, and waits.
func parallel(n, workers int, f func(i int)) {
	sem := make(chan struct{}, max(workers, 1))
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			f(i)
		}()
	}
	wg.Wait()
}
