package progress

import (
	"sync"
	"time"
)

// Every shows text() on the line every Interval until the returned stop
// is called; stop waits for the last tick and clears the line. On a line
// that writes nothing it starts nothing, and text is never called.
func (l *Line) Every(text func() string) (stop func()) {
	if !l.On() {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(Interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				l.show(text())
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
			l.Clear()
		})
	}
}

// Meter is the current rate of a count sampled now and then: the rise
// per second over the last second or more of samples.
type Meter struct {
	n    float64
	at   time.Time
	rate float64
}

// RateWindow is the least time a Meter measures a rate over.
const RateWindow = time.Second

// Rate takes the count n at now and returns the current rate: the rise
// since the sample of RateWindow or more ago, per second (the previous
// rate while less time has passed; 0 before the first window).
func (m *Meter) Rate(n float64, now time.Time) float64 {
	if m.at.IsZero() {
		m.n, m.at = n, now
		return 0
	}
	if d := now.Sub(m.at); d >= RateWindow {
		m.rate = (n - m.n) / d.Seconds()
		m.n, m.at = n, now
	}
	return m.rate
}

// show writes s at once (the ticker is the throttle).
func (l *Line) show(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending = s
	l.write()
}
