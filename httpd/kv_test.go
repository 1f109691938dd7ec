package httpd

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/contract"
)

func i64(n int64) *int64 { return &n }

// answerKV makes a fake KV that answers body.
func answerKV(body string) *fakeBroker {
	return &fakeBroker{kv: func(context.Context, string, []KVOp) (json.Marshaler, error) { return rawAnswer(body), nil }}
}

func TestKVCallOps(t *testing.T) {
	cases := []struct {
		name, body string
		want       []KVOp
	}{
		{"operations", `{"operations":[{"op":"get","ns":"app","key":"k"}]}`,
			[]KVOp{{Op: "get", NS: "app", Key: "k"}}},
		{"bare array", `[{"op":"get","ns":"app","key":"k"},{"op":"getMany","ns":"app","keys":["a","b"]}]`,
			[]KVOp{{Op: "get", NS: "app", Key: "k"}, {Op: "getMany", NS: "app", Keys: []string{"a", "b"}}}},
		{"namespace alias", `[{"op":"get","namespace":"app","key":"k"}]`,
			[]KVOp{{Op: "get", NS: "app", Key: "k"}}},
		{"put", `[{"op":"put","ns":"app","key":"k","value": { "a" : 1.50 },"ttlSeconds":30,"expect":0,"required":true}]`,
			[]KVOp{{Op: "put", NS: "app", Key: "k", Value: json.RawMessage(`{ "a" : 1.50 }`), TTLSeconds: i64(30), Expect: i64(0), Required: true}}},
		{"null value", `[{"op":"put","ns":"app","key":"k","value":null,"forever":true}]`,
			[]KVOp{{Op: "put", NS: "app", Key: "k", Value: json.RawMessage(`null`), Forever: true}}},
		{"incr", `[{"op":"incr","ns":"app","key":"n","delta":0.10,"min":-1,"max":1e3,"forever":true}]`,
			[]KVOp{{Op: "incr", NS: "app", Key: "n", Delta: "0.10", Min: "-1", Max: "1e3", Forever: true}}},
		{"getPrefix", `[{"op":"getPrefix","ns":"app","prefix":"a/","after":"a/b","limit":5,"keysOnly":true}]`,
			[]KVOp{{Op: "getPrefix", NS: "app", Prefix: "a/", After: "a/b", Limit: 5, KeysOnly: true}}},
		{"nulls are absent", `[{"op":"delete","ns":"app","key":"k","expect":null,"ttlSeconds":null,"delta":null}]`,
			[]KVOp{{Op: "delete", NS: "app", Key: "k"}}},
		{"no ops", `{"operations":[]}`, []KVOp{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil, Options{})
			wantJSON(t, e.do(t, "POST", "/api/v1/kv", c.body), http.StatusOK, `{"results":[]}`)
			e.fb.wantCall(t, "KV", c.want)
		})
	}
}

func TestKVCallAnswers(t *testing.T) {
	for _, body := range []string{
		`{"results":[{"index":0,"op":"get","found":true,"key":"k","value":42.00,"version":3,"expiresAt":null,"updatedAt":"2026-09-22T10:15:30.1234+00:00"}]}`,
		`{"ok":false,"reason":"kv_precondition","failedIndex":0,"kvReason":"version","version":4,"value":1}`,
	} {
		e := newEnv(t, answerKV(body), Options{})
		w := e.do(t, "POST", "/api/v1/kv", `[{"op":"get","ns":"a","key":"k"}]`)
		wantBody(t, w, http.StatusOK, body+"\n")
	}
}

func TestKVCallRefusals(t *testing.T) {
	cases := []struct {
		name, body, reason string
	}{
		{"malformed", `{"operations":[`, ReasonKVBadBody},
		{"empty", ``, ReasonKVBadBody},
		{"no operations", `{}`, ReasonKVBadBody},
		{"operations an object", `{"operations":{}}`, ReasonKVBadBody},
		{"a string", `"get"`, ReasonKVBadBody},
		{"op not an object", `[1]`, ReasonKVBadBody},
		{"tenant", `[{"op":"get","ns":"a","key":"k","tenant":"t"}]`, ReasonKVTenantNotInput},
		{"op a number", `[{"op":1}]`, "kv_unknown_op"},
		{"ns a number", `[{"op":"get","ns":1,"key":"k"}]`, ReasonKVBadNamespace},
		{"ns and namespace differ", `[{"op":"get","ns":"a","namespace":"b","key":"k"}]`, ReasonKVBadNamespace},
		{"key a number", `[{"op":"get","ns":"a","key":1}]`, ReasonKVBadKey},
		{"keys a string", `[{"op":"getMany","ns":"a","keys":"k"}]`, ReasonKVBadKey},
		{"keys of numbers", `[{"op":"getMany","ns":"a","keys":["k",2]}]`, ReasonKVBadKey},
		{"prefix a bool", `[{"op":"getPrefix","ns":"a","prefix":true}]`, ReasonKVBadKey},
		{"ttl a string", `[{"op":"put","ns":"a","key":"k","value":1,"ttlSeconds":"30"}]`, "kv_bad_ttl"},
		{"forever a string", `[{"op":"put","ns":"a","key":"k","value":1,"forever":"yes"}]`, "kv_bad_ttl"},
		{"expect a string", `[{"op":"put","ns":"a","key":"k","value":1,"forever":true,"expect":"3"}]`, "kv_bad_expect"},
		{"delta a string", `[{"op":"incr","ns":"a","key":"k","delta":"1","forever":true}]`, "kv_bad_delta"},
		{"min a bool", `[{"op":"incr","ns":"a","key":"k","delta":1,"min":false,"forever":true}]`, "kv_bad_bounds"},
		{"limit a string", `[{"op":"getPrefix","ns":"a","prefix":"p","limit":"5"}]`, ReasonKVBadField},
		{"required a number", `[{"op":"check","ns":"a","key":"k","expect":1,"required":1}]`, ReasonKVBadField},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil, Options{})
			wantKVError(t, e.do(t, "POST", "/api/v1/kv", c.body), http.StatusBadRequest, CodeKVBadRequest, c.reason)
			e.fb.none(t)
		})
	}
}

// TestKVBrokerErrors: the broker's *Error with a reason is answered in the
// KV shape with its status.
func TestKVBrokerErrors(t *testing.T) {
	cases := []*Error{
		{Status: 400, Code: "kv_bad_request", Reason: "kv_bad_ttl", Detail: "ttlSeconds 0 is outside 1..3153600000"},
		{Status: 413, Code: "payload_too_large", Reason: "kv_value_too_large", Detail: "value of 70000 bytes"},
		{Status: 429, Code: "kv_bad_request", Reason: "kv_rate_limited", Detail: "slow down"},
	}
	for _, want := range cases {
		t.Run(want.Reason, func(t *testing.T) {
			fb := &fakeBroker{kv: func(context.Context, string, []KVOp) (json.Marshaler, error) { return nil, want }}
			e := newEnv(t, fb, Options{})
			w := e.do(t, "POST", "/api/v1/kv", `[{"op":"put","ns":"a","key":"k","value":1,"ttlSeconds":0}]`)
			b := wantKVError(t, w, want.Status, want.Code, want.Reason)
			if b.Detail != want.Detail {
				t.Fatalf("detail = %q", b.Detail)
			}
			if ra := w.Header().Get("Retry-After"); (ra == "1") != (want.Status == 429) {
				t.Fatalf("Retry-After = %q", ra)
			}
		})
	}
}

// TestKVRefusal: the class of a refusal of contract.CheckKVCall is its
// status, answered in the KV shape with its reason and detail.
func TestKVRefusal(t *testing.T) {
	cases := []struct {
		reason string
		status int
		code   string
	}{
		{contract.KVReasonBadTTL, 400, "kv_bad_request"},
		{contract.KVReasonBadNamespace, 400, "kv_bad_request"},
		{contract.KVReasonKeyTooLarge, 413, "payload_too_large"},
		{contract.KVReasonValueTooLarge, 413, "payload_too_large"},
	}
	for _, c := range cases {
		t.Run(c.reason, func(t *testing.T) {
			ke := &contract.KVError{Reason: c.reason, Index: 0, Detail: "what was wrong"}
			fb := &fakeBroker{kv: func(context.Context, string, []KVOp) (json.Marshaler, error) { return nil, KVRefusal(ke) }}
			e := newEnv(t, fb, Options{})
			w := e.do(t, "POST", "/api/v1/kv", `[{"op":"put","ns":"a","key":"k","value":1,"ttlSeconds":0}]`)
			if b := wantKVError(t, w, c.status, c.code, c.reason); b.Detail != ke.Detail {
				t.Fatalf("detail = %q", b.Detail)
			}
		})
	}
}

func TestKVGet(t *testing.T) {
	hit := `{"index":0,"op":"get","found":true,"key":"a/b c","value":42.00,"version":17,"expiresAt":null,"updatedAt":"2026-09-22T10:15:30.1234+00:00"}`
	fb := answerKV(`{"results":[` + hit + `]}`)
	e := newEnv(t, fb, Options{})
	w := e.do(t, "GET", "/api/v1/kv/app/a/b%20c", "")
	wantBody(t, w, http.StatusOK, hit+"\n")
	if et := w.Header().Get("ETag"); et != `"17"` {
		t.Fatalf("ETag = %q", et)
	}
	if got, want := fb.only(t).arg, []KVOp{{Op: "get", NS: "app", Key: "a/b c"}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("broker got %#v", got)
	}

	miss := `{"index":0,"op":"get","found":false,"key":"k"}`
	e = newEnv(t, answerKV(`{"results":[`+miss+`]}`), Options{})
	w = e.do(t, "GET", "/api/v1/kv/app/k", "")
	wantBody(t, w, http.StatusOK, miss+"\n")
	if w.Header().Get("ETag") != "" {
		t.Fatalf("miss ETag %q", w.Header().Get("ETag"))
	}
}

// TestKVPathKey: the key is the rest of the path, unescaped, slashes and
// all.
func TestKVPathKey(t *testing.T) {
	cases := map[string]string{
		"/api/v1/kv/app/k":            "k",
		"/api/v1/kv/app/a/b/c":        "a/b/c",
		"/api/v1/kv/app/a%2Fb":        "a/b",
		"/api/v1/kv/app/%E2%82%AC%20": "€ ",
		"/api/v1/kv/a.b-c_d/x":        "x",
	}
	for path, want := range cases {
		e := newEnv(t, answerKV(`{"results":[{"index":0}]}`), Options{})
		wantStatus(t, e.do(t, "GET", path, ""), http.StatusOK)
		if got := e.fb.only(t).arg.([]KVOp)[0].Key; got != want {
			t.Errorf("%s: key %q, want %q", path, got, want)
		}
	}
}

func TestKVPut(t *testing.T) {
	elem := `{"index":0,"op":"put","applied":true,"key":"k","value":{"a":1},"version":9}`
	fb := answerKV(`{"results":[` + elem + `]}`)
	e := newEnv(t, fb, Options{})
	w := e.do(t, "PUT", "/api/v1/kv/app/k", `{"value": {"a":  1},"ttlSeconds":60,"expect":8,"required":true,"delta":5}`)
	wantBody(t, w, http.StatusOK, elem+"\n")
	if w.Header().Get("ETag") != "" {
		t.Fatalf("ETag %q", w.Header().Get("ETag"))
	}
	want := []KVOp{{Op: "put", NS: "app", Key: "k", Value: json.RawMessage(`{"a":  1}`), TTLSeconds: i64(60), Expect: i64(8), Required: true}}
	if got := fb.only(t).arg; !reflect.DeepEqual(got, want) {
		t.Fatalf("broker got %#v", got)
	}
}

// TestKVSinglePrecondition: a lost required op answers the whole
// kv_precondition body, 200.
func TestKVSinglePrecondition(t *testing.T) {
	body := `{"ok":false,"reason":"kv_precondition","failedIndex":0,"kvReason":"version","version":4,"value":1}`
	e := newEnv(t, answerKV(body), Options{})
	w := e.do(t, "PUT", "/api/v1/kv/app/k", `{"value":2,"forever":true,"expect":3,"required":true}`)
	wantBody(t, w, http.StatusOK, body+"\n")
}

func TestKVDelete(t *testing.T) {
	cases := []struct {
		name, body string
		want       KVOp
	}{
		{"no body", "", KVOp{Op: "delete", NS: "app", Key: "k"}},
		{"blank body", " \n", KVOp{Op: "delete", NS: "app", Key: "k"}},
		{"expect", `{"expect":4,"required":true}`, KVOp{Op: "delete", NS: "app", Key: "k", Expect: i64(4), Required: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, answerKV(`{"results":[{"index":0,"op":"delete","applied":true,"key":"k","version":0}]}`), Options{})
			wantJSON(t, e.do(t, "DELETE", "/api/v1/kv/app/k", c.body), http.StatusOK,
				`{"index":0,"op":"delete","applied":true,"key":"k","version":0}`)
			if got := e.fb.only(t).arg; !reflect.DeepEqual(got, []KVOp{c.want}) {
				t.Fatalf("broker got %#v", got)
			}
		})
	}
}

func TestKVSingleRefusals(t *testing.T) {
	cases := []struct {
		name, method, path, body string
		status                   int
		code, reason             string
	}{
		{"query on get", "GET", "/api/v1/kv/app/k?x=1", "", 400, CodeKVBadRequest, ReasonKVNoQueryString},
		{"bare ? on get", "GET", "/api/v1/kv/app/k?", "", 400, CodeKVBadRequest, ReasonKVNoQueryString},
		{"query on put", "PUT", "/api/v1/kv/app/k?ttl=1", `{"value":1}`, 400, CodeKVBadRequest, ReasonKVNoQueryString},
		{"query on delete", "DELETE", "/api/v1/kv/app/k?a", "", 400, CodeKVBadRequest, ReasonKVNoQueryString},
		{"op in body", "PUT", "/api/v1/kv/app/k", `{"op":"put","value":1}`, 400, CodeKVBadRequest, ReasonKVFieldInPath},
		{"ns in body", "PUT", "/api/v1/kv/app/k", `{"ns":"app","value":1}`, 400, CodeKVBadRequest, ReasonKVFieldInPath},
		{"namespace in body", "DELETE", "/api/v1/kv/app/k", `{"namespace":"app"}`, 400, CodeKVBadRequest, ReasonKVFieldInPath},
		{"key in body", "DELETE", "/api/v1/kv/app/k", `{"key":"k"}`, 400, CodeKVBadRequest, ReasonKVFieldInPath},
		{"tenant in body", "PUT", "/api/v1/kv/app/k", `{"tenant":"t","value":1}`, 400, CodeKVBadRequest, ReasonKVTenantNotInput},
		{"upper-case ns", "GET", "/api/v1/kv/App/k", "", 400, CodeKVBadRequest, ReasonKVBadNamespace},
		{"ns starts with dot", "GET", "/api/v1/kv/.app/k", "", 400, CodeKVBadRequest, ReasonKVBadNamespace},
		{"ns too long", "GET", "/api/v1/kv/" + strings.Repeat("a", 65) + "/k", "", 400, CodeKVBadRequest, ReasonKVBadNamespace},
		{"ns with escaped slash", "GET", "/api/v1/kv/a%2Fb/k", "", 400, CodeKVBadRequest, ReasonKVBadNamespace},
		{"empty key", "GET", "/api/v1/kv/app/", "", 400, CodeKVBadRequest, ReasonKVBadKey},
		{"NUL in key", "GET", "/api/v1/kv/app/a%00b", "", 400, CodeKVBadRequest, ReasonKVBadKey},
		{"key too large", "GET", "/api/v1/kv/app/" + strings.Repeat("k", 513), "", 413, CodePayloadTooLarge, ReasonKVKeyTooLarge},
		{"malformed put body", "PUT", "/api/v1/kv/app/k", `{"value":`, 400, CodeKVBadRequest, ReasonKVBadBody},
		{"empty put body", "PUT", "/api/v1/kv/app/k", ``, 400, CodeKVBadRequest, ReasonKVBadBody},
		{"put body an array", "PUT", "/api/v1/kv/app/k", `[1]`, 400, CodeKVBadRequest, ReasonKVBadBody},
		{"expect a string", "DELETE", "/api/v1/kv/app/k", `{"expect":"1"}`, 400, CodeKVBadRequest, "kv_bad_expect"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil, Options{})
			wantKVError(t, e.do(t, c.method, c.path, c.body), c.status, c.code, c.reason)
			e.fb.none(t)
		})
	}
}

func TestKVKeyOfMaxLength(t *testing.T) {
	key := strings.Repeat("k", MaxKVKeyBytes)
	e := newEnv(t, answerKV(`{"results":[{"index":0}]}`), Options{})
	wantStatus(t, e.do(t, "GET", "/api/v1/kv/"+strings.Repeat("n", 64)+"/"+key, ""), http.StatusOK)
}

func TestKVBrokerAnswerBroken(t *testing.T) {
	for _, body := range []string{`{"results":[]}`, `{"results":[`, `{"ok":true}`} {
		e := newEnv(t, answerKV(body), Options{})
		wantError(t, e.do(t, "GET", "/api/v1/kv/app/k", ""), http.StatusInternalServerError, CodeInternal, "")
	}
	fb := &fakeBroker{kv: func(context.Context, string, []KVOp) (json.Marshaler, error) { return nil, nil }}
	e := newEnv(t, fb, Options{})
	wantError(t, e.do(t, "POST", "/api/v1/kv", `[]`), http.StatusInternalServerError, CodeInternal, "")
}

// TestKVConsoleRoutes: the console reads answer the broker's JSON, take
// their body's fields as typed, and refuse query strings and bad bodies in
// the KV shape.
func TestKVConsoleRoutes(t *testing.T) {
	e := newEnv(t, nil, Options{})
	wantJSON(t, e.do(t, "GET", "/api/v1/resources/kv/namespaces", ""), http.StatusOK, `{"namespaces":[{"namespace":"app","keys":2}]}`)
	if c := e.fb.only(t); c.method != "KVNamespaces" || c.tenant != DefaultTenant {
		t.Fatalf("broker got %+v", c)
	}
	e = newEnv(t, nil, Options{})
	wantJSON(t, e.do(t, "POST", "/api/v1/resources/kv/list", `{"namespace":"app","prefix":"p/","after":"p/1","limit":5000,"keysOnly":true,"includeExpired":true}`),
		http.StatusOK, `{"rows":[],"truncated":false,"nextAfter":null,"bytes":0}`)
	want := KVListQuery{Namespace: "app", Prefix: "p/", After: "p/1", Limit: 1000, KeysOnly: true, IncludeExpired: true}
	e.fb.wantCall(t, "KVList", want)
	for _, c := range []struct{ method, target, body, reason string }{
		{"GET", "/api/v1/resources/kv/namespaces?x=1", "", ReasonKVNoQueryString},
		{"POST", "/api/v1/resources/kv/list?x=1", `{"namespace":"app"}`, ReasonKVNoQueryString},
		{"POST", "/api/v1/resources/kv/list", `{}`, ReasonKVBadNamespace},
		{"POST", "/api/v1/resources/kv/list", `{"namespace":"App"}`, ReasonKVBadNamespace},
		{"POST", "/api/v1/resources/kv/list", `{"namespace":"app","limit":"5"}`, ReasonKVBadField},
		{"POST", "/api/v1/resources/kv/list", `{"namespace":"app","keysOnly":1}`, ReasonKVBadField},
		{"POST", "/api/v1/resources/kv/list", `[1]`, ReasonKVBadBody},
		{"POST", "/api/v1/resources/kv/list", `{"namespace":`, ReasonKVBadBody},
	} {
		e := newEnv(t, nil, Options{})
		wantKVError(t, e.do(t, c.method, c.target, c.body), http.StatusBadRequest, CodeKVBadRequest, c.reason)
		e.fb.none(t)
	}
}

// FuzzKVDecode: decoding any body of POST /api/v1/kv never panics; a
// refusal is a 400 or 413 in the KV shape, and what it accepts names only
// names the contract allows, with ns resolved.
func FuzzKVDecode(f *testing.F) {
	f.Add([]byte(`{"operations":[{"op":"get","ns":"app","key":"k"}]}`))
	f.Add([]byte(`[{"op":"put","namespace":"app","key":"k","value":{"a":1},"ttlSeconds":30,"expect":0,"required":true}]`))
	f.Add([]byte(`[{"op":"incr","ns":"a","namespace":"b","key":"n","delta":0.10,"min":-1,"max":1e3,"forever":true}]`))
	f.Add([]byte(`[{"op":"getPrefix","ns":"app","prefix":"a/","after":"a/b","limit":5,"keysOnly":true,"keys":["x"]}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if parseJSON(body) != nil {
			return // s.body refuses it before decodeKVCall
		}
		ops, err := decodeKVCall(body)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || (e.Status != http.StatusBadRequest && e.Status != http.StatusRequestEntityTooLarge) || e.Reason == "" {
				t.Fatalf("refusal %v is not a 400 or 413 *Error in the KV shape", err)
			}
			return
		}
		for i := range ops {
			if err := ops[i].CheckNames("op"); err != nil {
				t.Fatalf("op %d: %+v was let through: %v", i, ops[i], err)
			}
		}
	})
}
