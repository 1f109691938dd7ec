package lake_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"

	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/s3sink/kvdoc"
)

// fakeBroker answers POST /api/v1/partitions/changed and POST
// /api/v1/fetch (API.md §4) from an in-memory log, in small pages so that
// the client's paging runs: two partitions a page, five records an entry.
type fakeBroker struct {
	queue string
	// log is each partition's records from its log start, in offset
	// order; offsets may skip. start is the log start.
	log   map[string][]lakeformat.Record
	start map[string]int64
	order []string // partitions in creation order
	// listedStart, when set for a partition, is the log start that
	// partitions/changed says, as if retention moved on after it.
	listedStart map[string]int64
	// startPoint, when set, is the sink's start point of the queue that
	// POST /api/v1/kv answers (kvdoc.StartKey); nil: none written.
	startPoint *int64
}

// newFakeBroker is the broker of f: its log from each partition's log
// start.
func newFakeBroker(f *fixture) *fakeBroker {
	b := &fakeBroker{queue: queue, log: map[string][]lakeformat.Record{}, start: map[string]int64{}}
	for _, part := range sortedParts(f.log) {
		s := f.brokerStart[part]
		for _, r := range f.log[part] {
			if r.Offset >= s {
				b.log[part] = append(b.log[part], r)
			}
		}
		b.start[part] = s
		b.order = append(b.order, part)
	}
	return b
}

// record returns the broker's record of part at off, for a test to change.
func (b *fakeBroker) record(t *testing.T, part string, off int64) *lakeformat.Record {
	t.Helper()
	for i := range b.log[part] {
		if b.log[part][i].Offset == off {
			return &b.log[part][i]
		}
	}
	t.Fatalf("the broker has no %s offset %d", part, off)
	return nil
}

// drop removes part's record at off from the broker's log.
func (b *fakeBroker) drop(part string, off int64) {
	b.log[part] = slices.DeleteFunc(b.log[part], func(r lakeformat.Record) bool { return r.Offset == off })
}

// add appends a record to part, creating it when new.
func (b *fakeBroker) add(r lakeformat.Record) {
	if _, ok := b.start[r.Partition]; !ok {
		b.order = append(b.order, r.Partition)
		b.start[r.Partition] = r.Offset
	}
	b.log[r.Partition] = append(b.log[r.Partition], r)
}

// remove forgets partition part.
func (b *fakeBroker) remove(part string) {
	delete(b.log, part)
	delete(b.start, part)
	b.order = slices.DeleteFunc(b.order, func(p string) bool { return p == part })
}

func (b *fakeBroker) high(part string) int64 {
	rs := b.log[part]
	if len(rs) == 0 {
		return b.start[part]
	}
	return rs[len(rs)-1].Offset + 1
}

// serve starts the broker; it stops at the test's cleanup.
func (b *fakeBroker) serve(t *testing.T) string {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v1/partitions/changed", b.changed)
	mux.HandleFunc("POST /api/v1/fetch", b.fetch)
	mux.HandleFunc("POST /api/v1/kv", b.kv)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// decodeRequest decodes r's JSON body into req; when it does not decode,
// it answers 400 bad_body, as the broker does, and false.
func decodeRequest(w http.ResponseWriter, r *http.Request, req any) bool {
	if err := json.NewDecoder(r.Body).Decode(req); err != nil {
		http.Error(w, `{"error":"bad body","code":"bad_body"}`, http.StatusBadRequest)
		return false
	}
	return true
}

func (b *fakeBroker) changed(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Entries []struct {
			Queue string `json:"queue"`
			After string `json:"after"`
			Limit int    `json:"limit"`
		} `json:"entries"`
	}
	if !decodeRequest(w, r, &req) {
		return
	}
	type part struct {
		Name        string `json:"name"`
		ID          string `json:"id"`
		LastOffset  int64  `json:"lastOffset"`
		LogStart    int64  `json:"logStart"`
		LastWriteAt string `json:"lastWriteAt"`
	}
	type entry struct {
		Queue      string  `json:"queue"`
		Partitions []part  `json:"partitions"`
		Next       *string `json:"next"`
		Error      string  `json:"error,omitempty"`
	}
	ans := struct {
		SafeTime         string  `json:"safeTime"`
		SafeTimeDegraded bool    `json:"safeTimeDegraded"`
		Entries          []entry `json:"entries"`
	}{SafeTime: lakeformat.FormatTs(t0 + 120*minute), Entries: []entry{}}
	for _, e := range req.Entries {
		out := entry{Queue: e.Queue, Partitions: []part{}}
		if e.Queue != b.queue {
			out.Error = "UNKNOWN_TOPIC_OR_PARTITION"
			ans.Entries = append(ans.Entries, out)
			continue
		}
		from := 0
		if e.After != "" {
			from, _ = strconv.Atoi(e.After)
		}
		to := min(from+min(e.Limit, 2), len(b.order))
		for i, name := range b.order[from:to] {
			last := b.high(name) - 1
			start, ok := b.listedStart[name]
			if !ok {
				start = b.start[name]
			}
			out.Partitions = append(out.Partitions, part{Name: name, ID: fmt.Sprintf("00000000-0000-7000-8000-%012d", from+i),
				LastOffset: last, LogStart: start, LastWriteAt: lakeformat.FormatTs(t0)})
		}
		if to < len(b.order) {
			next := strconv.Itoa(to)
			out.Next = &next
		}
		ans.Entries = append(ans.Entries, out)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(ans)
}

// fetch renders its answer by hand: payloads go out as stored, raw line
// breaks and all, as the broker writes them.
func (b *fakeBroker) fetch(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Entries []struct {
			Queue     string `json:"queue"`
			Partition string `json:"partition"`
			Offset    int64  `json:"offset"`
		} `json:"entries"`
	}
	if !decodeRequest(w, r, &req) {
		return
	}
	str := func(s string) string { q, _ := json.Marshal(s); return string(q) }
	out := []byte(`{"entries":[`)
	for i, e := range req.Entries {
		if i > 0 {
			out = append(out, ',')
		}
		out = fmt.Appendf(out, `{"queue":%s,"partition":%s,"records":[`, str(e.Queue), str(e.Partition))
		_, known := b.start[e.Partition]
		high, start := b.high(e.Partition), b.start[e.Partition]
		errCode := ""
		switch {
		case e.Queue != b.queue || !known:
			errCode = "UNKNOWN_TOPIC_OR_PARTITION"
		case e.Offset < start || e.Offset > high:
			errCode = "OFFSET_OUT_OF_RANGE"
		default:
			n := 0
			for _, rec := range b.log[e.Partition] {
				if rec.Offset < e.Offset || n == 5 {
					continue
				}
				if n > 0 {
					out = append(out, ',')
				}
				n++
				payload := "null"
				if len(rec.Payload) > 0 {
					payload = string(rec.Payload)
				}
				out = fmt.Appendf(out, `{"offset":%d,"transactionId":%s,"payload":%s,"ts":%s}`,
					rec.Offset, str(rec.TransactionID), payload, str(lakeformat.FormatTs(rec.Ts)))
			}
		}
		out = fmt.Appendf(out, `],"highWatermark":%d,"logStartOffset":%d`, high, start)
		if errCode != "" {
			out = fmt.Appendf(out, `,"error":%s`, str(errCode))
		}
		out = append(out, '}')
	}
	out = append(out, "]}\n"...)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// kv answers one get of the sink's start point.
func (b *fakeBroker) kv(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Operations []struct {
			Op, NS, Key string
		} `json:"operations"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Operations) != 1 ||
		req.Operations[0].Key != kvdoc.StartKey("default", b.queue) {
		http.Error(w, `{"error":"kv_bad_request","reason":"kv_bad_body","detail":"not the start point"}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if b.startPoint == nil {
		fmt.Fprintf(w, `{"results":[{"index":0,"op":"get","found":false,"key":%q}]}`, req.Operations[0].Key)
		return
	}
	fmt.Fprintf(w, `{"results":[{"index":0,"op":"get","found":true,"key":%q,"value":{"tStart":%d,"start":"latest"},"version":3}]}`,
		req.Operations[0].Key, *b.startPoint)
}
