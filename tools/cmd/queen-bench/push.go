package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// runLoad is -mode push, fetch, txn, kvput and kvget: -c connections,
// each a loop of one request after another (request), until -duration or
// -count records.
func runLoad(o options) (*report, error) {
	client := newClient(o.conns)
	ctx, cancel := context.WithTimeout(context.Background(), o.duration)
	defer cancel()
	if o.count > 0 {
		ctx, cancel = context.WithCancel(context.Background())
		defer cancel()
	}
	payload := padPayload(o.size)
	t := newTally()
	t.each(o.conns, func(c int) (mine []time.Duration) {
		url := o.urls[c%len(o.urls)]
		offsets := map[string]int64{}
		for i := 0; ctx.Err() == nil; i++ {
			var part string // fetch's: which partition it reads next
			if o.mode == "fetch" {
				part = fmt.Sprintf("p-%d", (c*7919+i)%o.partitions)
			}
			t0 := time.Now()
			n, err := request(ctx, client, url, o, c, i, payload, part, offsets)
			if ctx.Err() != nil {
				break
			}
			mine = append(mine, time.Since(t0))
			t.requests.Add(1)
			if err != nil {
				t.fail(err)
				continue
			}
			offsets[part] += int64(n)
			if t.records.Add(int64(n)) >= o.count && o.count > 0 {
				cancel()
			}
		}
		return mine
	})
	r := t.report()
	if e, ok := t.first(); ok && r.records == 0 {
		return nil, fmt.Errorf("every request failed, the first with: %s", e)
	}
	return r, nil
}

// request sends connection c's request i of -mode to url and returns how
// many records it moved; payload is a record's (or a KV value's) JSON,
// part and offsets a fetch's partition and where it stands.
func request(ctx context.Context, client *http.Client, url string, o options, c, i int, payload, part string, offsets map[string]int64) (int, error) {
	switch {
	case o.mode == "fetch":
		return fetch(ctx, client, url, fetchBody(o, part, offsets[part]))
	case o.mode == "kvput" || o.mode == "kvget":
		return kvCall(ctx, client, url, o, c, i, payload)
	case o.mode == "txn":
		body, err := txnBody(o, c, i, payload)
		if err != nil {
			return 0, err
		}
		return transact(ctx, client, url, body)
	case o.body == bodyJSON:
		return push(ctx, client, url, pushBody(o, c, i, payload))
	}
	body, err := binaryPushBody(o, c, i, payload, o.body == bodyFrames)
	if err != nil {
		return 0, err
	}
	return pushBinary(ctx, client, url, body)
}

// padPayload is a JSON object of about size bytes.
func padPayload(size int) string {
	return `{"pad":"` + strings.Repeat("x", max(size-10, 0)) + `"}`
}

func pushBody(o options, c, i int, payload string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"items":[`)
	for j := 0; j < o.batch; j++ {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"queue":%q,"partition":"p-%d","transactionId":"qb-%d-%d-%d-%d","payload":%s}`,
			o.queue, (c*7919+i+j)%o.partitions, time.Now().UnixNano(), c, i, j, payload)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// pushResult is one element of a push's answer.
type pushResult struct {
	Status string `json:"status"`
}

// push sends one push and returns how many records the broker answered
// for.
func push(ctx context.Context, client *http.Client, url string, body []byte) (int, error) {
	out, _, err := pushAll(ctx, client, url, body)
	return len(out), err
}

// pushAll sends one push and returns its per-record results and the answer.
func pushAll(ctx context.Context, client *http.Client, url string, body []byte) ([]pushResult, answer, error) {
	a, err := send(ctx, client, url+"/api/v1/push", body)
	if err != nil {
		return nil, a, err
	}
	var out []pushResult
	if err := json.Unmarshal(a.body, &out); err != nil {
		return nil, a, fmt.Errorf("push answered %.200s", a.body)
	}
	return out, a, nil
}
