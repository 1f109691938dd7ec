package s3sink

// chanMutex is a mutex held across calls that wait on the network: a
// goroutine waiting for it is blocked on a channel, which synctest counts
// as durably blocked (a sync.Mutex it does not), so the engine's scripts
// can run it on a fake clock.
type chanMutex chan struct{}

func newChanMutex() chanMutex { return make(chanMutex, 1) }

// Lock takes the mutex.
func (m chanMutex) Lock() { m <- struct{}{} }

// Unlock gives it back.
func (m chanMutex) Unlock() { <-m }
