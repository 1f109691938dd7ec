package broker

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/raftlog"
)

var _ httpd.Cluster = (*Broker)(nil)

// Members reads the shard's membership (GET /api/v1/raft/members).
func (b *Broker) Members(ctx context.Context) (httpd.Members, error) {
	m, err := b.host.Membership(ctx, b.shard.ID())
	if err != nil {
		return httpd.Members{}, mapErr(err)
	}
	return b.members(m), nil
}

// ReplaceMember replaces a member by a fresh id at the same raft address
// (POST /api/v1/raft/members/replace): raftlog.Host.ReplaceReplica.
func (b *Broker) ReplaceMember(ctx context.Context, old, nu uint64, address string) (httpd.Members, error) {
	m, err := b.host.ReplaceReplica(ctx, b.shard.ID(), old, nu, address)
	if errors.Is(err, raftlog.ErrMembership) {
		return httpd.Members{}, &httpd.Error{Status: http.StatusConflict, Code: httpd.CodeMembership, Message: err.Error()}
	}
	if err != nil {
		return httpd.Members{}, mapErr(err)
	}
	return b.members(m), nil
}

func (b *Broker) members(m raftlog.Membership) httpd.Members {
	out := httpd.Members{Node: b.host.NodeID(), Leader: b.shard.Leader(), Removed: m.Removed}
	if out.Removed == nil {
		out.Removed = []uint64{}
	}
	for _, id := range slices.Sorted(maps.Keys(m.Voters)) {
		out.Members = append(out.Members, httpd.Member{NodeID: id, Address: m.Voters[id]})
	}
	return out
}
