package lakeformat_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/lakeformat/internal/gen"
)

// -update rewrites the golden files. Do it only when a change of the lake's
// bytes is intended (a new format version), never to make a dependency
// upgrade pass: objects already in buckets were written with the old bytes.
var update = flag.Bool("update", false, "rewrite testdata/golden")

// edgeRecords exercise every rule of the payload and name rendering.
func edgeRecords() []lakeformat.Record {
	payloads := []string{
		"", `42.00`, `{"a":[1,2,{"b":null}],"t":42.00}`, "{\n  \"pretty\": true,\r\n  \"n\": 1.50\n}",
		`{not json`, "\xff\xfe\x00raw", `"just a string"`, ` {"padded":1} `, `null`, `[]`,
		`{"esc":"\u00e9\n\"q\"","uni":"日本語 ✓","ls":"` + "\u2028" + `"}`, "tab\tand\x01ctl",
		`{"deep":[[[[[[[[[[1]]]]]]]]]]}`, `-0.0e+10`, `{"dup":1,"dup":2}`,
	}
	parts := []string{"Default", "a b/c", "p\"q\\", "zz", "日本"}
	var recs []lakeformat.Record
	ts := int64(1791007200000000)
	for pi, p := range parts {
		for i, pl := range payloads {
			if (i+pi)%2 == 1 && i > 2 {
				continue
			}
			recs = append(recs, lakeformat.Record{Partition: p, Offset: int64(len(recs)*3 + i),
				TransactionID: fmt.Sprintf("tx-%d-%d\t\"", pi, i), Ts: ts + int64(i*1000+pi), Payload: []byte(pl)})
		}
	}
	recs = append(recs, lakeformat.Record{Partition: "😀 epoch", Offset: 0, Ts: lakeformat.MinTs},
		lakeformat.Record{Partition: "😀 max", Offset: 0, Ts: lakeformat.MaxTs, Payload: []byte(`{}`)})
	return recs
}

func goldenName(o lakeformat.Options) string {
	if o.Format == lakeformat.Parquet {
		return o.Codec.String() + ".parquet"
	}
	return o.Ext()
}

// TestGoldenEdge pins the bytes of a small object of every format and codec.
func TestGoldenEdge(t *testing.T) {
	for _, o := range gen.AllOptions {
		t.Run(o.WriterID(), func(t *testing.T) {
			got := encode(t, o, edgeRecords())
			path := filepath.Join("testdata", "golden", "edge."+goldenName(o))
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update once to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: the encoder's bytes changed (%d bytes, golden %d). If a dependency was upgraded, pin it back: "+
					"objects already in buckets were written with the golden bytes", path, len(got), len(want))
			}
		})
	}
}

// generated is a window of 250,000 records over 100 partitions: three
// Parquet row groups, many pages, and JSONL past the encoder's chunking.
var generated = sync.OnceValue(func() []lakeformat.Record {
	return gen.Sorted(gen.Records(250_000, 100, 150, 1791007200000000, 7))
})

func digest(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// TestGoldenGenerated pins the SHA-256 of a large object of every format and
// codec, encoded at GOMAXPROCS 1 and 8, and several at once.
func TestGoldenGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("large objects; run without -short")
	}
	path := filepath.Join("testdata", "golden", "generated.sha256")
	got := map[string]string{}
	var lines []string
	for _, o := range gen.AllOptions {
		d := digest(encode(t, o, generated()))
		got[goldenName(o)] = d
		lines = append(lines, d+"  "+goldenName(o))
	}
	if *update {
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		want, name, _ := strings.Cut(line, "  ")
		if got[name] != want {
			t.Errorf("%s: sha256 %s, golden %s: the encoder's bytes changed", name, got[name], want)
		}
	}
	if len(got) != len(strings.Split(strings.TrimSpace(string(raw)), "\n")) {
		t.Errorf("golden file lists other objects than %v", lines)
	}

	// The same bytes whatever GOMAXPROCS, and with many encoders at once.
	for _, procs := range []int{1, 8} {
		old := runtime.GOMAXPROCS(procs)
		var wg sync.WaitGroup
		for _, o := range gen.AllOptions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if d := digest(encode(t, o, generated())); d != got[goldenName(o)] {
					t.Errorf("GOMAXPROCS=%d, concurrent: %s has sha256 %s, sequential %s", procs, o.WriterID(), d, got[goldenName(o)])
				}
			}()
		}
		wg.Wait()
		runtime.GOMAXPROCS(old)
	}
}

// TestRepeatedRuns encodes the same records many times in one process (the
// codecs' pools hand back used encoders) and finds the same bytes each time.
func TestRepeatedRuns(t *testing.T) {
	recs := edgeRecords()
	for _, o := range gen.AllOptions {
		first := encode(t, o, recs)
		for i := 0; i < 20; i++ {
			if again := encode(t, o, recs); !bytes.Equal(first, again) {
				t.Fatalf("%s: run %d gave other bytes", o.WriterID(), i)
			}
		}
	}
}

func TestParquetRowGroups(t *testing.T) {
	if testing.Short() {
		t.Skip("large objects; run without -short")
	}
	pf, err := lakeformat.DecodeParquet(encode(t, lakeformat.Options{Format: lakeformat.Parquet, Codec: lakeformat.Zstd,
		Tenant: "t-1", Queue: "orders"}, generated()))
	if err != nil {
		t.Fatal(err)
	}
	if pf.RowGroups != 3 {
		t.Errorf("%d row groups for 250,000 rows, want 3 of at most %d", pf.RowGroups, lakeformat.RowGroupRows)
	}
	if pf.Queue != "orders" || pf.Tenant != "t-1" || pf.CreatedBy != lakeformat.CreatedBy {
		t.Errorf("footer: queue %q tenant %q created_by %q", pf.Queue, pf.Tenant, pf.CreatedBy)
	}
	assertRecords(t, pf.Records, generated(), false)
}
