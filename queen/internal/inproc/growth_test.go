package inproc

import (
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// dirBytes sums the sizes of the files under dir.
func dirBytes(t testing.TB, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// growth starts a fresh node, pushes records records in batches of batch
// into one partition of queue, and answers how much its data directory
// grew.
func growth(t *testing.T, queue, partition string, records, batch int) int64 {
	t.Helper()
	n, err := Start(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	before := dirBytes(t, n.Dir)
	for sent := 0; sent < records; sent += batch {
		items := make([]map[string]any, batch)
		for i := range items {
			items[i] = map[string]any{"queue": queue, "partition": partition, "payload": map[string]int{"n": sent + i}}
		}
		body, _ := json.Marshal(map[string]any{"items": items})
		if w := n.Do(ctx(t), "POST", "/api/v1/push", body); w.Code != 201 {
			t.Fatalf("push: %d %s", w.Code, w.Body)
		}
	}
	n.Close() // every file written out
	return dirBytes(t, n.Dir) - before
}

// TestLongNameGrowth: a partition's name costs once per partition in the
// store, and once per push in the raft log's entry, never once per
// record: 1,000 records under a 1 KiB partition name (and a 256-byte
// queue name) grow the data directory within a few KiB of what they grow
// it by under 1-byte names. (Before, the names were stored again with
// every record: 200 records under a 1 MiB name grew it by 221 MiB.)
func TestLongNameGrowth(t *testing.T) {
	q, p := strings.Repeat("q", 256), strings.Repeat("p", 1024)
	const records = 1000
	for _, batch := range []int{records, 100} {
		short := growth(t, "q", "p", records, batch)
		long := growth(t, q, p, records, batch)
		pushes := int64(records / batch)
		t.Logf("1,000 records in pushes of %d: 1-byte names grew the data directory by %d bytes; a 1 KiB partition "+
			"and a 256-byte queue name by %d (%+d)", batch, short, long, long-short)
		// Once per partition in the store ('Q', 'P', 'C' keys, about 2.6
		// KiB here), once per push in the raft log: no more.
		if bound := pushes*int64(len(q)+len(p)) + 6<<10; long-short > bound {
			t.Fatalf("pushes of %d: long names grew the data directory by %d bytes more than short ones, over %d",
				batch, long-short, bound)
		}
	}
}
