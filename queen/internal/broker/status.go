package broker

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

var _ httpd.Statuser = (*Broker)(nil)

// QueueStats reads the tenant's queues (only queue's when it is not "")
// from this node's applied state, in one view: each queue's meta, its
// partitions' offsets, and every subscribed group's state on each
// partition (consume.Groups). No record is read: the cost is a walk over
// queues, partitions and groups, whatever the number of records.
func (b *Broker) QueueStats(ctx context.Context, tenant, queue string) (httpd.Stats, error) {
	var st httpd.Stats
	_, err := b.shard.LocalRead(func(v *raftlog.View) (any, error) {
		st.Stamp = v.Stamp()
		var qs []queuelog.QueueInfo
		if queue == "" {
			var err error
			if qs, err = queuelog.Queues(v, tenant); err != nil {
				return nil, err
			}
		} else if q, ok, err := queuelog.Queue(v, tenant, queue); err != nil {
			return nil, err
		} else if ok {
			qs = []queuelog.QueueInfo{q}
		}
		if len(qs) == 0 {
			return nil, nil
		}
		groups, err := consume.Groups(v, tenant, queue, "")
		if err != nil {
			return nil, err
		}
		byQueue := map[string][]consume.GroupInfo{}
		for _, g := range groups {
			byQueue[g.Queue] = append(byQueue[g.Queue], g)
		}
		for _, q := range qs {
			s, err := queueStats(v, tenant, q, byQueue[q.Name])
			if err != nil {
				return nil, err
			}
			st.Queues = append(st.Queues, s)
		}
		return nil, nil
	})
	return st, mapErr(err)
}

// queueStats describes queue q with its partitions and each of groups'
// place on them (groups read q, in the same view).
func queueStats(v *raftlog.View, tenant string, q queuelog.QueueInfo, groups []consume.GroupInfo) (httpd.QueueStats, error) {
	slices.SortFunc(groups, func(a, b consume.GroupInfo) int { return strings.Compare(a.Group, b.Group) })
	s := httpd.QueueStats{QueueSummary: queueSummary(tenant, q), Groups: make([]httpd.GroupSub, len(groups))}
	// at[g][partition] is group g's place on a partition.
	at := make([]map[string]consume.GroupPartition, len(groups))
	for i, g := range groups {
		s.Groups[i] = httpd.GroupSub{Name: g.Group, SubscribedAt: g.Subscribed, SubscriptionMode: subscriptionMode(g.Mode)}
		at[i] = make(map[string]consume.GroupPartition, len(g.Partitions))
		for _, p := range g.Partitions {
			at[i][p.Partition] = p
		}
	}
	err := queuelog.EachPartition(v, tenant, q.Name, 0, func(p queuelog.PartitionInfo) (bool, error) {
		ps := httpd.PartitionStats{ChangedPartition: changedPartition(p), PartitionID: strconv.FormatUint(p.UID, 10),
			Created: p.Created, Groups: make([]httpd.GroupPosition, len(groups))}
		for i := range groups {
			gp, ok := at[i][p.Name]
			if !ok {
				return false, fmt.Errorf("broker: group %q has no place on partition %q of the view", groups[i].Group, p.Name)
			}
			ps.Groups[i] = httpd.GroupPosition{Cursor: gp.Cursor, Unsettled: gp.Unsettled(), Leased: gp.Leased,
				LeaseID: gp.LeaseID, LeaseExpiresAt: gp.LeaseEnd}
		}
		s.Partitions = append(s.Partitions, ps)
		return true, nil
	})
	return s, err
}

// queueSummary is q as the resources routes show it: its id, and the
// namespace and task its options carry.
func queueSummary(tenant string, q queuelog.QueueInfo) httpd.QueueSummary {
	o := contract.ParseQueueOptions(q.Options)
	return httpd.QueueSummary{ID: queueID(tenant, q.Name), Name: q.Name, Namespace: o.Namespace, Task: o.Task,
		Created: q.Created, PartitionCount: q.Partitions}
}

func subscriptionMode(m byte) string {
	if m == consume.ModeAll {
		return httpd.SubscriptionAll
	}
	return httpd.SubscriptionNew
}
