package inproc

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// The regression tests of the hostile-input report (issue 11): each input
// below was answered 200/201 and then did harm; now each is refused with
// the contract's code, naming the field, and stored data is unharmed.

// Finding 1: a dedup window beyond what µs hold wrapped in the queue log's
// apply, and two pushes of one transactionId were both queued.
func TestHugeDedupWindowIsRefused(t *testing.T) {
	for i, v := range []string{"9223372036854775807", "1e400", "9223372036855"} {
		q := fmt.Sprintf("dedup-%d", i)
		w := do(t, "POST", "/api/v1/configure", `{"queue":"`+q+`","options":{"dedupWindowSeconds":`+v+`}}`)
		want(t, w, 400, "bad_request")
		wantMsg(t, w, "dedupWindowSeconds "+v+" is outside 0..315360000 s")
		first, again := push(t, q, "p", "same-id", "1"), push(t, q, "p", "same-id", "1")
		if first.Status != "queued" || *first.Offset != 0 || again.Status != "duplicate" || *again.Offset != 0 {
			t.Fatalf("dedupWindowSeconds %s: pushes answered %+v then %+v, want queued 0 then duplicate 0", v, first, again)
		}
	}
	// The largest window accepted still deduplicates.
	want(t, do(t, "POST", "/api/v1/configure", `{"queue":"dedup-max","options":{"dedupWindowSeconds":315360000}}`), 200, "")
	first, again := push(t, "dedup-max", "p", "same-id", "1"), push(t, "dedup-max", "p", "same-id", "1")
	if first.Status != "queued" || again.Status != "duplicate" || *again.Offset != 0 {
		t.Fatalf("the largest window: %+v then %+v", first, again)
	}
}

// Finding 2: a retention beyond what µs hold wrapped, and one retention
// pass deleted every record.
func TestHugeRetentionIsRefused(t *testing.T) {
	for i, opts := range []string{
		`{"retentionEnabled":true,"retentionSeconds":9223372036854775807}`,
		`{"retentionEnabled":true,"retentionSeconds":1e400}`,
		`{"completedRetentionSeconds":9223372036854775807}`,
		`{"completedRetentionSeconds":1e400}`,
	} {
		q := fmt.Sprintf("retention-%d", i)
		w := do(t, "POST", "/api/v1/configure", `{"queue":"`+q+`","options":`+opts+`}`)
		want(t, w, 400, "bad_request")
		wantMsg(t, w, "is outside 0..315360000 s")
	}
	// The largest retention accepted keeps every record through a pass.
	const q = "retention-max"
	want(t, do(t, "POST", "/api/v1/configure", `{"queue":"`+q+`","options":{"retentionEnabled":true,"retentionSeconds":315360000,"completedRetentionSeconds":315360000}}`), 200, "")
	for i := range 5 {
		push(t, q, "p", "", fmt.Sprint(i))
	}
	node.Retention.Once(ctx(t))
	if f := fetch(t, q, "p", 0); f.Error != "" || f.LogStartOffset != 0 || len(f.Records) != 5 {
		t.Fatalf("after a retention pass: %+v", f)
	}
}

// Finding 3: distinct invalid-UTF-8 transactionIds became one (each byte
// replaced by U+FFFD), and the later ones were dropped as duplicates.
func TestInvalidUTF8TransactionIDs(t *testing.T) {
	const q = "txid-utf8"
	for _, id := range []string{"x\xff", "x\xfe", `x\ud800`, `x\udc00`, `x\ud800\u0041`} {
		w := do(t, "POST", "/api/v1/push", `{"items":[{"queue":"`+q+`","payload":1},{"queue":"`+q+`","payload":2,"transactionId":"`+id+`"}]}`)
		want(t, w, 400, "bad_request")
		wantMsg(t, w, "items[1].transactionId", "not valid UTF-8")
	}
	// U+FFFD itself is a character like any other: stored once, then a
	// duplicate, whether sent as its UTF-8 bytes or as its escape.
	first := push(t, q, "p", "x\uFFFD", "1")
	w := do(t, "POST", "/api/v1/push", `{"items":[{"queue":"`+q+`","partition":"p","payload":1,"transactionId":"x\uFFFD"}]}`)
	want(t, w, 201, "")
	var again []pushAnswer
	if err := json.Unmarshal(w.Body.Bytes(), &again); err != nil || first.Status != "queued" || again[0].Status != "duplicate" ||
		*again[0].Offset != *first.Offset {
		t.Fatalf("x\\uFFFD: %+v then %s", first, w.Body)
	}
	if f := fetch(t, q, "p", 0); len(f.Records) != 1 || f.Records[0].TransactionID != "x\uFFFD" {
		t.Fatalf("stored %+v", f)
	}
}

// Finding 4: a payload of invalid UTF-8 was stored and served raw, and a
// strict JSON reader could then read no page holding it.
func TestInvalidUTF8Payload(t *testing.T) {
	const q = "payload-utf8"
	push(t, q, "p", "", `"before"`)
	for _, p := range []string{"\"a\xffb\"", `"\ud800"`, "{\"k\xff\":1}", "[1,\"\xc3\"]"} {
		w := do(t, "POST", "/api/v1/push", `{"items":[{"queue":"`+q+`","payload":1},{"queue":"`+q+`","payload":`+p+`}]}`)
		want(t, w, 400, "bad_request")
		wantMsg(t, w, "items[1].payload", "not valid UTF-8")
	}
	push(t, q, "p", "", `"after"`)
	w := do(t, "POST", "/api/v1/fetch", `{"entries":[{"queue":"`+q+`","partition":"p","offset":0}]}`)
	want(t, w, 200, "")
	if !utf8.Valid(w.Body.Bytes()) || !json.Valid(w.Body.Bytes()) || strings.Count(w.Body.String(), `"offset"`) != 2 {
		t.Fatalf("the page is not two records of strict JSON: %s", w.Body)
	}
}

// Finding 5: names had no bound. A queue or partition name over its bound
// is 413 name_too_long, on push and on every other route (httpd's
// TestEveryRouteBoundsItsNames walks them all).
func TestLongNamesAreRefused(t *testing.T) {
	huge := strings.Repeat("n", 2<<20)
	for _, body := range []string{
		`{"items":[{"queue":"` + huge + `","payload":1}]}`,
		`{"items":[{"queue":"q","partition":"` + huge + `","payload":1}]}`,
		`{"items":[{"queue":"` + strings.Repeat("q", 257) + `","payload":1}]}`,
		`{"items":[{"queue":"q","partition":"` + strings.Repeat("p", 1025) + `","payload":1}]}`,
	} {
		w := do(t, "POST", "/api/v1/push", body)
		want(t, w, 413, "name_too_long")
		if w.Body.Len() >= 1024 {
			t.Fatalf("error body of %d bytes", w.Body.Len())
		}
	}
	// At the bounds, names are accepted.
	q, p := strings.Repeat("q", 256), strings.Repeat("p", 1024)
	if a := push(t, q, p, "", "1"); a.Status != "queued" {
		t.Fatalf("names at the bound: %+v", a)
	}
}

// Also: negative leaseTime, retryLimit and dedupWindowSeconds were accepted.
func TestNegativeOptionsAreRefused(t *testing.T) {
	for opt, rng := range map[string]string{"leaseTime": "0..604800 s", "retryLimit": "0..10000 retries", "dedupWindowSeconds": "0..315360000 s"} {
		w := do(t, "POST", "/api/v1/configure", `{"queue":"neg","options":{"`+opt+`":-1}}`)
		want(t, w, 400, "bad_request")
		wantMsg(t, w, opt+" -1 is outside "+rng)
	}
}

// Also: NUL, newline, control characters, "/" and ".." in queue and
// partition names were accepted. A partition may hold "/" (it is
// percent-encoded in paths and lake keys); nothing else of these.
func TestNameCharacters(t *testing.T) {
	for _, c := range []struct{ field, name, msg string }{
		{"queue", `a\u0000b`, "control character U+0000"},
		{"queue", `a\nb`, "control character U+000A"},
		{"queue", `a\u007fb`, "control character U+007F"},
		{"queue", `a\u0085b`, "control character U+0085"},
		{"queue", "a/b", `holds '/'`},
		{"queue", "..", `"." and ".." are refused`},
		{"queue", ".", `"." and ".." are refused`},
		{"partition", `a\u0000b`, "control character U+0000"},
		{"partition", `a\tb`, "control character U+0009"},
		{"partition", "..", `"." and ".." are refused`},
	} {
		item := `{"queue":"names","partition":"p","payload":1}`
		if c.field == "queue" {
			item = `{"queue":"` + c.name + `","payload":1}`
		} else {
			item = `{"queue":"names","partition":"` + c.name + `","payload":1}`
		}
		w := do(t, "POST", "/api/v1/push", `{"items":[`+item+`]}`)
		want(t, w, 400, "bad_request")
		wantMsg(t, w, "items[0]."+c.field, c.msg)
	}
	if a := push(t, "names", "eu west/1", "", "1"); a.Status != "queued" {
		t.Fatalf("a partition with '/': %+v", a)
	}
	w := do(t, "GET", "/api/v1/pop/queue/names/partition/%2E%2E", "")
	want(t, w, 400, "bad_request")
}

// Also: leaseSeconds=99999999999999999999 answered "raftlog: rejected:
// consume: corrupt: bad pop bounds", internal words naming no parameter.
func TestHugeLeaseSeconds(t *testing.T) {
	push(t, "lease-q", "p", "", "1")
	for _, v := range []string{"99999999999999999999", "9223372036854775807", "604801", "0", "-1"} {
		w := do(t, "GET", "/api/v1/pop/queue/lease-q?leaseSeconds="+v, "")
		want(t, w, 400, "bad_request")
		wantMsg(t, w, `leaseSeconds "`+v+`" is outside 1..604800 s`)
		if strings.Contains(w.Body.String(), "raftlog") || strings.Contains(w.Body.String(), "corrupt") {
			t.Fatalf("internal words: %s", w.Body)
		}
	}
	w := do(t, "POST", "/api/v1/lease/some-lease/extend", `{"seconds":1e400}`)
	want(t, w, 400, "bad_request")
	wantMsg(t, w, "seconds 1e400 is outside 1..604800 s")
}

// Also: a body nested 100,000 deep answered only "the body is not JSON".
func TestDeepBody(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	for _, target := range []string{"/api/v1/push", "/api/v1/fetch", "/api/v1/kv", "/api/v1/configure", "/api/v1/transaction"} {
		w := do(t, "POST", target, `{"items":[{"queue":"q","payload":`+deep+`}]}`)
		if target == "/api/v1/kv" {
			want(t, w, 400, "kv_bad_body")
		} else {
			want(t, w, 400, "bad_body")
		}
		wantMsg(t, w, "nest more than 128 deep", "at most 128")
	}
}

// Also: 14 error bodies echoed the whole bad input back, up to 1 MiB.
// Every refusal quotes at most 64 bytes of a value, and no error body
// reaches 1 KiB.
func TestErrorBodiesAreShort(t *testing.T) {
	M := strings.Repeat("v", 1<<20)
	cases := []struct{ method, target, body string }{
		{"POST", "/api/v1/configure", `{"queue":"q","mode":"` + M + `"}`},
		{"POST", "/api/v1/configure", `{"queue":"q","options":{"retentionSinkHold":"` + M + `"}}`},
		{"POST", "/api/v1/fetch/offsets", `{"entries":[{"queue":"q","timestamp":"` + M + `"}]}`},
		{"POST", "/api/v1/partitions/changed", `{"entries":[{"queue":"q","since":"` + M + `"}]}`},
		{"POST", "/api/v1/transaction", `{"operations":[{"type":"` + M + `"}]}`},
		{"POST", "/api/v1/ack", `{"transactionId":"t","partitionId":"` + M + `"}`},
		{"POST", "/api/v1/kv", `[{"op":"` + M + `","ns":"a","key":"k"}]`},
		{"POST", "/api/v1/kv", `[{"op":"get","ns":"A` + M + `","key":"k"}]`},
		{"POST", "/api/v1/kv", `[{"op":"put","ns":"a","key":"k","value":1,"ttlSeconds":"` + M + `"}]`},
		{"POST", "/api/v1/consumer-groups/g/queues/q/seek", `{"timestamp":"` + M + `"}`},
		{"GET", "/api/v1/pop/queue/q?subscriptionMode=" + M, ""},
		{"GET", "/api/v1/pop/queue/q?batch=" + M, ""},
		{"GET", "/api/v1/messages?queue=q&status=" + M, ""},
		{"GET", "/api/v1/messages?queue=q&from=" + M, ""},
		{"GET", "/api/v1/dlq?limit=" + M, ""},
		{"GET", "/api/v1/consumer-groups/lagging?minLag=" + M, ""},
		{"POST", "/api/v1/dlq/0195f3a2-7b4c-7d1e-9c2b-3f4a5b6c7d8e/replay", `{"partition":"` + strings.Repeat("p", 1000) + `"}`},
		{"GET", "/api/v1/kv/a/k?" + M, ""},
		{"POST", "/api/v1/push", `{"items":[{"queue":"q","payload":1,"transactionId":"` + M + `"}]}`},
	}
	for _, c := range cases {
		w := do(t, c.method, c.target, c.body)
		if w.Code < 400 || w.Code >= 500 {
			t.Errorf("%s %.60s: status %d", c.method, c.target, w.Code)
		}
		if w.Body.Len() >= 1024 || strings.Contains(w.Body.String(), strings.Repeat("v", 65)) {
			t.Errorf("%s %.60s %.60s: error body of %d bytes: %.200s", c.method, c.target, c.body, w.Body.Len(), w.Body)
		}
	}
}
