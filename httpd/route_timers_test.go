package httpd

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func zstdBase64(t *testing.T, b []byte) string {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return base64.StdEncoding.EncodeToString(enc.EncodeAll(b, nil))
}

// TestTimerPayload: a payload is base64 of JSON, zstd-compressed when
// payloadZstd; over 1 MiB decoded (a small bomb too) is 413; not base64,
// not zstd or not JSON is 400 naming the field.
func TestTimerPayload(t *testing.T) {
	big := append(append([]byte(`"`), bytes.Repeat([]byte("a"), MaxTimerPayloadBytes)...), '"')
	cases := []struct {
		name, payload string
		zstd          bool
		status        int
		want          string
	}{
		{"plain JSON", base64.StdEncoding.EncodeToString([]byte(` {"a": 1.50} `)), false, 0, `{"a": 1.50}`},
		{"zstd JSON", zstdBase64(t, []byte(`[1,2]`)), true, 0, `[1,2]`},
		{"zstd bomb", zstdBase64(t, big), true, http.StatusRequestEntityTooLarge, "operations[0].payload is over 1048576 bytes"},
		{"too large", base64.StdEncoding.EncodeToString(big), false, http.StatusRequestEntityTooLarge, "is over 1048576 bytes"},
		{"not base64", "{}", false, http.StatusBadRequest, "operations[0].payload is not base64"},
		{"not zstd", base64.StdEncoding.EncodeToString([]byte(`{}`)), true, http.StatusBadRequest, "operations[0].payload is not zstd"},
		{"not JSON", base64.StdEncoding.EncodeToString([]byte(`{`)), false, http.StatusBadRequest, "must be base64 of one JSON value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			op, _ := json.Marshal(map[string]any{"op": "schedule", "queue": "q", "timerKey": "k", "delayMs": 1,
				"payload": c.payload, "payloadZstd": c.zstd})
			ops, err := decodeTimerOps(json.RawMessage("["+string(op)+"]"), "operations", 0)
			if c.status == 0 {
				if err != nil || string(ops[0].Payload) != c.want || ops[0].Partition != "Default" || ops[0].Txn == "" {
					t.Fatalf("%+v %v", ops, err)
				}
				return
			}
			e, ok := err.(*Error)
			if !ok || e.Status != c.status || !strings.Contains(e.Message, c.want) {
				t.Fatalf("error %v, want %d with %q", err, c.status, c.want)
			}
		})
	}
}
