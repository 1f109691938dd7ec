package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/queen-mq/queen-go/httpd/wire"
)

// runConsume is -mode consume. Before the clock starts it pushes -prefill
// records; then -c consumers each loop: a pop of up to -batch records of
// one partition (wait=false, subscriptionMode=all, so a new -group starts
// at the queue's first record) and one ack/batch settling all of them as
// completed under the pop's lease. A 204 is retried at once and counted.
// It stops at -duration or when every prefilled record is acked. records
// counts acked records, requests both pops and acks, and the latency is
// that of a pop and its ack together, for pops that leased something.
func runConsume(o options) (*report, error) {
	client := newClient(o.conns)
	prefix := runPrefix()
	t0 := time.Now()
	if err := prefill(o, client, prefix); err != nil {
		return nil, fmt.Errorf("prefill: %w", err)
	}
	filled := time.Since(t0)
	ctx, cancel := context.WithTimeout(context.Background(), o.duration)
	defer cancel()
	q := url.Values{"consumerGroup": {o.group}, "batch": {strconv.Itoa(o.batch)}, "partitions": {"1"},
		"wait": {"false"}, "subscriptionMode": {"all"}}
	if o.body == bodyFrames {
		q.Set("frames", "true") // the framed answer (QPF1), as the client's framed_pop asks
	}
	path := "/api/v1/pop/queue/" + url.PathEscape(o.queue) + "?" + q.Encode()
	var ours atomic.Int64
	var doneAt atomic.Int64 // when the last prefilled record was acked, since the start
	t := newTally()
	t.each(o.conns, func(c int) (mine []time.Duration) {
		url := o.urls[c%len(o.urls)]
		for ctx.Err() == nil {
			t0 := time.Now()
			p, ok, err := pop(ctx, client, url, path)
			if err != nil && ctx.Err() != nil {
				break // cut by -duration
			}
			t.requests.Add(1)
			switch {
			case err != nil:
				t.fail(err)
				continue
			case !ok:
				t.empty.Add(1)
				continue
			}
			// What a pop leased is acked even past -duration: left
			// unacked, it would hold its partition for a lease.
			settled, err := ack(context.Background(), client, url, o.group, p.Messages)
			mine = append(mine, time.Since(t0))
			t.requests.Add(1)
			if err != nil {
				t.fail(err)
			}
			var n, mineToo int64
			for i, m := range p.Messages {
				if settled[i] {
					n++
					if strings.HasPrefix(m.TransactionID, prefix) {
						mineToo++
					}
				}
			}
			t.records.Add(n)
			if ours.Add(mineToo) >= int64(o.prefill) && doneAt.CompareAndSwap(0, int64(time.Since(t.start))) {
				cancel()
			}
		}
		return mine
	})
	r := t.report()
	e, failed := t.first()
	if failed && r.records == 0 {
		return nil, fmt.Errorf("nothing was acked; the first error: %s", e)
	}
	r.notes = append(r.notes, fmt.Sprintf("prefilled %d records over %d partitions in %.1fs, before the clock",
		o.prefill, o.partitions, filled.Seconds()))
	if d := doneAt.Load(); d != 0 {
		r.elapsed = time.Duration(d)
		r.notes = append(r.notes, fmt.Sprintf("all %d prefilled records acked after %.2fs", o.prefill, r.elapsed.Seconds()))
	} else {
		r.notes = append(r.notes, fmt.Sprintf("stopped at -duration: %d of the %d prefilled records acked", ours.Load(), o.prefill))
	}
	if other := r.records - ours.Load(); other > 0 {
		r.notes = append(r.notes, fmt.Sprintf("%d acked records were older ones of the queue, not this run's", other))
	}
	r.notes = append(r.notes, "latency: a pop and the ack/batch of what it leased, together; empty pops are not in it")
	if failed {
		r.notes = append(r.notes, "first error: "+e)
	}
	return r, nil
}

// runPrefix starts the transaction ids of this run's records.
func runPrefix() string {
	return "qb-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "-"
}

// prefill pushes o.prefill records, transaction ids prefix0, prefix1…,
// record k to partition p-(k mod -partitions), in pushes of 1000 from
// -c connections. A push answered 429 or 503 is sent again: the
// transaction ids make that safe. Every record must be answered queued.
func prefill(o options, client *http.Client, prefix string) error {
	const per = 1000
	payload := padPayload(o.size)
	return inParallel(o.conns, (o.prefill+per-1)/per, func(w, i int) error {
		var b bytes.Buffer
		b.WriteString(`{"items":[`)
		for k := i * per; k < min((i+1)*per, o.prefill); k++ {
			if k > i*per {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"queue":%q,"partition":"p-%d","transactionId":"%s%d","payload":%s}`,
				o.queue, k%o.partitions, prefix, k, payload)
		}
		b.WriteString(`]}`)
		return pushRetrying(client, o.urls[w%len(o.urls)], b.Bytes())
	})
}

// pushRetrying sends a push until it is answered otherwise than 429 or 503
// (at most 20 times), and checks that every record was queued.
func pushRetrying(client *http.Client, url string, body []byte) error {
	for try := 1; ; try++ {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		out, a, err := pushAll(ctx, client, url, body)
		cancel()
		if err != nil && (a.status == http.StatusTooManyRequests || a.status == http.StatusServiceUnavailable) && try < 20 {
			time.Sleep(time.Duration(min(try, 8)) * 250 * time.Millisecond)
			continue
		}
		if err != nil {
			return err
		}
		for i, res := range out {
			if res.Status != "queued" {
				return fmt.Errorf("record %d of a push answered %q, not queued", i, res.Status)
			}
		}
		return nil
	}
}

// popAnswer is the part of a pop's 200 answer a consumer reads.
type popAnswer struct {
	LeaseID  string       `json:"leaseId"`
	Messages []popMessage `json:"messages"`
	at       time.Time    // when the answer arrived
}

type popMessage struct {
	TransactionID string `json:"transactionId"`
	PartitionID   string `json:"partitionId"`
	LeaseID       string `json:"leaseId"`
}

// pop GETs url+path, a pop route with its query; ok is false when the
// broker answered 204. A 200 must lease at least one message.
func pop(ctx context.Context, client *http.Client, url, path string) (p popAnswer, ok bool, err error) {
	a, err := send(ctx, client, url+path, nil)
	p.at = a.at
	if err != nil || a.status == http.StatusNoContent {
		return p, false, err
	}
	if a.status == http.StatusOK && bytes.HasPrefix(a.body, []byte(wire.PopMagic)) {
		return framedPop(a)
	}
	if err := json.Unmarshal(a.body, &p); err != nil || a.status != http.StatusOK || len(p.Messages) == 0 {
		return p, false, fmt.Errorf("pop answered %d: %.200s", a.status, a.body)
	}
	return p, true, nil
}

// popDecoder reads framed pop answers.
var popDecoder = wire.NewDecoder(64 << 20)

// framedPop reads a framed pop answer (QPF1) as pop's popAnswer: every
// message of its claims, with its claim's partition and the lease.
func framedPop(a answer) (p popAnswer, ok bool, err error) {
	p.at = a.at
	f, err := popDecoder.DecodePop(a.body)
	if err != nil {
		return p, false, err
	}
	p.LeaseID = f.LeaseID
	for _, c := range f.Claims {
		pid := strconv.FormatUint(c.PartitionID, 10)
		for _, r := range c.Records {
			for k, fr := range r.Frames {
				if off := r.BaseOffset + uint64(k); off >= c.Start && off <= c.End {
					p.Messages = append(p.Messages, popMessage{TransactionID: fr.TransactionID, PartitionID: pid, LeaseID: f.LeaseID})
				}
			}
		}
	}
	if len(p.Messages) == 0 {
		return p, false, fmt.Errorf("a framed pop answer of %d bytes leased nothing", len(a.body))
	}
	return p, true, nil
}

// ack settles msgs as completed with one ack/batch under their leases and
// says which the broker settled; the error names the first it refused.
func ack(ctx context.Context, client *http.Client, url, group string, msgs []popMessage) ([]bool, error) {
	type item struct {
		TransactionID string `json:"transactionId"`
		PartitionID   string `json:"partitionId"`
		LeaseID       string `json:"leaseId"`
		Status        string `json:"status"`
	}
	items := make([]item, len(msgs))
	for i, m := range msgs {
		items[i] = item{m.TransactionID, m.PartitionID, m.LeaseID, "completed"}
	}
	body, err := json.Marshal(map[string]any{"acknowledgments": items, "consumerGroup": group})
	if err != nil {
		return nil, err
	}
	settled := make([]bool, len(msgs))
	a, err := send(ctx, client, url+"/api/v1/ack/batch", body)
	if err != nil {
		return settled, err
	}
	var out []struct {
		Success bool    `json:"success"`
		Error   *string `json:"error"`
	}
	if err := json.Unmarshal(a.body, &out); err != nil || len(out) != len(msgs) {
		return settled, fmt.Errorf("ack/batch of %d answered %.200s", len(msgs), a.body)
	}
	var first error
	for i, res := range out {
		settled[i] = res.Success
		if !res.Success && first == nil {
			msg := "no reason given"
			if res.Error != nil {
				msg = *res.Error
			}
			first = errors.New("ack of " + msgs[i].TransactionID + " refused: " + msg)
		}
	}
	return settled, first
}
