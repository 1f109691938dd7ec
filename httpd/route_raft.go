package httpd

import (
	"context"
	"fmt"
	"net"
	"net/http"

	"github.com/queen-mq/queen-go/contract"
)

// Cluster is the raft membership of the node's shard: read by the
// operator, and changed to replace a node whose data is lost or
// corrupted (API.md §9, /api/v1/raft/members). New registers its routes
// when the Broker implements it.
type Cluster interface {
	// Members reads the membership linearizably. ErrTimeout and
	// ErrNoLeader as for a read.
	Members(ctx context.Context) (Members, error)
	// ReplaceMember deletes member nodeID and adds newNodeID at address
	// ("" : nodeID's), and answers the membership after it. Safe to ask
	// again after an unknown outcome (ErrTimeout): a replace already
	// done answers the membership. A refusal (a newNodeID that is or was
	// a member, a nodeID that is not, the answering node's own id) is an
	// *Error of status 409, code CodeMembership.
	ReplaceMember(ctx context.Context, nodeID, newNodeID uint64, address string) (Members, error)
}

// CodeMembership is the code of a membership change refused (409).
const CodeMembership = "membership"

// Members is the answer of GET /api/v1/raft/members.
type Members struct {
	// Node is the answering node's id; Leader the leader it knows (0: none).
	Node   uint64 `json:"node"`
	Leader uint64 `json:"leader"`
	// Members are the voters, by id; Removed the ids deleted, never to
	// be used again.
	Members []Member `json:"members"`
	Removed []uint64 `json:"removed"`
}

// Member is one voter: its node id and raft address.
type Member struct {
	NodeID  uint64 `json:"nodeId"`
	Address string `json:"address"`
}

// nodeIDRange bounds a node id in a body (QUEEN_RAFT_NODE_ID's range).
var nodeIDRange = &contract.Range{Field: "nodeId", Min: 1, Max: 1 << 31, Doc: "a raft node id", Where: "raft members replace"}

// members is GET /api/v1/raft/members: 200 Members.
func (s *server) members() http.Handler {
	return reply(http.StatusOK, func(r *http.Request) (Members, error) { return s.cl.Members(r.Context()) })
}

// replaceMember is POST /api/v1/raft/members/replace {"nodeId","newNodeId",
// "address"?}: 200 {"replaced":true, and Members' fields}. 400 for a
// body without both ids; 409 membership for a refused change.
func (s *server) replaceMember() http.Handler {
	return route(http.StatusOK, s.bodyObject, func(r *http.Request, o object) (any, error) {
		old, okOld, err := o.integer("nodeId", "nodeId", nodeIDRange, 0)
		if err != nil {
			return nil, err
		}
		nu, okNew, err := o.integer("newNodeId", "newNodeId", nodeIDRange, 0)
		if err != nil {
			return nil, err
		}
		if !okOld || !okNew {
			return nil, badRequest("nodeId and newNodeId are required: the node to replace and the fresh id of its replacement")
		}
		addr, _, err := o.str("address", "address")
		if err != nil {
			return nil, err
		}
		if addr != "" {
			if host, port, err := net.SplitHostPort(addr); err != nil || host == "" || port == "" {
				return nil, badRequest(fmt.Sprintf("address %q is not host:port: it is where the replacement's raft transport listens, such as 10.0.0.2:6633", addr))
			}
		}
		m, err := s.cl.ReplaceMember(r.Context(), uint64(old), uint64(nu), addr)
		return struct {
			Replaced bool `json:"replaced"`
			Members
		}{true, m}, err
	})
}
