package lake_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"testing"

	"github.com/queen-mq/queen-go/lakeformat"
)

// encode writes records, in the lake's order, as one object.
func encode(t *testing.T, records []lakeformat.Record, o lakeformat.Options) []byte {
	t.Helper()
	o.Tenant, o.Queue = tenant, queue
	var buf bytes.Buffer
	enc, err := lakeformat.NewEncoder(&buf, o)
	if err != nil {
		t.Fatal(err)
	}
	for i := range records {
		if err := enc.Add(&records[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func sortRecords(rs []lakeformat.Record) {
	slices.SortFunc(rs, func(a, b lakeformat.Record) int {
		switch {
		case lakeformat.Less(&a, &b):
			return -1
		case lakeformat.Less(&b, &a):
			return 1
		}
		return 0
	})
}

func isoTs(us int64) string { return lakeformat.FormatTs(us) }
