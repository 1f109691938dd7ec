package s3sink

import (
	"testing"

	"github.com/queen-mq/queen-go/s3sink/kvdoc"
)

func TestDocKeys(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{docKey("default", "orders", "lease"), "s3:default:orders:lease"},
		{docKey("default", "a b/c", "committed"), "s3:default:a%20b%2Fc:committed"}, // SINK-CONFIG.md §3
		{docKey("sink-2", "ü.x_y-z", "intent"), "s3:sink-2:%C3%BC.x_y-z:intent"},
		{presenceKey("default", "queen-0/node-1"), "s3:default:node=queen-0%2Fnode-1"},
		{presencePrefix("default"), "s3:default:node="},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}

func TestDecodeCommitted(t *testing.T) {
	// What the sink writes reads back.
	doc := committedDoc{K: 42, TEnd: "2000-01-01T00:00:11.000001Z", Manifest: "m", Records: 3, Bytes: 207, CommittedAtMs: 1}
	k, tEnd, err := decodeCommitted(mustJSON(doc))
	if err != nil || k != 42 || tEnd != day0+11*sec+1 {
		t.Errorf("decodeCommitted(%s) = %d, %d, %v", mustJSON(doc), k, tEnd, err)
	}
	if got := string(mustJSON(doc)); got != `{"k":42,"tEnd":"2000-01-01T00:00:11.000001Z","manifest":"m","records":3,"bytes":207,"committedAtMs":1}` {
		t.Errorf("the pointer renders as %s", got)
	}
	// The 1.5 sink's pointer.
	k, tEnd, err = decodeCommitted([]byte(`{"k":7,"tEnd":946684805000000,"manifest":"old","records":1,"bytes":1,"committedAtMs":2}`))
	if err != nil || k != 7 || tEnd != day0+5*sec {
		t.Errorf("a 1.5 pointer: %d, %d, %v", k, tEnd, err)
	}
	// DecodeCommitted tells the 1.5 pointer's integer tEnd from this sink's ISO one.
	if k, tEnd, legacy, err := kvdoc.DecodeCommitted([]byte(`{"k":7,"tEnd":946684805000000}`)); err != nil || k != 7 || tEnd != day0+5*sec || !legacy {
		t.Errorf("DecodeCommitted of a 1.5 pointer: %d, %d, %v, %v", k, tEnd, legacy, err)
	}
	if _, _, legacy, err := kvdoc.DecodeCommitted(mustJSON(doc)); err != nil || legacy {
		t.Errorf("DecodeCommitted of this sink's pointer: legacy %v, %v", legacy, err)
	}
	for _, bad := range []string{`{"k":1}`, `{"k":1,"tEnd":"yesterday"}`, `not json`, `{"k":"1","tEnd":0}`} {
		if _, _, err := decodeCommitted([]byte(bad)); err == nil {
			t.Errorf("decodeCommitted(%s): no error", bad)
		}
	}
}
