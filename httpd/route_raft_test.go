package httpd

import (
	"context"
	"log/slog"
	"net/http"
	"testing"
)

// clusterFake is a broker with a membership.
type clusterFake struct {
	*fakeBroker
	asked []any
	err   error
}

func (c *clusterFake) Members(context.Context) (Members, error) {
	return Members{Node: 1, Leader: 2, Members: []Member{{1, "a:1"}, {2, "b:1"}, {3, "c:1"}}, Removed: []uint64{}}, nil
}

func (c *clusterFake) ReplaceMember(_ context.Context, old, nu uint64, addr string) (Members, error) {
	c.asked = append(c.asked, old, nu, addr)
	if c.err != nil {
		return Members{}, c.err
	}
	return Members{Node: 1, Leader: 2, Members: []Member{{1, "a:1"}, {2, "b:1"}, {4, "c:1"}}, Removed: []uint64{3}}, nil
}

func TestRaftMembersRoutes(t *testing.T) {
	cf := &clusterFake{fakeBroker: &fakeBroker{}}
	e := &env{fb: cf.fakeBroker, h: New(cf, Options{Logger: slog.New(slog.DiscardHandler)})}
	wantJSON(t, e.do(t, http.MethodGet, "/api/v1/raft/members", ""), http.StatusOK,
		`{"node":1,"leader":2,"members":[{"nodeId":1,"address":"a:1"},{"nodeId":2,"address":"b:1"},{"nodeId":3,"address":"c:1"}],"removed":[]}`)
	wantJSON(t, e.do(t, http.MethodPost, "/api/v1/raft/members/replace", `{"nodeId":3,"newNodeId":4}`), http.StatusOK,
		`{"replaced":true,"node":1,"leader":2,"members":[{"nodeId":1,"address":"a:1"},{"nodeId":2,"address":"b:1"},{"nodeId":4,"address":"c:1"}],"removed":[3]}`)
	if len(cf.asked) != 3 || cf.asked[0] != uint64(3) || cf.asked[1] != uint64(4) || cf.asked[2] != "" {
		t.Fatalf("asked %v", cf.asked)
	}
	for _, body := range []string{`{"nodeId":3}`, `{"nodeId":0,"newNodeId":4}`, `{"nodeId":"3","newNodeId":4}`, `[]`, `{`,
		`{"nodeId":3,"newNodeId":4,"address":7}`, `{"nodeId":3,"newNodeId":4,"address":"10.0.0.2"}`, `{"nodeId":3,"newNodeId":4,"address":":6633"}`} {
		if w := e.do(t, http.MethodPost, "/api/v1/raft/members/replace", body); w.Code != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", body, w.Code, w.Body)
		}
	}
	cf.err = &Error{Status: http.StatusConflict, Code: CodeMembership, Message: "replica 4 is a member already"}
	wantJSON(t, e.do(t, http.MethodPost, "/api/v1/raft/members/replace", `{"nodeId":3,"newNodeId":4,"address":"c:1"}`),
		http.StatusConflict, `{"error":"replica 4 is a member already","code":"membership"}`)
}
