package raftlog

import "sync"

// watchers wake readers waiting for a key to change, such as a long poll
// waiting for a partition's next record. Keys are whatever appliers pass to
// Txn.Notify.
type watchers struct {
	mu sync.Mutex
	// INVARIANT: a channel in chans is open until its key is next notified
	// or the state is replaced; then it is closed and forgotten.
	chans map[string]chan struct{}
}

func newWatchers() *watchers { return &watchers{chans: map[string]chan struct{}{}} }

// watch returns a channel closed at the next notification of key.
func (w *watchers) watch(key string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	c, ok := w.chans[key]
	if !ok {
		c = make(chan struct{})
		w.chans[key] = c
	}
	return c
}

func (w *watchers) wake(keys []string) {
	if len(keys) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, k := range keys {
		if c, ok := w.chans[k]; ok {
			close(c)
			delete(w.chans, k)
		}
	}
}

// wakeAll wakes every watcher: a snapshot replaced the whole state.
func (w *watchers) wakeAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, c := range w.chans {
		close(c)
		delete(w.chans, k)
	}
}
