package httpd

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

// someGroups are three groups: g1 lags 7 over two queues, g2 lags 0, and
// "a/b" lags 1.
func someGroups() []GroupInfo {
	return []GroupInfo{
		{Name: "g1", Queues: []GroupQueue{
			{Queue: "q1", SubscribedAt: 1_758_536_130_000_001, SubscriptionMode: "new", Lag: 5, Partitions: []GroupPartition{
				{Partition: "Default", Cursor: 3, HighWatermark: 8},
				{Partition: "p2", Cursor: 0, HighWatermark: 0},
			}},
			{Queue: `q"2`, SubscribedAt: 1_758_536_131_500_000, SubscriptionMode: "all", Lag: 2, Partitions: []GroupPartition{
				{Partition: "Default", Cursor: 1, HighWatermark: 3, LeaseID: "lease-1", LeaseExpiresAt: 1_758_536_190_000_000},
			}},
		}},
		{Name: "g2", Queues: []GroupQueue{{Queue: "q1", SubscribedAt: 1_758_536_130_000_000, SubscriptionMode: "new"}}},
		{Name: "a/b", Queues: []GroupQueue{{Queue: "q3", SubscriptionMode: "new", Lag: 1,
			Partitions: []GroupPartition{{Partition: "Default", Cursor: 4, HighWatermark: 5}}}}},
	}
}

func groupsBroker() *fakeBroker {
	return &fakeBroker{groups: func(context.Context, string) ([]GroupInfo, error) { return someGroups(), nil }}
}

// TestGroupsAnswer: the list, byte for byte: every group, its queues with
// their partition count, and the sum of their lags.
func TestGroupsAnswer(t *testing.T) {
	e := newEnv(t, groupsBroker(), Options{})
	w := e.do(t, "GET", "/api/v1/consumer-groups", "")
	want := `{"consumerGroups":[` +
		`{"name":"g1","queues":[` +
		`{"queue":"q1","subscribedAt":"2025-09-22T10:15:30.000001Z","subscriptionMode":"new","lag":5,"partitions":2},` +
		`{"queue":"q\"2","subscribedAt":"2025-09-22T10:15:31.500000Z","subscriptionMode":"all","lag":2,"partitions":1}],` +
		`"lag":7},` +
		`{"name":"g2","queues":[{"queue":"q1","subscribedAt":"2025-09-22T10:15:30.000000Z","subscriptionMode":"new",` +
		`"lag":0,"partitions":0}],"lag":0},` +
		`{"name":"a/b","queues":[{"queue":"q3","subscribedAt":"1970-01-01T00:00:00.000000Z","subscriptionMode":"new",` +
		`"lag":1,"partitions":1}],"lag":1}]}` + "\n"
	wantBody(t, w, http.StatusOK, want)
	if c := e.fb.only(t); c.method != "ConsumerGroups" || c.tenant != DefaultTenant {
		t.Fatalf("broker got %+v", c)
	}
}

func TestGroupsEmpty(t *testing.T) {
	e := newEnv(t, nil, Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/consumer-groups", ""), http.StatusOK, `{"consumerGroups":[]}`)
	fb := &fakeBroker{groups: func(context.Context, string) ([]GroupInfo, error) {
		return []GroupInfo{{Name: "g"}}, nil
	}}
	e = newEnv(t, fb, Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/consumer-groups", ""), http.StatusOK,
		`{"consumerGroups":[{"name":"g","queues":[],"lag":0}]}`)
	wantJSON(t, e.do(t, "GET", "/api/v1/consumer-groups/lagging?minLag=0", ""), http.StatusOK,
		`{"consumerGroups":[{"name":"g","queues":[],"lag":0}]}`)
}

// TestLagging: /consumer-groups/lagging keeps the groups whose total lag
// is at least minLag (default 1), and is never read as a group's name.
func TestLagging(t *testing.T) {
	cases := []struct {
		query string
		want  []string
	}{
		{"", []string{"g1", "a/b"}},
		{"?minLag=", []string{"g1", "a/b"}},
		{"?minLag=0", []string{"g1", "g2", "a/b"}},
		{"?minLag=2", []string{"g1"}},
		{"?minLag=7", []string{"g1"}},
		{"?minLag=8", []string{}},
		{"?minLag=1&minLag=x&other=1", []string{"g1", "a/b"}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			e := newEnv(t, groupsBroker(), Options{})
			w := e.do(t, "GET", "/api/v1/consumer-groups/lagging"+c.query, "")
			wantStatus(t, w, http.StatusOK)
			var got struct {
				ConsumerGroups []struct {
					Name string `json:"name"`
				} `json:"consumerGroups"`
			}
			decode(t, w, &got)
			names := []string{}
			for _, g := range got.ConsumerGroups {
				names = append(names, g.Name)
			}
			if !reflect.DeepEqual(names, c.want) {
				t.Fatalf("groups = %v, want %v", names, c.want)
			}
			if m := e.fb.only(t).method; m != "ConsumerGroups" {
				t.Fatalf("broker got %s", m)
			}
		})
	}
}

func TestLaggingRefusals(t *testing.T) {
	cases := []struct{ query, msg string }{
		{"?minLag=-1", `minLag "-1" is outside 0..9223372036854775807`},
		{"?minLag=x", `minLag "x" must be an integer`},
		{"?minLag=1.5", `minLag "1.5" must be an integer`},
		{"?minLag=99999999999999999999", `minLag "99999999999999999999" is outside 0..9223372036854775807`},
		{"?minLag=%zz", "the query string is malformed"},
	}
	for _, c := range cases {
		wantRefusal(t, c.query, "GET", "/api/v1/consumer-groups/lagging"+c.query, "", CodeBadRequest, c.msg)
	}
}

// TestGroupDetail: one group, byte for byte: partitions with their lag
// (never negative) and their lease, null when none.
func TestGroupDetail(t *testing.T) {
	fb := &fakeBroker{group: func(_ context.Context, _, name string) (GroupInfo, bool, error) {
		g := someGroups()[0]
		g.Queues[0].Partitions = append(g.Queues[0].Partitions, GroupPartition{Partition: "odd", Cursor: 9, HighWatermark: 4})
		return g, name == "g1", nil
	}}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "GET", "/api/v1/consumer-groups/g1", "")
	want := `{"name":"g1","queues":[` +
		`{"queue":"q1","subscribedAt":"2025-09-22T10:15:30.000001Z","subscriptionMode":"new","lag":5,"partitions":[` +
		`{"partition":"Default","cursor":3,"highWatermark":8,"lag":5,"leaseId":null,"leaseExpiresAt":null},` +
		`{"partition":"p2","cursor":0,"highWatermark":0,"lag":0,"leaseId":null,"leaseExpiresAt":null},` +
		`{"partition":"odd","cursor":9,"highWatermark":4,"lag":0,"leaseId":null,"leaseExpiresAt":null}]},` +
		`{"queue":"q\"2","subscribedAt":"2025-09-22T10:15:31.500000Z","subscriptionMode":"all","lag":2,"partitions":[` +
		`{"partition":"Default","cursor":1,"highWatermark":3,"lag":2,"leaseId":"lease-1",` +
		`"leaseExpiresAt":"2025-09-22T10:16:30.000000Z"}]}]}` + "\n"
	wantBody(t, w, http.StatusOK, want)
	e.fb.wantCall(t, "ConsumerGroup", "g1")

	e = newEnv(t, fb, Options{})
	wantError(t, e.do(t, "GET", "/api/v1/consumer-groups/g9", ""), http.StatusNotFound, CodeNotFound,
		`consumer group "g9" not found`)
}

// TestGroupDetailName: the answer names the broker's group, else the
// path's; escaped names are unescaped.
func TestGroupDetailName(t *testing.T) {
	fb := &fakeBroker{group: func(context.Context, string, string) (GroupInfo, bool, error) {
		return GroupInfo{}, true, nil
	}}
	e := newEnv(t, fb, Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/consumer-groups/a%2Bb%20c", ""), http.StatusOK, `{"name":"a+b c","queues":[]}`)
	if c := e.fb.only(t); c.arg != "a+b c" {
		t.Fatalf("broker got %+v", c)
	}
}

func TestDeleteGroup(t *testing.T) {
	cases := []struct {
		name, target string
		want         groupArg
		answer       string
	}{
		{"whole group", "/api/v1/consumer-groups/g", groupArg{"g", "", false},
			`{"deleted":true,"consumerGroup":"g","queues":1}`},
		{"one queue", "/api/v1/consumer-groups/g/queues/q", groupArg{"g", "q", false},
			`{"deleted":true,"consumerGroup":"g","queues":1}`},
		{"escaped", "/api/v1/consumer-groups/a%2Bb/queues/c%20d", groupArg{"a+b", "c d", false},
			`{"deleted":true,"consumerGroup":"a+b","queues":1}`},
		{"a group named lagging", "/api/v1/consumer-groups/lagging", groupArg{"lagging", "", false},
			`{"deleted":true,"consumerGroup":"lagging","queues":1}`},
		{"keeping its subscription", "/api/v1/consumer-groups/g?deleteMetadata=false", groupArg{"g", "", true},
			`{"deleted":true,"consumerGroup":"g","queues":1}`},
		{"with its subscription", "/api/v1/consumer-groups/g/queues/q?deleteMetadata=true", groupArg{"g", "q", false},
			`{"deleted":true,"consumerGroup":"g","queues":1}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil, Options{})
			w := e.do(t, "DELETE", c.target, "")
			wantBody(t, w, http.StatusOK, c.answer+"\n")
			e.fb.wantCall(t, "DeleteConsumerGroup", c.want)
		})
	}

	fb := &fakeBroker{deleteGroup: func(context.Context, string, string, string) (int, error) { return 3, nil }}
	e := newEnv(t, fb, Options{})
	wantJSON(t, e.do(t, "DELETE", "/api/v1/consumer-groups/g", ""), http.StatusOK,
		`{"deleted":true,"consumerGroup":"g","queues":3}`)

	fb = &fakeBroker{deleteGroup: func(context.Context, string, string, string) (int, error) { return 0, nil }}
	e = newEnv(t, fb, Options{})
	wantJSON(t, e.do(t, "DELETE", "/api/v1/consumer-groups/g", ""), http.StatusNotFound,
		`{"error":"consumer group \"g\" not found","code":"not_found"}`)
	wantJSON(t, e.do(t, "DELETE", "/api/v1/consumer-groups/g/queues/q", ""), http.StatusNotFound,
		`{"error":"consumer group \"g\" does not read queue \"q\"","code":"not_found"}`)
}

func TestSeek(t *testing.T) {
	cases := []struct {
		name, target, body string
		want               SeekRequest
	}{
		{"to end", "/g/queues/q/seek", `{"toEnd":true}`, SeekRequest{Group: "g", Queue: "q", ToEnd: true}},
		{"to a time", "/g/queues/q/seek", `{"timestamp":"2025-09-22T10:15:30.000001Z"}`,
			SeekRequest{Group: "g", Queue: "q", To: 1_758_536_130_000_001}},
		{"to a time with a zone", "/g/queues/q/seek", `{"timestamp":"2025-09-22T12:15:30+02:00"}`,
			SeekRequest{Group: "g", Queue: "q", To: 1_758_536_130_000_000}},
		{"to a date", "/g/queues/q/seek", `{"timestamp":"2025-09-22"}`,
			SeekRequest{Group: "g", Queue: "q", To: 1_758_499_200_000_000}},
		{"before the epoch", "/g/queues/q/seek", `{"timestamp":"1969-12-31T00:00:00Z"}`,
			SeekRequest{Group: "g", Queue: "q"}},
		{"toEnd false and a time", "/g/queues/q/seek", `{"toEnd":false,"timestamp":"1970-01-01T00:00:01Z"}`,
			SeekRequest{Group: "g", Queue: "q", To: 1_000_000}},
		{"nulls and unknowns", "/g/queues/q/seek", `{"toEnd":true,"timestamp":null,"to":"x"}`,
			SeekRequest{Group: "g", Queue: "q", ToEnd: true}},
		{"one partition", "/g/queues/q/partitions/p/seek", `{"toEnd":true}`,
			SeekRequest{Group: "g", Queue: "q", Partition: "p", ToEnd: true}},
		{"escaped", "/a%2Bb/queues/c%20d/partitions/eu%20west%2F1/seek", `{"toEnd":true}`,
			SeekRequest{Group: "a+b", Queue: "c d", Partition: "eu west/1", ToEnd: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil, Options{})
			w := e.do(t, "POST", "/api/v1/consumer-groups"+c.target, c.body)
			wantBody(t, w, http.StatusOK, `{"success":true,"consumerGroup":"`+c.want.Group+`","queue":"`+c.want.Queue+
				`","partitions":1}`+"\n")
			e.fb.wantCall(t, "SeekConsumerGroup", c.want)
		})
	}
}

func TestSeekRefusals(t *testing.T) {
	cases := []struct{ name, target, body, code, msg string }{
		{"both", "/g/queues/q/seek", `{"toEnd":true,"timestamp":"2025-09-22"}`, CodeBadRequest,
			`timestamp "2025-09-22" and toEnd true cannot both be given`},
		{"neither", "/g/queues/q/seek", `{}`, CodeBadRequest, "timestamp or toEnd true is required"},
		{"toEnd false alone", "/g/queues/q/seek", `{"toEnd":false}`, CodeBadRequest, "timestamp or toEnd true is required"},
		{"no alias", "/g/queues/q/seek", `{"to":"2025-09-22"}`, CodeBadRequest, "timestamp or toEnd true is required"},
		{"bad time", "/g/queues/q/seek", `{"timestamp":"yesterday"}`, CodeBadRequest,
			`timestamp "yesterday" must be an ISO-8601 time`},
		{"empty time", "/g/queues/q/seek", `{"timestamp":""}`, CodeBadRequest, `timestamp "" must be an ISO-8601 time`},
		{"epoch ms", "/g/queues/q/partitions/p/seek", `{"timestamp":1758536130000}`, CodeBadRequest,
			"timestamp must be a string"},
		{"toEnd a string", "/g/queues/q/seek", `{"toEnd":"true"}`, CodeBadRequest, "toEnd must be a boolean"},
		{"not an object", "/g/queues/q/seek", `[]`, CodeBadRequest, "the body must be an object"},
		{"empty body", "/g/queues/q/seek", ``, CodeBadBody, "the body is empty"},
		{"malformed", "/g/queues/q/seek", `{"toEnd":`, CodeBadBody, "the body is not JSON"},
		{"empty group", "//queues/q/seek", `{"toEnd":true}`, CodeBadRequest, "the group is empty"},
		{"empty queue", "/g/queues//seek", `{"toEnd":true}`, CodeBadRequest, "the queue is empty"},
		{"empty partition", "/g/queues/q/partitions//seek", `{"toEnd":true}`, CodeBadRequest, "the partition is empty"},
	}
	for _, c := range cases {
		wantRefusal(t, c.name, "POST", "/api/v1/consumer-groups"+c.target, c.body, c.code, c.msg)
	}
}

// TestGroupPathRefusals: an empty segment is 400; a missing one no route.
func TestGroupPathRefusals(t *testing.T) {
	cases := []struct {
		method, target string
		status         int
		code, msg      string
	}{
		{"DELETE", "/api/v1/consumer-groups//queues/q", http.StatusBadRequest, CodeBadRequest, "the group is empty"},
		{"DELETE", "/api/v1/consumer-groups/g/queues/", http.StatusNotFound, CodeNoSuchRoute, "Not Found"},
		{"DELETE", "/api/v1/consumer-groups/", http.StatusNotFound, CodeNoSuchRoute, "Not Found"},
	}
	for _, c := range cases {
		wantRefused(t, c.method+" "+c.target, c.method, c.target, "", c.status, c.code, c.msg)
	}
}

func TestSetSubscription(t *testing.T) {
	e := newEnv(t, nil, Options{})
	w := e.do(t, "POST", "/api/v1/consumer-groups/a%2Bb/subscription", `{"subscriptionTimestamp":"2026-12-01T10:00:00.5Z"}`)
	wantJSON(t, w, http.StatusOK, `{"success":true,"consumerGroup":"a+b","subscriptionTimestamp":"2026-12-01T10:00:00.500000Z","queues":1}`)
	want := subscriptionArg{"a+b", time.Date(2026, 12, 1, 10, 0, 0, 5e8, time.UTC).UnixMicro()}
	e.fb.wantCall(t, "SetSubscription", want)
	for _, c := range []struct{ body, want string }{
		{`{}`, "subscriptionTimestamp is required"},
		{`{"subscriptionTimestamp":"yesterday"}`, `subscriptionTimestamp \"yesterday\" must be an ISO-8601 time`},
		{`{"subscriptionTimestamp":5}`, "subscriptionTimestamp"},
		{`[]`, "the body"},
	} {
		e := newEnv(t, nil, Options{})
		w := e.do(t, "POST", "/api/v1/consumer-groups/g/subscription", c.body)
		wantStatus(t, w, http.StatusBadRequest)
		if !strings.Contains(w.Body.String(), c.want) {
			t.Fatalf("%s: body %s, want it to name %s", c.body, w.Body, c.want)
		}
	}
	e = newEnv(t, nil, Options{})
	w = e.do(t, "POST", "/api/v1/consumer-groups/nobody/subscription", `{"subscriptionTimestamp":"2026-12-01T10:00:00Z"}`)
	wantStatus(t, w, http.StatusNotFound)
}
