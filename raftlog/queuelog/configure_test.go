package queuelog_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
	"github.com/queen-mq/queen-go/raftlog/raftlogtest"
)

// TestConfigure: options merge (null removes a key) or replace, are stored
// as compact JSON with sorted keys, and anything but an object is refused.
func TestConfigure(t *testing.T) {
	_, s := started(t, 1)
	queue := func(name string) (queuelog.QueueInfo, bool) {
		type res struct {
			q  queuelog.QueueInfo
			ok bool
		}
		r := read(t, s, func(v *raftlog.View) (res, error) {
			q, ok, err := queuelog.Queue(v, tenant, name)
			return res{q, ok}, err
		})
		return r.q, r.ok
	}
	steps := []struct {
		options string
		replace bool
		want    string
	}{
		{`{"b": {"x": [1, 2]}, "a": 1}`, false, `{"a":1,"b":{"x":[1,2]}}`},
		{`{"b": null, "c": "s"}`, false, `{"a":1,"c":"s"}`},
		{`{"a": 2}`, false, `{"a":2,"c":"s"}`},
		{`{"d": true, "a": null}`, true, `{"d":true}`},
		{`{}`, false, `{"d":true}`},
		{`{}`, true, `{}`},
	}
	for _, st := range steps {
		if got := configure(t, s, "cfg", st.options, st.replace); got != st.want {
			t.Fatalf("configure %s (replace %v): %s, want %s", st.options, st.replace, got, st.want)
		}
		if q, ok := queue("cfg"); !ok || string(q.Options) != st.want || q.Partitions != 0 {
			t.Fatalf("stored after %s: %+v %v", st.options, q, ok)
		}
	}
	configure(t, s, "cfg", `{"keep":1}`, false)
	for _, bad := range []string{``, `null`, `[1]`, `"s"`, `{"a":`, `nope`} {
		_, err := queuelog.Configure(raftlogtest.Ctx(t, testTimeout), s, queuelog.ConfigureOp{Tenant: tenant, Queue: "cfg", Options: []byte(bad)})
		if !errors.Is(err, raftlog.ErrRejected) {
			t.Fatalf("options %q: %v, want ErrRejected", bad, err)
		}
	}
	if _, err := queuelog.Configure(raftlogtest.Ctx(t, testTimeout), s, queuelog.ConfigureOp{Tenant: tenant, Options: []byte(`{}`)}); !errors.Is(err, raftlog.ErrRejected) {
		t.Fatalf("configure of no queue: %v, want ErrRejected", err)
	}
	if q, _ := queue("cfg"); string(q.Options) != `{"keep":1}` {
		t.Fatalf("refused configures changed the options: %s", q.Options)
	}

	// A pushed queue starts with {} and keeps its partitions and creation
	// stamp when configured.
	_, stamp := push(t, s, item("pushed", "a", "1", nil), item("pushed", "b", "2", nil))
	configure(t, s, "pushed", `{"x":1}`, true)
	if q, ok := queue("pushed"); !ok || q.Created != stamp || q.Partitions != 2 || string(q.Options) != `{"x":1}` {
		t.Fatalf("pushed queue after configure: %+v %v (pushed at %d)", q, ok, stamp)
	}
	if _, ok := queue("nope"); ok {
		t.Fatal("a queue never pushed nor configured exists")
	}
}

// TestQueues lists a tenant's queues, by name, and no other tenant's.
func TestQueues(t *testing.T) {
	_, s := started(t, 1)
	for _, q := range []string{"b", "aa", "c", "ab"} {
		push(t, s, item(q, "p", q, nil))
	}
	configure(t, s, "a", `{}`, false)
	other := queuelog.PushOp{Tenant: "00000000-0000-0000-0000-000000000010", Items: []queuelog.PushItem{item("zz", "p", "z", nil)}}
	if _, _, err := queuelog.Push(raftlogtest.Ctx(t, testTimeout), s, other); err != nil {
		t.Fatal(err)
	}
	qs := read(t, s, func(v *raftlog.View) ([]queuelog.QueueInfo, error) { return queuelog.Queues(v, tenant) })
	var names []string
	for _, q := range qs {
		names = append(names, q.Name)
		if wantParts := map[bool]uint64{true: 0, false: 1}[q.Name == "a"]; q.Partitions != wantParts || q.Created == 0 {
			t.Fatalf("queue %+v", q)
		}
	}
	if got := strings.Join(names, ","); got != "a,aa,ab,b,c" {
		t.Fatalf("queues %s, want a,aa,ab,b,c", got)
	}
}

// TestPushRejected: a push with an empty queue or partition name is
// refused whole: nothing of it is written.
func TestPushRejected(t *testing.T) {
	_, s := started(t, 1)
	for _, bad := range []queuelog.PushItem{item("", "p", "x", nil), item("q", "", "x", nil)} {
		_, _, err := queuelog.Push(raftlogtest.Ctx(t, testTimeout), s, queuelog.PushOp{Tenant: tenant, Items: []queuelog.PushItem{item("q", "p", "ok", nil), bad}})
		if !errors.Is(err, raftlog.ErrRejected) {
			t.Fatalf("push with %+v: %v, want ErrRejected", bad, err)
		}
	}
	if got := dump(t, s); got != "" {
		t.Fatalf("a refused push wrote:\n%s", got)
	}
}
