package consume

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// queueOptions are the options consuming obeys (API.md §8), read from the
// queue's stored options with their defaults. Times are microseconds.
type queueOptions struct {
	Lease        int64 // leaseTime
	RetryLimit   int64 // deliveries past the first a failed message gets
	RetryDelay   int64
	DLQ          bool  // deadLetterQueue && dlqAfterMaxRetries
	Delay        int64 // delayedProcessing: a record is not delivered before its stamp plus this
	WindowBuffer int64 // a partition is not delivered until its last write is this old
	MaxWait      int64 // maxWaitTimeSeconds: older records are dropped unread; 0 off
}

// parseOptions reads a queue's stored options (a JSON object). A queue a
// push created stores {} and leases for 60 s; one configured with any
// option gets the configure path's 300 s default.
func parseOptions(raw []byte) (queueOptions, error) {
	var o struct {
		LeaseTime          *int64 `json:"leaseTime"`
		RetryLimit         *int64 `json:"retryLimit"`
		RetryDelay         *int64 `json:"retryDelay"`
		DeadLetterQueue    *bool  `json:"deadLetterQueue"`
		DLQAfterMaxRetries *bool  `json:"dlqAfterMaxRetries"`
		DelayedProcessing  *int64 `json:"delayedProcessing"`
		WindowBuffer       *int64 `json:"windowBuffer"`
		MaxWaitTimeSeconds *int64 `json:"maxWaitTimeSeconds"`
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return queueOptions{}, fmt.Errorf("queue options: %w", err)
	}
	lease := int64(300)
	if bytes.Equal(bytes.TrimSpace(raw), []byte("{}")) {
		lease = 60
	}
	q := queueOptions{Lease: get(o.LeaseTime, lease) * 1e6, RetryLimit: max(get(o.RetryLimit, 3), 0),
		RetryDelay: max(get(o.RetryDelay, 1000), 0) * 1e3, DLQ: getb(o.DeadLetterQueue, true) && getb(o.DLQAfterMaxRetries, true),
		Delay: max(get(o.DelayedProcessing, 0), 0) * 1e6, WindowBuffer: max(get(o.WindowBuffer, 0), 0) * 1e6,
		MaxWait: max(get(o.MaxWaitTimeSeconds, 0), 0) * 1e6}
	if q.Lease <= 0 {
		q.Lease = lease * 1e6
	}
	return q, nil
}

func get(v *int64, def int64) int64 {
	if v == nil {
		return def
	}
	return *v
}

func getb(v *bool, def bool) bool {
	if v == nil {
		return def
	}
	return *v
}
