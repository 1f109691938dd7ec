package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// maxKVValue is the broker's cap on a KV value, compact (API.md §5).
const maxKVValue = 64 << 10

// maxKVOps is the broker's cap on the operations of one POST /api/v1/kv
// (API.md §5, kv_too_many_ops).
const maxKVOps = 256

// runKV is -mode kvput and -mode kvget: -c connections, each a loop of one
// call after another on the single-key routes of namespace -queue, until
// -duration. kvput puts a JSON value of about -size bytes (forever) to one
// of the -keys keys per call: every call is one raft entry, committed on a
// majority and fsynced before it is answered. kvget first puts every key
// (calls of maxKVOps operations, before the clock starts), then reads one
// key per call with GET, which the broker answers after a read index: a
// linearizable read. records counts the calls that did what they were sent
// for (a put applied, a get that found its key).
func runKV(o options) (*report, error) {
	if o.mode == "kvget" {
		if err := kvPrefill(newClient(o.conns), o, padPayload(o.size)); err != nil {
			return nil, err
		}
	}
	return runLoad(o)
}

// kvCall is connection c's call i of -mode kvput or kvget, on base's
// single-key route of one of the -keys keys; value is the put's value.
// It moves one record when the put applied or the get found its key.
func kvCall(ctx context.Context, client *http.Client, base string, o options, c, i int, value string) (int, error) {
	key := base + "/api/v1/kv/" + url.PathEscape(o.queue) + "/" + kvKey((c*7919+i)%o.keys)
	var err error
	if o.mode == "kvput" {
		err = kvPut(ctx, client, key, []byte(`{"value":`+value+`,"forever":true}`))
	} else {
		err = kvGet(ctx, client, key)
	}
	if err != nil {
		return 0, err
	}
	return 1, nil
}

// kvKey is the name of key i of a run.
func kvKey(i int) string { return fmt.Sprintf("k-%d", i) }

// kvPut sends one PUT and checks its answer says applied.
func kvPut(ctx context.Context, client *http.Client, url string, body []byte) error {
	a, err := sendMethod(ctx, client, http.MethodPut, url, body)
	if err != nil {
		return err
	}
	var out struct {
		Applied bool   `json:"applied"`
		Reason  string `json:"reason"`
	}
	if err := json.Unmarshal(a.body, &out); err != nil {
		return fmt.Errorf("kv put answered %.200s", a.body)
	}
	if !out.Applied {
		return fmt.Errorf("kv put not applied: %s", out.Reason)
	}
	return nil
}

// kvGet sends one GET and checks the key was found.
func kvGet(ctx context.Context, client *http.Client, url string) error {
	a, err := send(ctx, client, url, nil)
	if err != nil {
		return err
	}
	var out struct {
		Found bool `json:"found"`
	}
	if err := json.Unmarshal(a.body, &out); err != nil {
		return fmt.Errorf("kv get answered %.200s", a.body)
	}
	if !out.Found {
		return fmt.Errorf("kv get of %s: not found, though every key was put before the clock started", url)
	}
	return nil
}

// kvPrefill puts every key of the run with value, in POST /api/v1/kv calls
// of maxKVOps operations, from -c connections at once.
func kvPrefill(client *http.Client, o options, value string) error {
	return inParallel(o.conns, (o.keys+maxKVOps-1)/maxKVOps, func(c, k int) error {
		first := k * maxKVOps
		body := kvPutBody(o.queue, first, min(first+maxKVOps, o.keys), value)
		if err := kvCallApplied(client, o.urls[c%len(o.urls)], body); err != nil {
			return fmt.Errorf("prefill of keys %d..: %w", first, err)
		}
		return nil
	})
}

// kvPutBody is the POST /api/v1/kv body that puts keys [from, to) of
// namespace ns with value, forever.
func kvPutBody(ns string, from, to int, value string) []byte {
	return opsBody(from, to, func(b *strings.Builder, i int) {
		fmt.Fprintf(b, `{"op":"put","ns":%q,"key":%q,"value":%s,"forever":true}`, ns, kvKey(i), value)
	})
}

// opsBody is a {"operations":[…]} body (a KV or a timers call) of the
// operations lo to hi-1, each written by op.
func opsBody(lo, hi int, op func(b *strings.Builder, i int)) []byte {
	var b strings.Builder
	b.WriteString(`{"operations":[`)
	for i := lo; i < hi; i++ {
		if i > lo {
			b.WriteByte(',')
		}
		op(&b, i)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// kvCallApplied sends one POST /api/v1/kv of puts and checks every result
// says applied.
func kvCallApplied(client *http.Client, url string, body []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := send(ctx, client, url+"/api/v1/kv", body)
	if err != nil {
		return err
	}
	var out struct {
		Results []struct {
			Applied bool `json:"applied"`
		} `json:"results"`
	}
	if err := json.Unmarshal(a.body, &out); err != nil || len(out.Results) == 0 {
		return fmt.Errorf("kv call answered %.200s", a.body)
	}
	for i, r := range out.Results {
		if !r.Applied {
			return fmt.Errorf("kv call: put %d not applied: %.200s", i, a.body)
		}
	}
	return nil
}
