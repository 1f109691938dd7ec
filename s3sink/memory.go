package s3sink

import "sync"

// Memory is one buffer budget for every queue of every sink of a node
// (QUEEN_S3_MEMORY_MB). Past it, the queue holding the most closes its
// window first.
type Memory struct {
	mu    sync.Mutex
	limit int64
	total int64
	// INVARIANT: total is the sum of by.
	by map[*queueTask]int64
}

// NewMemory makes a budget of limit bytes.
func NewMemory(limit int64) *Memory { return &Memory{limit: limit, by: map[*queueTask]int64{}} }

func (m *Memory) add(q *queueTask, delta int64) {
	if delta == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.by[q] += delta
	m.total += delta
	if m.by[q] <= 0 {
		m.total -= m.by[q]
		delete(m.by, q)
	}
}

// pressed reports whether the budget is spent and q holds the most.
func (m *Memory) pressed(q *queueTask) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.total <= m.limit {
		return false
	}
	mine := m.by[q]
	for _, b := range m.by {
		if b > mine {
			return false
		}
	}
	return mine > 0
}

// of returns what q has buffered.
func (m *Memory) of(q *queueTask) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.by[q]
}

// Buffered returns the bytes buffered and the budget.
func (m *Memory) Buffered() (bytes, limit int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.total, m.limit
}
