package httpd

import (
	"strings"
	"testing"
)

// pushSeeds are bodies where a decoder of push bodies may go wrong; the
// fuzz target starts from them, and TestPushScanSameAsReference holds
// decodePush to decodePushRef over them.
var pushSeeds = []string{
	// The bodies of push_test.go.
	`{"items":[{"queue":"q","payload":{"a":1}},{"queue":"q","partition":"p1","payload":1,"transactionId":"t-1"},{"queue":"r","partition":"","payload":"x","transactionId":""}]}`,
	`{"items":[{"queue":"q","payload":42.00}]}`,
	`{"items":[{"queue":"q","payload":{ "a" :  [1, 2.50 ,"<b>&"] }}]}`,
	`{"items":[{"queue":"q","payload":"caf\u00e9 \ud83d\ude00"}]}`,
	"{\"items\":[{\"queue\":\"q\",\"payload\":{\n\t\"pretty\": true\n}}]}",
	`{"items":[{"queue":"q","payload":1,"traceId":"f5881e23-fde4-44d2-97fe-e45776f93a42"},{"queue":"q","payload":2,"traceId":null},{"queue":"q","payload":3}]}`,
	`{"items":[`, ``, `[1]`, `{}`, `{"items":{}}`, `{"items":[]}`, `{"items":null}`,
	`{"items":[{"queue":"q","payload":1},7]}`, `{"items":[null]}`,
	`{"items":[{"payload":1}]}`, `{"items":[{"queue":"","payload":1}]}`, `{"items":[{"queue":5,"payload":1}]}`,
	`{"items":[{"Queue":"q","payload":1}]}`, `{"items":[{"queue":"q","partition":1,"payload":1}]}`,
	`{"items":[{"queue":"q"}]}`, `{"items":[{"queue":"q","payload":1,"transactionId":5}]}`,
	`{"items":[{"queue":"q","payload":1,"transactionId":"a\nb"}]}`,
	`{"items":[{"queue":"q","payload":1,"transactionId":"a\u0085"}]}`,
	`{"items":[{"queue":"q","payload":1,"traceId":"abc"}]}`, `{"items":[{"queue":"q","payload":1,"traceId":5}]}`,
	// Names and values escaped, and the escapes of lone surrogates.
	`{"it\u0065ms":[{"qu\u0065ue":"\u0071","p\u0061yload":1,"transaction\u0049d":"\ud83d\ude00\/\b\f\n\r\t\"\\"}]}`,
	`{"items":[{"queue":"q\ud800","payload":1,"transactionId":"\udc00x\ud800\ud800\ud83d"}]}`,
	`{"items":[{"queue":"q","payload":1,"traceId":"\u00665881e23-fde4-44d2-97fe-e45776f93a42"}]}`,
	`{"items":[{"queue":"q","payload":1,"traceId":"{f5881e23-fde4-44d2-97fe-e45776f93a42}"}]}`,
	`{"items":[{"queue":"q","payload":1,"traceId":"urn:uuid:f5881e23-fde4-44d2-97fe-e45776f93a42"}]}`,
	`{"items":[{"queue":"q","payload":1,"traceId":"f5881e23fde444d297fee45776f93a42"}]}`,
	`{"items":[{"queue":"q","payload":1,"traceId":""}]}`,
	// Invalid UTF-8: raw in a payload, replaced in a string read.
	"{\"items\":[{\"queue\":\"q\xff\",\"payload\":\"\xff\xfe\"}]}",
	"{\"items\":[{\"queue\":\"q\",\"payload\":1,\"transactionId\":\"\xed\xa0\x80\xc0\xaf\"}]}",
	"{\"items\":[{\"queue\xff\":\"q\",\"payload\":1}]}",
	// Duplicate names: the last one counts, at every level.
	`{"items":[{"queue":"q","payload":1,"payload":  2.50 }]}`,
	`{"items":5,"items":[{"queue":"q","payload":1}]}`,
	`{"items":[{"queue":5}],"items":[{"queue":"q","payload":1}]}`,
	`{"items":[{"queue":"q","payload":1}],"items":null}`,
	`{"items":[{"queue":"q","payload":1}],"items":[]}`,
	`{"items":[{"queue":5,"queue":"q","payload":1,"traceId":"x","traceId":null}]}`,
	`{"items":[{"queue":"q","payload":1,"transactionId":"t","transactionId":""}]}`,
	// Ignored members of every shape, deep ones too.
	`{"x":{"a":[[[[{"b":[1,{"c":null}]}]]]],"y":"\u00e9"},"items":[{"z":[true,false,null,-0,1e400,-1.5E-7],"queue":"q","payload":[]}],"w":{}}`,
	`{"items":[{"queue":"q","payload":123456789012345678901234567890,"n":-0.0e+0}]}`,
	`{"items":[{"queue":"q","payload":1e400}]}`,
	`{"items":[{"queue":"q","payload":-0}]}`,
	"{\"items\":[{\"queue\":\"q\",\"payload\":1,\"x\":" + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "}]}",
	"{\"items\":[{\"queue\":\"q\",\"payload\":" + strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100) + "}]}",
	// White space everywhere, and where it is not white space.
	" \t\r\n{ \t\r\n\"items\" \t\r\n: \t\r\n[ \t\r\n{ \"queue\" : \"q\" , \"payload\" : { \"a\" : [ 1 , 2 ] } \t\r\n} \t\r\n] \t\r\n} \t\r\n",
	"\xef\xbb\xbf{\"items\":[{\"queue\":\"q\",\"payload\":1}]}",
	"{\"items\":[{\"queue\":\"q\",\"payload\":1}]}\x00",
	"{\"items\":[{\"queue\":\"q\",\"payload\":1}]}\f",
	"{\"items\":[{\"queue\":\"q\",\"payload\":1}]} {}",
	// Invalid JSON after a refusal, inside an ignored member and inside a payload.
	`{"items":[{"queue":5,"payload":1}],"x":[1,]}`,
	`{"items":[7,{"queue":"q","payload":01}]}`,
	`{"items":[{"queue":"q","payload":[1 2]}]}`,
	`{"items":[{"queue":"q","payload":"a\x"}]}`,
	"{\"items\":[{\"queue\":\"q\",\"payload\":\"a\tb\"}]}",
	`{"items":[{"queue":"q","payload":"\u12"}]}`,
	`{"items":[{"queue":"q","payload":tru}]}`,
	`{"items":[{"queue":"q","payload":1.}]}`,
	`{"items":[{"queue":"q","payload":.5}]}`,
	`{"items":[{"queue":"q","payload":1e}]}`,
	`{"items":[{"queue":"q","payload":+1}]}`,
	`{"items":[{"queue":"q","payload":1,}]}`,
	`{"items":[{"queue":"q" "payload":1}]}`,
	`{"items":[{"queue":"q","payload":1}],}`,
	`{"items":[{queue:"q","payload":1}]}`,
	`{"items":[{"queue":"q","payload":1}]`,
}

func TestPushScanSameAsReference(t *testing.T) {
	for _, s := range pushSeeds {
		samePush(t, []byte(s))
	}
}

// TestPushScanDeepNesting: encoding/json's bound on nesting, 10,000
// levels, holds in ignored members and payloads alike.
func TestPushScanDeepNesting(t *testing.T) {
	for _, depth := range []int{jsonMaxNesting - 3, jsonMaxNesting - 2, jsonMaxNesting} {
		deep := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		samePush(t, []byte(`{"items":[{"queue":"q","payload":`+deep+`}]}`))
		samePush(t, []byte(`{"items":[{"queue":"q","payload":1,"x":`+deep+`}]}`))
	}
	_, err := decodePush([]byte(`{"items":[{"queue":"q","payload":` + strings.Repeat("[", jsonMaxNesting-2) + strings.Repeat("]", jsonMaxNesting-2) + `}]}`))
	if err == nil || !strings.Contains(err.Error(), "the body must be an object") {
		t.Fatalf("10,001 levels: %v", err)
	}
}

// TestPushScanItems: what the scanner gives for bodies whose answer is
// easy to get wrong.
func TestPushScanItems(t *testing.T) {
	cases := []struct {
		name, body          string
		queue, txn, payload string
	}{
		{"payload white space kept", `{"items":[{"queue":"q","payload": { "a" :	[1 , 2.50] } }]}`, "q", "", `{ "a" :	[1 , 2.50] }`},
		{"last member wins", `{"items":[{"queue":"a","queue":"b","payload":1,"payload":"two"}]}`, "b", "", `"two"`},
		{"escaped names and values", `{"items":[{"qu\u0065ue":"\u00e9\ud83d\ude00","payload":1,"transactionId":"a\/b\"c"}]}`, "é😀", `a/b"c`, `1`},
		{"lone surrogate replaced", `{"items":[{"queue":"q","payload":1,"transactionId":"x\ud800y"}]}`, "q", "x\uFFFDy", `1`},
		{"invalid UTF-8 replaced in a name, raw in a payload", "{\"items\":[{\"queue\":\"q\xff\",\"payload\":\"\xff\"}]}", "q\uFFFD", "", "\"\xff\""},
		{"a later items member replaces a refused one", `{"items":[{"queue":1}],"items":[{"queue":"q","payload":null}]}`, "q", "", `null`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			items, err := decodePush([]byte(c.body))
			if err != nil {
				t.Fatal(err)
			}
			it := items[0]
			if len(items) != 1 || it.Queue != c.queue || it.TransactionID != c.txn || string(it.Payload) != c.payload {
				t.Fatalf("items = %+v (payload %q)", items, it.Payload)
			}
			samePush(t, []byte(c.body))
		})
	}
}

// TestPushScanRefusals: the refusals that depend on the order of the
// checks: syntax first, wherever it breaks, then the first item in order.
func TestPushScanRefusals(t *testing.T) {
	cases := []struct{ body, msg string }{
		{`{"items":[{"queue":5,"payload":1}],"x":[1,]}`, "the body must be an object"},
		{`{"items":[{"queue":"q","payload":1}]} x`, "the body must be an object"},
		{`{"items":[{"queue":"q"},{"queue":5,"payload":1}]}`, "items[0].payload is required"},
		{`{"items":[{"queue":"q","payload":1},{"payload":1,"partition":5,"traceId":1}]}`, "items[1].queue is required"},
		{`{"items":[{"queue":"q","payload":1},{"queue":"q","payload":1,"transactionId":1,"traceId":"x"}]}`, "items[1].transactionId must be a string"},
		{`{"items":[{"queue":"q","payload":1},{"queue":"bad\u0000"}]}`, "items[1].queue"},
		{`{"items":[{"queue":"q","payload":1},{"queue":"q","payload":1,"traceId":"nope"}]}`, `items[1].traceId "nope" must be a UUID`},
	}
	for _, c := range cases {
		_, err := decodePush([]byte(c.body))
		e, ok := err.(*Error)
		if !ok || e.Code != CodeBadRequest || !strings.Contains(e.Message, c.msg) {
			t.Errorf("%s: %v, want 400 bad_request %q", c.body, err, c.msg)
		}
		samePush(t, []byte(c.body))
	}
}

// TestPushScanPayloadCopies: payloads are copies, each its own length of
// one buffer, so appending to one leaves the next alone.
func TestPushScanPayloadCopies(t *testing.T) {
	body := []byte(`{"items":[{"queue":"q","payload":[1]},{"queue":"q","payload":[2]}]}`)
	items, err := decodePush(body)
	if err != nil {
		t.Fatal(err)
	}
	for i := range body {
		body[i] = ' '
	}
	_ = append(items[0].Payload, 'x')
	if string(items[0].Payload) != "[1]" || string(items[1].Payload) != "[2]" {
		t.Fatalf("payloads %q %q", items[0].Payload, items[1].Payload)
	}
}
