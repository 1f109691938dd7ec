package consume

import "github.com/queen-mq/queen-go/contract"

// queueOptions are the options consuming obeys (API.md §8), read from the
// queue's stored options with their defaults (contract.ParseQueueOptions:
// every value inside its range, so none of the µs below can overflow).
// Times are microseconds.
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
func parseOptions(raw []byte) queueOptions {
	o := contract.ParseQueueOptions(raw)
	return queueOptions{Lease: contract.Micros(o.LeaseTime), RetryLimit: o.RetryLimit,
		RetryDelay: contract.MilliMicros(o.RetryDelay), DLQ: o.DeadLetterQueue && o.DLQAfterMaxRetries,
		Delay: contract.Micros(o.DelayedProcessing), WindowBuffer: contract.Micros(o.WindowBuffer),
		MaxWait: contract.Micros(o.MaxWaitTimeSeconds)}
}
