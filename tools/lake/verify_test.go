package lake_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/s3sink/s3test"
	"github.com/queen-mq/queen-go/tools/lake"
)

// has fails unless r failed check c with a message holding each of subs.
func has(t *testing.T, r lake.Report, c lake.Check, subs ...string) {
	t.Helper()
	for _, p := range r.Problems {
		if p.Check != c {
			continue
		}
		ok := true
		for _, s := range subs {
			ok = ok && strings.Contains(p.String(), s)
		}
		if ok {
			return
		}
	}
	t.Errorf("no %s problem with %q; the report:\n%s", c, subs, text(r))
}

// only fails unless every problem of r is one of checks.
func only(t *testing.T, r lake.Report, checks ...lake.Check) {
	t.Helper()
	for _, p := range r.Problems {
		found := false
		for _, c := range checks {
			found = found || p.Check == c
		}
		if !found {
			t.Errorf("unexpected problem: %s", p)
		}
	}
}

func text(r lake.Report) string {
	var b bytes.Buffer
	_, _ = r.WriteTo(&b)
	return b.String()
}

func TestVerifyPasses(t *testing.T) {
	srv := s3test.Versitygw(t)
	f := newFixture()
	b := builtBucket(t, srv, f)
	r := b.verify("")
	if !r.OK() || len(r.Notes) != 0 {
		t.Fatalf("a sound lake fails:\n%s", text(r))
	}
	var records, objects int64
	for _, ws := range f.windows {
		records += int64(len(f.records(ws)))
	}
	for _, m := range b.built {
		objects += int64(len(m.Objects))
	}
	if r.Windows != 6 || r.Records != records || int64(r.Objects) != objects || r.Lost != 2 ||
		r.FirstTEnd != t0+10*minute || r.LastTEnd != t0+60*minute {
		t.Errorf("summary: %+v; want 6 windows, %d records, %d objects, 2 lost", r, records, objects)
	}
	out := text(r)
	for _, want := range []string{
		"windows 6, objects " + strconv.FormatInt(objects, 10) + ", records " + strconv.FormatInt(records, 10),
		"first tEnd 2026-10-03T06:10:00.000000Z, last tEnd 2026-10-03T07:00:00.000000Z",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasSuffix(out, "\nOK\n") {
		t.Errorf("summary does not end in OK:\n%s", out)
	}
}

// TestVerifyCatches breaks a sound lake in each way the checks catch.
func TestVerifyCatches(t *testing.T) {
	srv := s3test.Versitygw(t)
	cases := []struct {
		name   string
		break_ func(t *testing.T, b *bucket, f *fixture)
		check  func(t *testing.T, r lake.Report)
	}{{
		name:   "missing object",
		break_: func(t *testing.T, b *bucket, f *fixture) { b.remove(b.built[2].Objects[0].Key) },
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckObject, "k=2", "missing")
			only(t, r, lake.CheckObject)
		},
	}, {
		name: "wrong sha256",
		break_: func(t *testing.T, b *bucket, f *fixture) {
			m := b.built[3]
			m.Objects[0].SHA256 = strings.Repeat("ab", 32)
			b.putManifest(m)
		},
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckObject, "k=3", "sha256", "the manifest says abab")
			only(t, r, lake.CheckObject)
		},
	}, {
		name: "object rewritten",
		break_: func(t *testing.T, b *bucket, f *fixture) {
			// Window 4's Parquet object replaced by window 1's bytes.
			body := encode(t, f.records(f.windows[0]), jsonlZstd)
			b.put(b.built[4].Objects[0].Key, body)
		},
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckObject, "k=4", "bytes, the manifest says")
			has(t, r, lake.CheckObject, "k=4", "sha256")
			has(t, r, lake.CheckObject, "k=4", "does not decode as parquet")
			only(t, r, lake.CheckObject)
		},
	}, {
		name: "record in two windows",
		break_: func(t *testing.T, b *bucket, f *fixture) {
			// cust-1 offset 4 (window 1) written again in window 2, stamped
			// inside window 2.
			recs := f.records(f.windows[1])
			dup := f.log["cust-1"][4]
			dup.Ts = f.windows[1].tStart
			recs = append(recs, dup)
			sortRecords(recs)
			b.window(2, f.windows[1], recs, nil)
		},
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckDuplicate, `partition "cust-1" offset 4 is in windows 1 and 2`)
			only(t, r, lake.CheckDuplicate)
		},
	}, {
		name: "offsets going back",
		break_: func(t *testing.T, b *bucket, f *fixture) {
			// cust-1 offset 9, window 2's last of cust-1, moved to window 1.
			moved := f.log["cust-1"][9]
			moved.Ts = f.windows[0].tEnd - 1
			w1 := append(f.records(f.windows[0]), moved)
			sortRecords(w1)
			b.window(1, f.windows[0], w1, b.built[1].Lost)
			var w2 []lakeformat.Record
			for _, r := range f.records(f.windows[1]) {
				if r.Partition != "cust-1" || r.Offset != 9 {
					w2 = append(w2, r)
				}
			}
			b.window(2, f.windows[1], w2, nil)
		},
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckOffsets, "k=2", `partition "cust-1": offset 5 comes after offset 9 of window 1`)
			only(t, r, lake.CheckOffsets)
		},
	}, {
		name:   "gap in k",
		break_: func(t *testing.T, b *bucket, f *fixture) { b.remove(b.manifestKey(3)) },
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckSequence, "window 3 is missing")
			has(t, r, lake.CheckOrphan, "k=3") // its object, named by no manifest now
			only(t, r, lake.CheckSequence, lake.CheckOrphan)
		},
	}, {
		name: "windows 1..2 missing",
		break_: func(t *testing.T, b *bucket, f *fixture) {
			b.remove(b.manifestKey(1))
			b.remove(b.manifestKey(2))
			b.remove(b.built[1].Objects[0].Key)
			b.remove(b.built[2].Objects[0].Key)
		},
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckSequence, "windows 1..2 are missing")
			only(t, r, lake.CheckSequence)
		},
	}, {
		name: "overlapping windows",
		break_: func(t *testing.T, b *bucket, f *fixture) {
			ws := f.windows[2]
			recs := f.records(ws)
			b.remove(b.built[3].Objects[0].Key)
			ws.tStart = f.windows[1].tEnd - 5*minute
			b.window(3, ws, recs, nil)
		},
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckOverlap, "k=3", "starts at 2026-10-03T06:15:00.000000Z, before window 2 ends at 2026-10-03T06:20:00.000000Z")
			only(t, r, lake.CheckOverlap)
		},
	}, {
		name: "orphans",
		break_: func(t *testing.T, b *bucket, f *fixture) {
			dir := "queen/tenant=" + tenant + "/queue=orders/dt=2026-10-03/hour=06/"
			b.put(dir+"stray.jsonl", []byte("x"))
			// A key of window 2 with another tEnd: a stray, since keys are
			// deterministic.
			b.put(dir+"w-0000000002-1791007800000000-1791008300000000.jsonl.gz", []byte("x"))
			// A key of window 7, past the last manifest: in flight.
			b.put("queen/tenant="+tenant+"/queue=orders/dt=2026-10-03/hour=07/w-0000000007-1791010800000000-1791011100000000.jsonl.zst", []byte("x"))
			// Another queue's object is none of this queue's business.
			b.put("queen/tenant="+tenant+"/queue=orders2/dt=2026-10-03/hour=06/stray", []byte("x"))
		},
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckOrphan, "stray.jsonl", "no manifest names this object (1 bytes)")
			has(t, r, lake.CheckOrphan, "k=2", "w-0000000002-1791007800000000-1791008300000000.jsonl.gz")
			only(t, r, lake.CheckOrphan)
			if len(r.Problems) != 2 {
				t.Errorf("%d problems, want 2:\n%s", len(r.Problems), text(r))
			}
			if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "window 7 has 1 data objects and no manifest yet") {
				t.Errorf("notes: %q", r.Notes)
			}
		},
	}, {
		name: "records outside their window",
		break_: func(t *testing.T, b *bucket, f *fixture) {
			// Window 2's object holds a record stamped in window 1: written
			// with an Encoder, since the WindowWriter refuses it.
			ws := f.windows[1]
			in := f.records(ws)
			stray := f.log["a b/c"][0] // stamped t0+1min
			recs := append([]lakeformat.Record{stray}, in...)
			sortRecords(recs)
			body := encode(t, recs, ws.opts)
			w := lakeformat.Window{Tenant: tenant, Queue: queue, K: 2, TStart: ws.tStart, TEnd: ws.tEnd}
			key, err := b.keys.Data(w, lakeformat.AlignHour, ws.opts, nil)
			if err != nil {
				t.Fatal(err)
			}
			b.put(key, body)
			mo := lakeformat.ManifestObject{Key: key, Bytes: int64(len(body)), Records: int64(len(recs)), SHA256: sha(body)}
			b.putManifest(b.manifest(w, ws, []lakeformat.ManifestObject{mo}, in, nil))
		},
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckObject, "k=2", "1 records stamped outside the window [2026-10-03T06:10:00.000000Z, 2026-10-03T06:20:00.000000Z)",
				`partition "a b/c" offset 0 at 2026-10-03T06:01:00.002000Z`)
			has(t, r, lake.CheckObject, "k=2", "manifest says minTs")
			has(t, r, lake.CheckDuplicate, `partition "a b/c" offset 0 is in windows 1 and 2`)
			only(t, r, lake.CheckObject, lake.CheckDuplicate)
		},
	}, {
		name: "per-partition object of the wrong partition",
		break_: func(t *testing.T, b *bucket, f *fixture) {
			// Window 5's object of cust-1 replaced by one that holds
			// cust-1's 20..22 and cust-2's 20..21, and the manifest made to
			// agree on size, sha256 and count.
			m := b.built[5]
			var recs []lakeformat.Record
			for _, r := range f.records(f.windows[4]) {
				if r.Partition == "cust-1" && r.Offset <= 22 || r.Partition == "cust-2" && r.Offset <= 21 {
					recs = append(recs, r)
				}
			}
			for i := range m.Objects {
				if o := &m.Objects[i]; *o.Partition == "cust-1" {
					body := encode(t, recs, jsonlZstd)
					b.put(o.Key, body)
					o.Bytes, o.SHA256, o.Records = int64(len(body)), sha(body), int64(len(recs))
				}
			}
			m.Records, m.Bytes = 0, 0
			for _, o := range m.Objects {
				m.Records += o.Records
				m.Bytes += o.Bytes
			}
			b.putManifest(m)
		},
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckObject, "k=5", `records of other partitions than "cust-1"`)
			has(t, r, lake.CheckObject, "k=5", "offsets 20..21, the manifest says 20..24")
			has(t, r, lake.CheckDuplicate, `partition "cust-2" offsets 20..21 (2 records) are twice in window 5`)
			only(t, r, lake.CheckObject, lake.CheckDuplicate)
		},
	}, {
		name: "bad manifests",
		break_: func(t *testing.T, b *bucket, f *fixture) {
			b.put(b.manifestKey(4), []byte(`{"k":4}`))
			// Window 6's manifest under key 7 as well.
			body, _ := b.built[6].Encode()
			b.put(b.manifestKey(7), body)
			b.put("queen/_queen/tenant="+tenant+"/queue=orders/windows/notes.txt", []byte("x"))
		},
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckManifest, "k=4", "bad manifest")
			has(t, r, lake.CheckManifest, "k=7", "manifest says k 6, its key k 7")
			has(t, r, lake.CheckManifest, "notes.txt", "bad key")
			has(t, r, lake.CheckOverlap, "k=7") // window 6 again
			has(t, r, lake.CheckDuplicate, `partition "cust-1" offsets 25..27 (3 records) are in windows 6 and 7`)
			has(t, r, lake.CheckOrphan, "k=4") // window 4's object, named by no manifest that decodes
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			b := builtBucket(t, srv, f)
			c.break_(t, b, f)
			r := b.verify("")
			if r.OK() {
				t.Fatalf("the broken lake passes:\n%s", text(r))
			}
			c.check(t, r)
			if t.Failed() || testing.Verbose() {
				t.Logf("the report:\n%s", text(r))
			}
		})
	}
}
