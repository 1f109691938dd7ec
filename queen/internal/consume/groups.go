package consume

import (
	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/wire"
)

// GroupInfo is one consumer group's subscription to one queue, with its
// state on each partition it has read.
type GroupInfo struct {
	Queue, Group string
	// Subscribed is the stamp of the group's first pop of the queue (or
	// first seek); Mode its subscription mode.
	Subscribed int64
	Mode       byte
	// From is its subscription time (subscriptionFrom, or one set by
	// SubscriptionOp), 0 when unset.
	From       int64
	Partitions []GroupPartition
	// Lag is, summed over its partitions, the records from the cursor (or
	// the log start, when that is later) to the high watermark: a record
	// settled out of order past the cursor still counts.
	Lag int64
}

// GroupPartition is a group's state on one partition.
type GroupPartition struct {
	Partition string
	// Cursor is the first offset not settled; HighWatermark the offset the
	// partition's next record gets; LogStart the first offset the log
	// still holds.
	Cursor, HighWatermark, LogStart int64
	// LeaseID and LeaseEnd are the lease that holds the partition, when a
	// live one does at the view's stamp.
	LeaseID  string
	LeaseEnd int64
	// Leased counts the records at or past the cursor delivered under
	// that live lease and not settled; Settled those settled out of order
	// (acked while an earlier one was not). Both come from the group's
	// state on the partition, never from the records.
	Leased, Settled int64
}

// Unsettled is how many records the log holds that the group has still
// to settle on the partition: those from its cursor (or the log start,
// when retention passed it) to the high watermark, less the ones settled
// out of order. Leased ones count: they are settled only by their ack.
func (p GroupPartition) Unsettled() int64 {
	return max(p.HighWatermark-max(p.Cursor, p.LogStart)-p.Settled, 0)
}

// Groups lists a tenant's consumer groups with their partitions and lag,
// by queue then group: only queue's when queue is not "", only group's
// when group is not "".
func Groups(v *raftlog.View, tenant, queue, group string) ([]GroupInfo, error) {
	out, err := subscriptions(v, tenant, queue, group)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if err := groupPartitions(v, tenant, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// subscriptions lists the groups' subscriptions as Groups does, without
// reading their partitions.
func subscriptions(v *raftlog.View, tenant, queue, group string) ([]GroupInfo, error) {
	p := groupsPrefix(tenant)
	lower := p
	if queue != "" {
		lower = name(p, queue)
	}
	var out []GroupInfo
	err := family.Rows(v.Scan, lower, wire.PrefixEnd(lower), func(k, val []byte) (GroupInfo, error) {
		d := family.NewDecoder(k[len(p):], ErrCorrupt)
		q, g := d.Str(), d.Str()
		m, err := decodeGroup(val)
		if err == nil && d.Err != nil {
			err = storageErr("group key", d.Err)
		}
		return GroupInfo{Queue: q, Group: g, Subscribed: m.Created, Mode: m.Mode, From: m.From}, err
	}, func(gi GroupInfo) bool {
		if group == "" || gi.Group == group {
			out = append(out, gi)
		}
		return true
	})
	return out, err
}

// groupPartitions fills g's partitions and lag: every partition of the
// queue, those the group never read at the cursor it would start at.
func groupPartitions(v *raftlog.View, tenant string, g *GroupInfo) error {
	return queuelog.EachPartition(v, tenant, g.Queue, 0, func(pi queuelog.PartitionInfo) (bool, error) {
		gp := GroupPartition{Partition: pi.Name, HighWatermark: pi.LastOffset + 1, LogStart: pi.LogStart}
		b, ok, err := v.Get(gpKey(tenant, g.Queue, g.Group, pi.Name))
		if err != nil {
			return false, err
		}
		if ok {
			st, err := decodeGP(b)
			if err != nil {
				return false, err
			}
			gp.Cursor = st.Cursor
			held := st.held(v.Stamp())
			if held {
				gp.LeaseID, gp.LeaseEnd = st.LeaseID, st.End
			}
			gp.Leased, gp.Settled = counts(&st, held, max(st.Cursor, pi.LogStart), gp.HighWatermark)
		} else if gp.Cursor, err = startOf(v, tenant, g.Queue, groupMeta{Created: g.Subscribed, Mode: g.Mode, From: g.From}, pi); err != nil {
			return false, err
		}
		g.Lag += max(gp.HighWatermark-max(gp.Cursor, pi.LogStart), 0)
		g.Partitions = append(g.Partitions, gp)
		return true, nil
	})
}

// counts returns how many of st's messages in [from, to) are held by
// the live lease (held) and not settled, and how many are settled.
func counts(st *gpState, held bool, from, to int64) (leased, settled int64) {
	for _, m := range st.Msgs {
		switch {
		case m.Offset < from || m.Offset >= to:
		case m.Acked:
			settled++
		case m.Pending && held:
			leased++
		}
	}
	return leased, settled
}

// The statuses of a message for a group (StatusOf).
const (
	StatusPending    = "pending"    // not delivered, or back after a failure or an expired lease
	StatusProcessing = "processing" // delivered under a live lease
	StatusSettled    = "completed"  // acked, or dropped
	StatusDead       = "dlq"        // in the dead-letter queue
)

// StatusOf returns a function that gives the status of a partition's
// offsets for a group, read once from v.
func StatusOf(v *raftlog.View, tenant, queue, group, partition string) (func(offset int64) (string, error), error) {
	b, ok, err := v.Get(gpKey(tenant, queue, group, partition))
	if err != nil {
		return nil, err
	}
	var st gpState
	if ok {
		if st, err = decodeGP(b); err != nil {
			return nil, err
		}
	}
	held := st.held(v.Stamp())
	return func(off int64) (string, error) {
		_, dead, err := v.Get(letterKey(tenant, queue, group, partition, off))
		switch {
		case err != nil:
			return "", err
		case dead:
			return StatusDead, nil
		case !ok:
			return StatusPending, nil
		case off < st.Cursor:
			return StatusSettled, nil
		}
		if m := st.find(off); m != nil {
			switch {
			case m.Acked:
				return StatusSettled, nil
			case m.Pending && held:
				return StatusProcessing, nil
			}
		}
		return StatusPending, nil
	}, nil
}

// GroupNames lists the groups subscribed to a queue, in the order of
// their keys (a name's length, then its bytes: "b" before "aa"), without
// reading their partitions.
func GroupNames(v *raftlog.View, tenant, queue string) ([]string, error) {
	subs, err := subscriptions(v, tenant, queue, "")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, g := range subs {
		if g.Queue == queue {
			out = append(out, g.Group)
		}
	}
	return out, nil
}
