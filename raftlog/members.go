package raftlog

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/lni/dragonboat/v4"
)

// Replacing a replica. A node whose data is lost or corrupted is rebuilt
// from its peers under a new replica id: its old id is deleted from the
// shard, the new one added at the same raft address, and the node started
// on an empty data directory with that id and Config.Join; it catches up
// from a snapshot. An id is never reused: a node that came back empty
// under its old id would have forgotten the entries and votes its peers
// counted on (raft's safety rests on them), and dragonboat refuses to add
// back an id it deleted.

// ErrMembership is what a refused membership change wraps: the change
// names a replica that is not, or is already, or was once a member.
var ErrMembership = errors.New("raftlog: membership")

// Membership is a shard's replicas as its log last changed them.
type Membership struct {
	// Voters are the replicas, by id, and their raft addresses.
	Voters map[uint64]string
	// Removed are the ids deleted from the shard: never to be used again.
	Removed []uint64
	// ConfigChangeID is the index of the last membership change applied.
	ConfigChangeID uint64
}

// Membership reads shard's membership, linearizably (ReadIndex).
func (h *Host) Membership(ctx context.Context, shardID uint64) (Membership, error) {
	ctx, cancel := withDefaultDeadline(ctx)
	defer cancel()
	for {
		m, err := h.nh.SyncGetShardMembership(ctx, shardID)
		if err == nil {
			return Membership{Voters: maps.Clone(m.Nodes), Removed: slices.Sorted(maps.Keys(m.Removed)),
				ConfigChangeID: m.ConfigChangeID}, nil
		}
		if err := retryChange(ctx, err); err != nil {
			return Membership{}, err
		}
	}
}

// ReplaceReplica deletes replica old from shard and adds replica new at
// address (old's when address is ""), in that order: the shard keeps its
// size, and needs a majority of the others to commit each step, not the
// new node, which starts after (with Join, on an empty directory).
//
// It is safe to call again after an unknown outcome: once old is gone
// and new is a member it answers the membership; a call that finds old
// gone but new not yet added adds new, at address (which it then needs,
// old's being forgotten). It refuses (ErrMembership) new being or having
// been a member, old being neither a member nor deleted, old being this
// node, and address being another member's. ErrTimeout and ErrNoLeader leave the outcome unknown.
func (h *Host) ReplaceReplica(ctx context.Context, shardID, old, new uint64, address string) (Membership, error) {
	switch {
	case old == 0 || new == 0:
		return Membership{}, fmt.Errorf("%w: replica ids are 1 or more", ErrMembership)
	case old == new:
		return Membership{}, fmt.Errorf("%w: replica %d replaced by itself: a replacement takes an id no node ever had", ErrMembership, old)
	case old == h.cfg.NodeID:
		return Membership{}, fmt.Errorf("%w: replica %d is this node: ask another node to replace it", ErrMembership, old)
	}
	ctx, cancel := withDefaultDeadline(ctx)
	defer cancel()
	for {
		m, err := h.Membership(ctx, shardID)
		if err != nil {
			return m, err
		}
		_, oldIn := m.Voters[old]
		_, newIn := m.Voters[new]
		switch {
		case newIn && !oldIn:
			// Done, by this call or an earlier one. old can say no more
			// about its disk: a report of a full one it left would shut
			// the storage gate for good.
			return m, h.unlist(ctx, shardID, old)
		case newIn:
			return m, fmt.Errorf("%w: replica %d is a member already", ErrMembership, new)
		case slices.Contains(m.Removed, new):
			return m, fmt.Errorf("%w: replica %d was a member once and was deleted: a replacement takes an id no node ever had", ErrMembership, new)
		case oldIn:
			if address == "" {
				address = m.Voters[old]
			}
			for id, a := range m.Voters {
				if id != old && a == address {
					return m, fmt.Errorf("%w: address %s is replica %d's: a replacement takes the replaced node's address or one no member has", ErrMembership, address, id)
				}
			}
			h.log.Warn("raftlog: deleting a replica to replace it", "shard", shardID, "replica", old, "by", new, "address", address)
			err = h.nh.SyncRequestDeleteReplica(ctx, shardID, old, m.ConfigChangeID)
		case !slices.Contains(m.Removed, old):
			return m, fmt.Errorf("%w: replica %d is not a member of shard %d (members %v)", ErrMembership, old, shardID, slices.Sorted(maps.Keys(m.Voters)))
		case address == "":
			return m, fmt.Errorf("%w: replica %d is deleted already and %d not added: name the address to add it at", ErrMembership, old, new)
		default:
			h.log.Warn("raftlog: adding a replica in place of a deleted one", "shard", shardID, "replica", new, "for", old, "address", address)
			err = h.nh.SyncRequestAddReplica(ctx, shardID, new, address, m.ConfigChangeID)
		}
		if err := retryChange(ctx, err); err != nil {
			return m, err
		}
	}
}

// unlist takes a replica that left the shard out of the storage gate's
// set of full nodes, when it is there.
func (h *Host) unlist(ctx context.Context, shardID, replica uint64) error {
	s := h.Shard(shardID)
	if s == nil {
		return nil
	}
	m := s.sm.Load()
	if m == nil {
		return nil
	}
	if _, listed := m.fullNodes()[replica]; !listed {
		return nil
	}
	op := nodeStatusOp{Node: replica, Full: false}
	if _, err := s.Propose(ctx, Command{Ops: []Op{op.Op()}}); err != nil {
		return fmt.Errorf("raftlog: replica %d replaced, but its report of a full disk is not cleared (ask again): %w", replica, err)
	}
	h.log.Info("raftlog: a replaced replica's report of a full disk cleared", "shard", shardID, "replica", replica)
	return nil
}

// retryChange returns nil for an error after which a membership call is
// tried again (the shard not ready, busy, a change that raced another:
// dragonboat rejects a stale config change id), and ctx's end as
// raftlog's errors.
func retryChange(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, dragonboat.ErrShardNotReady), errors.Is(err, dragonboat.ErrSystemBusy),
		errors.Is(err, dragonboat.ErrRejected), errors.Is(err, dragonboat.ErrTimeout), errors.Is(err, dragonboat.ErrAborted):
	default:
		return fmt.Errorf("raftlog: membership change: %w", err)
	}
	select {
	case <-ctx.Done():
		if errors.Is(err, dragonboat.ErrShardNotReady) {
			return ErrNoLeader
		}
		return ErrTimeout
	case <-time.After(100 * time.Millisecond):
		return nil
	}
}

// checkReplica refuses to start shard under this node's id when the raft
// log store holds another replica of it: the data directory belongs to
// that replica, and a new id starts on an empty one.
func (h *Host) checkReplica(shardID uint64) error {
	for _, ni := range h.nh.GetNodeHostInfo(dragonboat.NodeHostInfoOption{}).LogInfo {
		if ni.ShardID == shardID && ni.ReplicaID != h.cfg.NodeID {
			return fmt.Errorf("raftlog: DataDir %s holds replica %d of shard %d, not %d: a node keeps its id for the life of its data, and a new id (a replacement) starts on an empty data directory",
				h.cfg.DataDir, ni.ReplicaID, shardID, h.cfg.NodeID)
		}
	}
	return nil
}
