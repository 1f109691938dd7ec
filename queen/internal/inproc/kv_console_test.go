package inproc

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/raftlog"
)

// TestKVConsoleReads: GET /api/v1/resources/kv/namespaces counts the live
// keys exactly, expired ones left out before any sweep; POST
// /api/v1/resources/kv/list shows expired rows only when asked, marked,
// and after a retention pass they are gone from the store.
func TestKVConsoleReads(t *testing.T) {
	for i, body := range []string{`{"value":1,"forever":true}`, `{"value":2,"ttlSeconds":1}`, `{"value":3,"ttlSeconds":1}`} {
		want(t, do(t, "PUT", "/api/v1/kv/console/k"+string(rune('0'+i)), body), 200, "")
	}
	// The broker clock moves 5 s on: two rows are expired, not swept.
	if _, err := node.Shard.Propose(ctx(t), raftlog.Command{Clock: time.Now().Add(5 * time.Second).UnixMicro()}); err != nil {
		t.Fatal(err)
	}
	keys := func() int64 {
		t.Helper()
		w := do(t, "GET", "/api/v1/resources/kv/namespaces", "")
		want(t, w, 200, "")
		var got struct {
			Namespaces []struct {
				Namespace string
				Keys      int64
			}
		}
		if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		for _, n := range got.Namespaces {
			if n.Namespace == "console" {
				return n.Keys
			}
		}
		return 0
	}
	if n := keys(); n != 1 {
		t.Fatalf("console holds %d live keys, want 1", n)
	}
	list := func(includeExpired bool) []map[string]any {
		t.Helper()
		body := `{"namespace":"console"}`
		if includeExpired {
			body = `{"namespace":"console","includeExpired":true}`
		}
		w := do(t, "POST", "/api/v1/resources/kv/list", body)
		want(t, w, 200, "")
		var got struct{ Rows []map[string]any }
		if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		return got.Rows
	}
	if rows := list(false); len(rows) != 1 || rows[0]["key"] != "k0" || rows[0]["expired"] != false {
		t.Fatalf("live rows %v", rows)
	}
	if rows := list(true); len(rows) != 3 || rows[1]["expired"] != true || rows[2]["expired"] != true {
		t.Fatalf("rows with the expired %v", rows)
	}
	node.Retention.Once(ctx(t))
	if rows := list(true); len(rows) != 1 {
		t.Fatalf("after a retention pass the store holds %v", rows)
	}
	if n := keys(); n != 1 {
		t.Fatalf("console holds %d live keys after the sweep, want 1", n)
	}
}
