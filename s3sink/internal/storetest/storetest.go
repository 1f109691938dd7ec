// Package storetest is the conformance suite of s3sink.ObjectStore: what
// every implementation (s3store against any server, the engine's fakes)
// must do for the sink's exactly-once argument to hold. Faults that need
// a server behind a proxy live beside the implementation that has one.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/queen-mq/queen-go/s3sink"
)

// MiB is a mebibyte.
const MiB = 1 << 20

// LakeKey is a data key as the sink writes it: tenant and queue levels,
// a percent-encoded queue name, '=' in every Hive level.
const LakeKey = "queen/tenant=00000000-0000-0000-0000-000000000001/queue=a%20b/dt=2026-10-03/hour=06/" +
	"w-0000000001-1791007200000000-1791009458377855.jsonl.zst"

// Run runs the suite. newStore gives a store on an empty bucket (or one
// where the suite's keys, all under a prefix named after the subtest,
// are free); it is called once per subtest, and the subtests run in
// parallel with each other.
func Run(t *testing.T, newStore func(t *testing.T) s3sink.ObjectStore) {
	tests := []struct {
		name string
		run  func(t *testing.T, st s3sink.ObjectStore, prefix string)
	}{
		{"RoundTrip", testRoundTrip},
		{"Overwrite", testOverwrite},
		{"Missing", testMissing},
		{"Multipart", testMultipart},
		{"MultipartSmall", testMultipartSmall},
		{"Keys", testKeys},
		{"Concurrent", testConcurrent},
		{"Canceled", testCanceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newStore(t), "conformance/"+strings.ToLower(tc.name))
		})
	}
}

// Bytes returns n pseudo-random bytes, the same for the same seed.
func Bytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func testRoundTrip(t *testing.T, st s3sink.ObjectStore, prefix string) {
	ctx := context.Background()
	for _, n := range []int{0, 1, 100, MiB} {
		key := fmt.Sprintf("%s/%d.bin", prefix, n)
		body := Bytes(1, n)
		mustPut(t, st, key, body)
		mustGet(t, st, key, body)
		mustHead(t, st, key, int64(n))
	}
	// A JSON-looking small object, as a manifest is.
	key := prefix + "/windows/0000000001.json"
	body := []byte(`{"k":1,"objects":[]}` + "\n")
	if err := st.Put(ctx, key, body); err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
	mustGet(t, st, key, body)
}

func testOverwrite(t *testing.T, st s3sink.ObjectStore, prefix string) {
	key := prefix + "/w.jsonl.zst"
	first := Bytes(2, 4096)
	mustPut(t, st, key, first)
	// A redo: the same bytes under the same key leave one object, the same.
	mustPut(t, st, key, first)
	mustGet(t, st, key, first)
	// Other bytes (another length too) replace them.
	second := Bytes(3, 1000)
	mustPut(t, st, key, second)
	mustGet(t, st, key, second)
	mustHead(t, st, key, 1000)
	// A multipart redo of an object a single PUT wrote (one part: S3
	// refuses parts under 5 MiB but the last).
	if err := st.PutMultipart(context.Background(), key, first, 5*MiB); err != nil {
		t.Fatalf("multipart over a put: %v", err)
	}
	mustGet(t, st, key, first)
}

func testMissing(t *testing.T, st s3sink.ObjectStore, prefix string) {
	ctx := context.Background()
	key := prefix + "/never-written"
	_, err := st.Get(ctx, key)
	if !errors.Is(err, s3sink.ErrNotFound) {
		t.Fatalf("get of a missing key: %v, want ErrNotFound", err)
	}
	if !strings.Contains(err.Error(), key) {
		t.Errorf("get of a missing key: %q does not name the key", err)
	}
	if _, err := st.Head(ctx, key); !errors.Is(err, s3sink.ErrNotFound) {
		t.Fatalf("head of a missing key: %v, want ErrNotFound", err)
	}
	// A prefix of an existing key is not a key.
	mustPut(t, st, prefix+"/dir/obj", []byte("x"))
	if _, err := st.Head(ctx, prefix+"/dir"); !errors.Is(err, s3sink.ErrNotFound) {
		t.Fatalf("head of a key's prefix: %v, want ErrNotFound", err)
	}
}

func testMultipart(t *testing.T, st s3sink.ObjectStore, prefix string) {
	key := prefix + "/big.parquet"
	body := Bytes(4, 3*5*MiB+12345)
	if err := st.PutMultipart(context.Background(), key, body, 5*MiB); err != nil {
		t.Fatalf("multipart: %v", err)
	}
	mustHead(t, st, key, int64(len(body)))
	mustGet(t, st, key, body)
	// Again, the same bytes: a redo.
	if err := st.PutMultipart(context.Background(), key, body, 5*MiB); err != nil {
		t.Fatalf("multipart redo: %v", err)
	}
	mustGet(t, st, key, body)
}

func testMultipartSmall(t *testing.T, st s3sink.ObjectStore, prefix string) {
	// One part shorter than the part size: the whole body in part 1.
	key := prefix + "/one-part"
	body := Bytes(5, 1000)
	if err := st.PutMultipart(context.Background(), key, body, 5*MiB); err != nil {
		t.Fatalf("multipart of one short part: %v", err)
	}
	mustGet(t, st, key, body)
}

func testKeys(t *testing.T, st s3sink.ObjectStore, prefix string) {
	keys := []string{
		LakeKey,
		"queen/_queen/tenant=00000000-0000-0000-0000-000000000001/queue=a%20b/windows/0000000001.json",
		"queen/_queen/tenant=t/queue=a%2Fb%3Dc%25/checkpoint/0000000020.json.zst",
		"queen/tenant=t/queue=q/dt=2026-10-03/hour=06/w-0000000002-1-2-p-cust%2B1-0-41.jsonl.gz",
		"queen/tenant=t/queue=%C3%A9t%C3%A9/dt=2026-10-03/w-0000000003-1-2.parquet",
	}
	for i, k := range keys {
		key := prefix + "/" + k
		body := Bytes(uint64(10+i), 64+i)
		mustPut(t, st, key, body)
		mustGet(t, st, key, body)
		mustHead(t, st, key, int64(len(body)))
	}
	// The percent-encoded name is the key: its decoded spelling is another
	// key, which does not exist.
	if _, err := st.Head(context.Background(), prefix+"/"+strings.ReplaceAll(LakeKey, "%20", " ")); !errors.Is(err, s3sink.ErrNotFound) {
		t.Fatalf("head of the decoded key: %v, want ErrNotFound", err)
	}
}

func testConcurrent(t *testing.T, st s3sink.ObjectStore, prefix string) {
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			key := fmt.Sprintf("%s/%02d", prefix, i)
			body := Bytes(uint64(100+i), 10_000+i)
			if err := st.Put(context.Background(), key, body); err != nil {
				errs <- fmt.Errorf("put %s: %w", key, err)
				return
			}
			got, err := st.Get(context.Background(), key)
			if err != nil || !bytes.Equal(got, body) {
				errs <- fmt.Errorf("get %s: %d bytes, err %v", key, len(got), err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func testCanceled(t *testing.T, st s3sink.ObjectStore, prefix string) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	key := prefix + "/canceled"
	calls := map[string]func() error{
		"put":       func() error { return st.Put(ctx, key, []byte("x")) },
		"multipart": func() error { return st.PutMultipart(ctx, key, Bytes(6, 2*MiB), MiB) },
		"get":       func() error { _, err := st.Get(ctx, key); return err },
		"head":      func() error { _, err := st.Head(ctx, key); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a canceled context: %v, want context.Canceled", name, err)
		}
	}
	if _, err := st.Head(context.Background(), key); !errors.Is(err, s3sink.ErrNotFound) {
		t.Fatalf("after canceled writes: head %v, want ErrNotFound", err)
	}
}

func mustPut(t *testing.T, st s3sink.ObjectStore, key string, body []byte) {
	t.Helper()
	if err := st.Put(context.Background(), key, body); err != nil {
		t.Fatalf("put %s (%d bytes): %v", key, len(body), err)
	}
}

func mustGet(t *testing.T, st s3sink.ObjectStore, key string, want []byte) {
	t.Helper()
	got, err := st.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("get %s: %v", key, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("get %s: %d bytes, not the %d put", key, len(got), len(want))
	}
}

func mustHead(t *testing.T, st s3sink.ObjectStore, key string, want int64) {
	t.Helper()
	got, err := st.Head(context.Background(), key)
	if err != nil {
		t.Fatalf("head %s: %v", key, err)
	}
	if got != want {
		t.Fatalf("head %s: size %d, want %d", key, got, want)
	}
}
