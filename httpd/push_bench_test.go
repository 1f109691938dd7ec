package httpd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// benchPushBody is a push body of n items as a client sends them: a
// queue, a partition, a transactionId like a UUID, and a payload of 200
// bytes of JSON.
func benchPushBody(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		head := fmt.Sprintf(`{"orderId":%d,"customer":"c-%06d","status":"paid","total":42.50,"note":"`, i, i)
		payload := head + strings.Repeat("x", 200-len(head)-2) + `"}`
		fmt.Fprintf(&b, `{"queue":"orders","partition":"p-%d","transactionId":"%s","payload":%s}`,
			i%4, uuid.NewSHA1(uuid.Nil, fmt.Append(nil, i)), payload)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkDecodePush: the push body decoder against the encoding/json
// one it replaced, over 100 items and over one; and, beside them,
// parseJSON, the check every body passes before either runs.
func BenchmarkDecodePush(b *testing.B) {
	items := func(decode func([]byte) ([]PushItem, error)) func([]byte) (int, error) {
		return func(body []byte) (int, error) {
			items, err := decode(body)
			return len(items), err
		}
	}
	decoders := []struct {
		name string
		fn   func([]byte) (int, error) // the number of items read
	}{
		{"old", items(decodePushRef)},
		{"new", items(decodePush)},
		{"parseJSON", func(body []byte) (int, error) { return 0, parseJSON(body) }},
	}
	for _, n := range []int{100, 1} {
		body := benchPushBody(n)
		for _, d := range decoders {
			b.Run(fmt.Sprintf("items=%d/%s", n, d.name), func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				for b.Loop() {
					if got, err := d.fn(body); err != nil || (got != n && d.name != "parseJSON") {
						b.Fatal(got, err)
					}
				}
			})
		}
	}
}

// BenchmarkPushAnswer: rendering a push answer by hand against rendering
// it with encoding/json, over 100 results and over one.
func BenchmarkPushAnswer(b *testing.B) {
	for _, n := range []int{100, 1} {
		items, err := decodePush(benchPushBody(n))
		if err != nil {
			b.Fatal(err)
		}
		if err := newMessageIDs(items); err != nil {
			b.Fatal(err)
		}
		results := make([]PushResult, n)
		for i := range results {
			results[i] = PushResult{Offset: int64(1000 + i), MessageID: items[i].MessageID}
		}
		b.Run(fmt.Sprintf("items=%d/old", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				renderPushRef(items, results)
			}
		})
		b.Run(fmt.Sprintf("items=%d/new", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				appendPushAnswers(make([]byte, 0, pushAnswerBytes*n), items, results)
			}
		})
	}
}
