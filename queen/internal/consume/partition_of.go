package consume

import "github.com/queen-mq/queen-go/raftlog"

// PartitionOf names the partition that partition id uid (the API's
// partitionId) stands for, as the ack path reads it: ok is false when no
// consumer of tenant popped a partition of that id (another tenant's
// partition too, so that one tenant never learns another's names).
// Partition ids are never reused, so the answer never changes once ok.
func PartitionOf(v *raftlog.View, tenant string, uid uint64) (queue, partition string, ok bool, err error) {
	b, found, err := v.Get(uidKey(uid))
	if err != nil || !found {
		return "", "", false, err
	}
	p, err := decodePartRef(b)
	if err != nil || p.Tenant != tenant {
		return "", "", false, err
	}
	return p.Queue, p.Partition, true, nil
}
