package main

import (
	"sync"
	"sync/atomic"
)

// inParallel runs job(w, i) for every i from 0 to jobs-1 on up to workers
// goroutines at once: worker w takes the next job until none is left or
// a job has failed. It waits for them all and returns the first error.
func inParallel(workers, jobs int, job func(w, i int) error) error {
	var next atomic.Int64
	var failed atomic.Bool
	var once sync.Once
	var first error
	var wg sync.WaitGroup
	for w := range min(workers, jobs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= jobs {
					return
				}
				if err := job(w, i); err != nil {
					once.Do(func() { first = err })
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	return first
}
