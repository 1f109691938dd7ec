package httpd

import "context"

// Statuser is the read side of the dashboard routes (API.md §8, §9):
// GET /api/v1/status[/queues[/:queue]], /status/analytics and
// /resources/overview, /namespaces, /tasks, /partitions and
// /queues/:queue/depth. New serves them when the Broker implements
// Statuser too.
//
// Every count those routes answer is arithmetic on what QueueStats
// gives: partition offsets (log start, high watermark), the groups'
// cursors and what their leases hold. The broker reads them from applied
// state and never reads a record for them, so a call costs a walk over
// queues, partitions and groups, whatever the number of records.
type Statuser interface {
	// QueueStats reads the tenant's queues, by name, from this node's
	// applied state in one view: only queue's when queue is not "" (none
	// when there is no such queue).
	QueueStats(ctx context.Context, tenant, queue string) (Stats, error)
}

// Stats is one consistent read of a tenant's queues.
type Stats struct {
	// Stamp is the view's stamp (µs): this node's safeTime.
	Stamp  int64
	Queues []QueueStats
}

// QueueStats is one queue, the groups subscribed to it and its
// partitions.
type QueueStats struct {
	QueueSummary
	// Groups are the consumer groups subscribed to the queue, by name;
	// QueueModeGroup is one of them once a queue-mode pop read it.
	Groups []GroupSub
	// Partitions are in creation order.
	Partitions []PartitionStats
}

// GroupSub is a group's subscription to a queue: when it first read (or
// sought, or set a position on) the queue (µs), and its mode, "new" or
// "all".
type GroupSub struct {
	Name             string
	SubscribedAt     int64
	SubscriptionMode string
}

// PartitionStats is one partition and each subscribed group's place on
// it.
type PartitionStats struct {
	// ChangedPartition has its offsets: LastOffset -1 when it holds no
	// record, LogStart the first one retention left.
	ChangedPartition
	// PartitionID is its numeric id as a decimal string (what an ack
	// names); Created the stamp of the push that made it (µs).
	PartitionID string
	Created     int64
	// Groups is index-aligned with the queue's Groups.
	Groups []GroupPosition
}

// GroupPosition is a group's place on one partition.
type GroupPosition struct {
	// Cursor is the first offset the group has not settled (where it
	// would start, for a partition it never read).
	Cursor int64
	// Unsettled counts the records the log holds that the group has still
	// to settle (Leased ones too); Leased those delivered under the live
	// lease and not settled.
	Unsettled, Leased int64
	// LeaseID and LeaseExpiresAt (µs) name the live lease that holds the
	// partition, when one does.
	LeaseID        string
	LeaseExpiresAt int64
}
