package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDeployIDsFromAddresses: three nodes with the environment of
// deploy/kubernetes/queen.yaml's pods, where only QUEEN_RAFT_ADDRESS
// differs and no QUEEN_RAFT_NODE_ID is set, take the ids the member list
// gives their addresses, elect one leader and replicate a write.
func TestDeployIDsFromAddresses(t *testing.T) {
	nodes := cluster(t, 3)
	for _, n := range nodes {
		var members string
		env := slices.DeleteFunc(slices.Clone(n.env), func(kv string) bool { return strings.HasPrefix(kv, "QUEEN_RAFT_NODE_ID=") })
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, "QUEEN_RAFT_MEMBERS="); ok {
				members = v
			}
		}
		var addr string
		for _, m := range strings.Split(members, ",") {
			if id, a, _ := strings.Cut(m, "="); id == fmt.Sprint(n.id) {
				addr = a
			}
		}
		if addr == "" {
			t.Fatalf("node %d has no address in %s", n.id, members)
		}
		n.env = append(env, "QUEEN_RAFT_ADDRESS="+addr)
	}
	startAll(nodes)
	leaders := map[float64]bool{}
	for _, n := range nodes {
		var st struct {
			Node   float64 `json:"node"`
			Health struct {
				Raft struct {
					Leader float64 `json:"leader"`
				} `json:"raft"`
			} `json:"health"`
		}
		if code, err := n.call(context.Background(), http.MethodGet, "/status", nil, &st); err != nil || code != 200 {
			t.Fatalf("node %d /status: %d %v", n.id, code, err)
		}
		if st.Node != float64(n.id) {
			t.Errorf("the node at member %d's address took id %v", n.id, st.Node)
		}
		leaders[st.Health.Raft.Leader] = true
	}
	if len(leaders) != 1 || leaders[0] {
		t.Errorf("the nodes know leaders %v, want one", leaders)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := nodes[2].push(ctx, pushItem{Queue: "deploy", TransactionID: "deploy-1", Payload: []byte(`{"n":1}`)}); err != nil {
		t.Fatal(err)
	}
}
