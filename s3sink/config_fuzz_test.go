package s3sink

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseDocument: any document is refused with one sentence that names
// no variable (but a node-wide field's), or accepted as settings that pass
// their own checks and read back the same when written out again.
func FuzzParseDocument(f *testing.F) {
	f.Add([]byte(`{"queues":"orders","endpoint":"http://minio:9000","region":"us-east-1","bucket":"lake","accessKey":"queen"}`))
	f.Add([]byte(`{"queues":["a","b"],"endpoint":"https://[::1]:9000/","region":"r","bucket":"b","accessKey":"k","targetMb":"64","sse":"kms","sseKmsKeyId":"k1"}`))
	f.Add([]byte(`{"queues":"*","memoryMb":1}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		s, err := ParseDocument(doc)
		if err != nil {
			var ce *ConfigError
			if !errors.As(err, &ce) || s != nil {
				t.Fatalf("%q: %#v, %v", doc, s, err)
			}
			if ce.Msg == "" || strings.ContainsAny(ce.Msg, "\n\r") {
				t.Fatalf("%q: sentence %q", doc, ce.Msg)
			}
			if strings.Contains(ce.Msg, "QUEEN_S3_") && !strings.Contains(ce.Msg, " is node-wide: set QUEEN_S3_") {
				t.Fatalf("%q: the sentence names a variable: %s", doc, ce.Msg)
			}
			return
		}
		s.SecretKey = "secret"
		if err := s.Validate(); err != nil {
			t.Fatalf("%q: accepted, but %v", doc, err)
		}
		again, err := ParseDocument(confDocFor(s))
		if err != nil {
			t.Fatalf("%q: written out as %s, refused: %v", doc, confDocFor(s), err)
		}
		again.SecretKey = s.SecretKey
		if !reflect.DeepEqual(again, s) {
			t.Fatalf("%q: written out as %s, reads as %#v, not %#v", doc, confDocFor(s), again, s)
		}
	})
}

// confDocFor writes settings as a document.
func confDocFor(s *Settings) []byte {
	start := "latest"
	if s.StartEarliest {
		start = "earliest"
	}
	m := map[string]any{
		"endpoint": s.Endpoint, "region": s.Region, "bucket": s.Bucket, "accessKey": s.AccessKey,
		"prefix": s.Prefix, "pathStyle": s.PathStyle, "sse": s.SSE, "sseKmsKeyId": s.SSEKMSKeyID,
		"format": s.Format.String(), "compression": s.Compression.String(), "parquetCodec": s.ParquetCodec.String(),
		"layout": s.Layout.String(), "align": s.Align.String(), "start": start,
		"targetMb": s.TargetBytes >> 20, "maxWindowMs": s.MaxWindow.Milliseconds(), "sink": s.Sink,
	}
	if s.AllQueues {
		m["queues"] = "*"
	} else {
		m["queues"] = s.Queues
	}
	b, _ := json.Marshal(m)
	return b
}
