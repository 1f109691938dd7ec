package lake

import "sync"

// Progress is how far a Verify run is through the objects its manifests
// name: Objects of TotalObjects checked (read, or found missing), and the
// manifests' bytes of those objects. Verify reports it through
// Config.Progress.
type Progress struct {
	Objects, TotalObjects int
	Bytes, TotalBytes     int64
}

// counter counts the objects a run checked and hands each new count to
// the callback, one call at a time, so that the callback sees Objects rise
// by one per call, from 0 to TotalObjects.
type counter struct {
	mu sync.Mutex
	p  Progress
	f  func(Progress)
}

// newCounter is a counter towards total objects and bytes reporting to f
// (nil: none); it reports the start (0 done) at once.
func newCounter(f func(Progress), total int, totalBytes int64) *counter {
	p := &counter{p: Progress{TotalObjects: total, TotalBytes: totalBytes}, f: f}
	if f != nil {
		f(p.p)
	}
	return p
}

// object counts one more object checked, of the manifest's size bytes.
func (p *counter) object(bytes int64) {
	if p == nil || p.f == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.p.Objects++
	p.p.Bytes += bytes
	p.f(p.p)
}
