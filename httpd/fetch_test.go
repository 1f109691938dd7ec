package httpd

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestFetchDefaults(t *testing.T) {
	cases := []struct {
		name, body string
		want       FetchRequest
	}{
		{"defaults", `{"entries":[{"queue":"q","offset":0}]}`,
			FetchRequest{MinBytes: 1, Entries: []FetchQuery{{Queue: "q", Partition: "Default", MaxBytes: 1 << 20}}}},
		{"null partition", `{"entries":[{"queue":"q","partition":null,"offset":3}]}`,
			FetchRequest{MinBytes: 1, Entries: []FetchQuery{{Queue: "q", Partition: "Default", Offset: 3, MaxBytes: 1 << 20}}}},
		{"number partition", `{"entries":[{"queue":"q","partition":12,"offset":3}]}`,
			FetchRequest{MinBytes: 1, Entries: []FetchQuery{{Queue: "q", Partition: "12", Offset: 3, MaxBytes: 1 << 20}}}},
		{"maxBytes 0 clamps to 1", `{"entries":[{"queue":"q","partition":"p","offset":0,"maxBytes":0}]}`,
			FetchRequest{MinBytes: 1, Entries: []FetchQuery{{Queue: "q", Partition: "p", MaxBytes: 1}}}},
		{"maxBytes negative clamps to 1", `{"entries":[{"queue":"q","offset":0,"maxBytes":-5}]}`,
			FetchRequest{MinBytes: 1, Entries: []FetchQuery{{Queue: "q", Partition: "Default", MaxBytes: 1}}}},
		{"maxBytes clamps to 8 MiB", `{"entries":[{"queue":"q","offset":0,"maxBytes":9000000000000000000}]}`,
			FetchRequest{MinBytes: 1, Entries: []FetchQuery{{Queue: "q", Partition: "Default", MaxBytes: 8 << 20}}}},
		{"maxBytes kept", `{"entries":[{"queue":"q","offset":0,"maxBytes":4096}]}`,
			FetchRequest{MinBytes: 1, Entries: []FetchQuery{{Queue: "q", Partition: "Default", MaxBytes: 4096}}}},
		{"wait and minBytes", `{"entries":[{"queue":"q","offset":0}],"maxWaitMs":500,"minBytes":0}`,
			FetchRequest{MaxWaitMs: 500, Entries: []FetchQuery{{Queue: "q", Partition: "Default", MaxBytes: 1 << 20}}}},
		{"wait clamps to 30000", `{"entries":[{"queue":"q","offset":0}],"maxWaitMs":45000,"minBytes":100}`,
			FetchRequest{MaxWaitMs: 30000, MinBytes: 100, Entries: []FetchQuery{{Queue: "q", Partition: "Default", MaxBytes: 1 << 20}}}},
		{"negative wait clamps to 0", `{"entries":[{"queue":"q","offset":0}],"maxWaitMs":-1}`,
			FetchRequest{MinBytes: 1, Entries: []FetchQuery{{Queue: "q", Partition: "Default", MaxBytes: 1 << 20}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil, Options{})
			wantStatus(t, e.do(t, "POST", "/api/v1/fetch", c.body), http.StatusOK)
			got := e.fb.only(t)
			if fmt.Sprint(got.arg) != fmt.Sprint(c.want) || got.tenant != DefaultTenant {
				t.Fatalf("broker got %s %+v, want %+v", got.tenant, got.arg, c.want)
			}
		})
	}
}

func TestFetchRefusals(t *testing.T) {
	many := `{"entries":[` + strings.TrimSuffix(strings.Repeat(`{"queue":"q","offset":0},`, MaxEntries+1), ",") + `]}`
	wantRefusals(t, "POST", "/api/v1/fetch", []refusalCase{
		{"malformed", `{"entries":`, CodeBadBody, "not JSON"},
		{"too many entries", many, CodeBadRequest, "1025 entries, at most 1024"},
		{"negative offset", `{"entries":[{"queue":"q","offset":0},{"queue":"q","offset":-1}]}`, CodeBadRequest, "entries[1].offset -1 is outside 0..9223372036854775807"},
		{"no offset", `{"entries":[{"queue":"q"}]}`, CodeBadRequest, "entries[0].offset is required"},
		{"offset a string", `{"entries":[{"queue":"q","offset":"1"}]}`, CodeBadRequest, `entries[0].offset "1" must be an integer in`},
		{"offset a fraction", `{"entries":[{"queue":"q","offset":1.5}]}`, CodeBadRequest, "entries[0].offset 1.5 must be an integer in"},
		{"no queue", `{"entries":[{"offset":0}]}`, CodeBadRequest, "entries[0].queue is required"},
		{"partition a bool", `{"entries":[{"queue":"q","offset":0,"partition":true}]}`, CodeBadRequest, "partition must be a string or a number"},
		{"maxBytes a string", `{"entries":[{"queue":"q","offset":0,"maxBytes":"1"}]}`, CodeBadRequest, `entries[0].maxBytes "1" must be an integer in 1..8388608 bytes`},
		{"entries an object", `{"entries":{}}`, CodeBadRequest, "entries must be an array"},
		{"entry a string", `{"entries":["q"]}`, CodeBadRequest, "entries[0] must be an object"},
		{"maxWaitMs a bool", `{"entries":[],"maxWaitMs":true}`, CodeBadRequest, "maxWaitMs true must be an integer in 0..30000 ms"},
		{"maxBytes beyond int64", `{"entries":[{"queue":"q","offset":0,"maxBytes":9000000000000000000000}]}`, CodeBadRequest,
			"entries[0].maxBytes 9000000000000000000000 is outside 1..8388608 bytes"},
		{"offset 1e400", `{"entries":[{"queue":"q","offset":1e400}]}`, CodeBadRequest, "entries[0].offset 1e400 is outside 0..9223372036854775807"},
	})
}

func TestFetchEmpty(t *testing.T) {
	for _, body := range []string{`{"entries":[]}`, `{}`, `{"entries":null}`} {
		e := newEnv(t, nil, Options{})
		w := e.do(t, "POST", "/api/v1/fetch", body)
		wantJSON(t, w, http.StatusOK, `{"entries":[]}`)
		e.fb.none(t)
	}
}

// TestFetchRendering: payloads as stored, null when empty, ts in ISO with
// six fractional digits, error only when set.
func TestFetchRendering(t *testing.T) {
	fb := &fakeBroker{fetch: func(context.Context, string, FetchRequest) ([]FetchEntry, error) {
		return []FetchEntry{
			{Queue: "q", Partition: "Default", HighWatermark: 44, LogStartOffset: 2, Records: []FetchRecord{
				{Offset: 42, TransactionID: `t"1<`, Payload: []byte(`42.00`), Ts: 1_758_536_130_000_001},
				{Offset: 43, TransactionID: "t2", Payload: []byte(`{ "a" :  1 }`), Ts: 0},
				{Offset: 44, TransactionID: "t3", Ts: 1_758_536_130_123_400},
			}},
			{Queue: "gone", Partition: "p\u2028", Error: "UNKNOWN_TOPIC_OR_PARTITION"},
		}, nil
	}}
	e := newEnv(t, fb, Options{})
	w := e.do(t, "POST", "/api/v1/fetch", `{"entries":[{"queue":"q","offset":42},{"queue":"gone","offset":0}]}`)
	want := `{"entries":[{"queue":"q","partition":"Default","records":[` +
		`{"offset":42,"transactionId":"t\"1<","payload":42.00,"ts":"2025-09-22T10:15:30.000001Z"},` +
		`{"offset":43,"transactionId":"t2","payload":{ "a" :  1 },"ts":"1970-01-01T00:00:00.000000Z"},` +
		`{"offset":44,"transactionId":"t3","payload":null,"ts":"2025-09-22T10:15:30.123400Z"}],` +
		`"highWatermark":44,"logStartOffset":2},` +
		`{"queue":"gone","partition":"p\u2028","records":[],"highWatermark":0,"logStartOffset":0,"error":"UNKNOWN_TOPIC_OR_PARTITION"}]}` + "\n"
	wantBody(t, w, http.StatusOK, want)
}

func TestFetchBrokerAnswersOtherCount(t *testing.T) {
	fb := &fakeBroker{fetch: func(context.Context, string, FetchRequest) ([]FetchEntry, error) { return nil, nil }}
	e := newEnv(t, fb, Options{})
	wantError(t, e.do(t, "POST", "/api/v1/fetch", `{"entries":[{"queue":"q","offset":0}]}`),
		http.StatusInternalServerError, CodeInternal, "")
}

func TestAppendString(t *testing.T) {
	cases := map[string]string{
		"plain":        `"plain"`,
		"q\"b\\":       `"q\"b\\"`,
		"\n\r\t\x01":   `"\n\r\t\u0001"`,
		"<&>":          `"<&>"`,
		"é😀":           `"é😀"`,
		"bad\xffutf8":  `"bad\ufffdutf8"`,
		"\u2028\u2029": `"\u2028\u2029"`,
	}
	for in, want := range cases {
		if got := string(appendString(nil, in)); got != want {
			t.Errorf("appendString(%q) = %s, want %s", in, got, want)
		}
	}
}
