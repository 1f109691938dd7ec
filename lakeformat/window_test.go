package lakeformat_test

import (
	"crypto/sha256"
	"errors"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/lakeformat/internal/gen"
)

func testWindow() lakeformat.Window {
	return lakeformat.Window{Tenant: "t-1", Queue: "orders", K: 7, TStart: 1791007200000000, TEnd: 1791010800000000}
}

func mustKeys(t testing.TB) lakeformat.Keys {
	k, err := lakeformat.NewKeys("queen")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestWindowLayouts(t *testing.T) {
	recs := gen.Sorted(gen.Records(3000, 5, 120, 1791007200000000, 11))
	w := testWindow()
	for _, o := range gen.AllOptions {
		t.Run("merged/"+o.WriterID(), func(t *testing.T) {
			objs, err := lakeformat.EncodeWindow(mustKeys(t), w, lakeformat.AlignHour, lakeformat.Merged, o, recs)
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) != 1 || objs[0].Part != nil || objs[0].Records != int64(len(recs)) {
				t.Fatalf("%d objects, want one merged object of %d records", len(objs), len(recs))
			}
			checkObject(t, objs[0], o, recs)
		})
		t.Run("per-partition/"+o.WriterID(), func(t *testing.T) {
			objs, err := lakeformat.EncodeWindow(mustKeys(t), w, lakeformat.AlignHour, lakeformat.PerPartition, o, recs)
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) != 5 {
				t.Fatalf("%d objects, want 5 (one per partition)", len(objs))
			}
			at := 0
			for _, obj := range objs {
				part := recs[at : at+int(obj.Records)]
				at += int(obj.Records)
				p := obj.Part
				if p == nil || p.Partition != part[0].Partition || p.FirstOffset != part[0].Offset || p.LastOffset != part[len(part)-1].Offset {
					t.Fatalf("object %s: part %+v, want %s %d..%d", obj.Key, p, part[0].Partition, part[0].Offset, part[len(part)-1].Offset)
				}
				if !strings.Contains(obj.Key, "-p-"+p.Partition+"-") {
					t.Errorf("key %s does not name partition %s", obj.Key, p.Partition)
				}
				checkObject(t, obj, o, part)
			}
			if at != len(recs) {
				t.Errorf("objects hold %d records, want %d", at, len(recs))
			}
		})
	}
}

func checkObject(t *testing.T, obj *lakeformat.Object, o lakeformat.Options, want []lakeformat.Record) {
	t.Helper()
	if obj.SHA256 != sha256.Sum256(obj.Body) {
		t.Errorf("%s: sha256 is not the body's", obj.Key)
	}
	pk, err := mustKeys(t).Parse(obj.Key)
	if err != nil {
		t.Fatalf("the writer's own key does not parse: %v", err)
	}
	if pk.Kind != lakeformat.KindData || pk.Window != testWindow() || pk.Format != o.Format {
		t.Errorf("key %s parses as %+v", obj.Key, pk)
	}
	minTs, maxTs := want[0].Ts, want[0].Ts
	for _, r := range want {
		minTs, maxTs = min(minTs, r.Ts), max(maxTs, r.Ts)
	}
	if obj.MinTs != minTs || obj.MaxTs != maxTs {
		t.Errorf("%s: ts %d..%d, want %d..%d", obj.Key, obj.MinTs, obj.MaxTs, minTs, maxTs)
	}
	got, err := lakeformat.Decode(obj.Body, o.Format, o.Codec)
	if err != nil {
		t.Fatal(err)
	}
	assertRecords(t, got, want, o.Format == lakeformat.JSONL)
}

func TestWindowRefusals(t *testing.T) {
	w := testWindow()
	o := lakeformat.Options{Format: lakeformat.JSONL, Codec: lakeformat.Zstd}
	var emitted int
	ww, err := lakeformat.NewWindowWriter(mustKeys(t), w, lakeformat.AlignHour, lakeformat.PerPartition, o,
		func(*lakeformat.Object) error { emitted++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	in := lakeformat.Record{Partition: "b", Offset: 3, Ts: w.TStart}
	if err := ww.Add(&in); err != nil {
		t.Fatal(err)
	}
	for _, r := range []lakeformat.Record{
		{Partition: "b", Offset: 4, Ts: w.TEnd},       // at the exclusive end
		{Partition: "b", Offset: 4, Ts: w.TStart - 1}, // before the start
	} {
		if err := ww.Add(&r); !errors.Is(err, lakeformat.ErrInvalidRecord) || !strings.Contains(err.Error(), "outside window 7") {
			t.Errorf("ts %d: %v, want ErrInvalidRecord naming the window", r.Ts, err)
		}
	}
	back := lakeformat.Record{Partition: "a", Offset: 0, Ts: w.TStart}
	if err := ww.Add(&back); !errors.Is(err, lakeformat.ErrOutOfOrder) {
		t.Errorf("partition a after b: %v, want ErrOutOfOrder", err)
	}
	if emitted != 0 {
		t.Errorf("a refused record finished the open object")
	}
	if err := ww.Close(); err != nil || emitted != 1 || ww.Records() != 1 {
		t.Errorf("close: %v, %d objects of %d records, want 1 of 1", err, emitted, ww.Records())
	}

	if _, err := lakeformat.NewWindowWriter(mustKeys(t), lakeformat.Window{Tenant: "t", Queue: "q", K: 0, TStart: 1, TEnd: 2},
		lakeformat.AlignHour, lakeformat.Merged, o, nil); err == nil {
		t.Error("window k=0 accepted")
	}
	if _, err := lakeformat.NewWindowWriter(mustKeys(t), w, lakeformat.AlignHour, 0, o, nil); !errors.Is(err, lakeformat.ErrBadSetting) {
		t.Errorf("layout 0: %v, want ErrBadSetting", err)
	}
	crossing := w
	crossing.TEnd = w.TStart + 2*3600*1_000_000
	if _, err := lakeformat.NewWindowWriter(mustKeys(t), crossing, lakeformat.AlignHour, lakeformat.Merged, o, nil); err == nil {
		t.Error("a window crossing the hour was accepted with AlignHour")
	}
}

// An error from emit (an upload that failed) stops the writer with it.
func TestWindowEmitError(t *testing.T) {
	boom := errors.New("bucket down")
	ww, err := lakeformat.NewWindowWriter(mustKeys(t), testWindow(), lakeformat.AlignHour, lakeformat.PerPartition,
		lakeformat.Options{Format: lakeformat.Parquet, Codec: lakeformat.Snappy}, func(*lakeformat.Object) error { return boom })
	if err != nil {
		t.Fatal(err)
	}
	w := testWindow()
	for _, r := range []lakeformat.Record{{Partition: "a", Ts: w.TStart}, {Partition: "b", Ts: w.TStart}} {
		err = ww.Add(&r)
	}
	if !errors.Is(err, boom) {
		t.Fatalf("second partition: %v, want the emit error", err)
	}
	if err := ww.Close(); !errors.Is(err, boom) {
		t.Errorf("close after emit error: %v", err)
	}
}

// The objects of a window make a manifest that validates and round trips.
func TestWindowManifest(t *testing.T) {
	recs := gen.Sorted(gen.Records(500, 3, 80, 1791007200000000, 5))
	w := testWindow()
	o := lakeformat.Options{Format: lakeformat.Parquet, Codec: lakeformat.Zstd}
	objs, err := lakeformat.EncodeWindow(mustKeys(t), w, lakeformat.AlignHour, lakeformat.PerPartition, o, recs)
	if err != nil {
		t.Fatal(err)
	}
	m := lakeformat.Manifest{Sink: "default", Tenant: w.Tenant, Queue: w.Queue, K: w.K, TStart: w.TStart, TEnd: w.TEnd,
		Format: o.Format, Codec: o.Codec, Layout: lakeformat.PerPartition, Partitions: int64(len(objs)),
		Writer: "queen-s3/test " + o.WriterID(), CommittedAt: w.TEnd}
	minTs, maxTs := objs[0].MinTs, objs[0].MaxTs
	for _, obj := range objs {
		mo := obj.ManifestObject()
		if mo.Bytes != int64(len(obj.Body)) || *mo.Partition != obj.Part.Partition || *mo.LastOffset != obj.Part.LastOffset {
			t.Fatalf("manifest entry %+v does not describe object %s", mo, obj.Key)
		}
		m.Objects = append(m.Objects, mo)
		m.Records += mo.Records
		m.Bytes += mo.Bytes
		minTs, maxTs = min(minTs, obj.MinTs), max(maxTs, obj.MaxTs)
	}
	m.MinTs, m.MaxTs = &minTs, &maxTs
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := lakeformat.DecodeManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	if back.Records != 500 || len(back.Objects) != 3 || back.Objects[2].SHA256 != m.Objects[2].SHA256 {
		t.Errorf("manifest came back as %+v", back)
	}
}
