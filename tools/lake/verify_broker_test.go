package lake_test

import (
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/s3sink/s3test"
	"github.com/queen-mq/queen-go/tools/lake"
)

// Offsets of cust-1 in the fixture: window 1 holds 0..4, window 2 5..9,
// window 4 (Parquet) 15..19, window 6 25..27; 28 and 29 come after the
// last window.

func TestVerifyBroker(t *testing.T) {
	srv := s3test.Versitygw(t)
	f := newFixture()
	b := builtBucket(t, srv, f)
	cases := []struct {
		name   string
		change func(t *testing.T, fb *fakeBroker)
		check  func(t *testing.T, r lake.Report)
	}{{
		name:   "agrees",
		change: func(t *testing.T, fb *fakeBroker) {},
		check: func(t *testing.T, r lake.Report) {
			if !r.OK() {
				t.Fatalf("the lake and the broker disagree:\n%s", text(r))
			}
			bs := r.Broker
			if bs == nil || bs.Partitions != 5 || bs.Compared != r.Records-2 || bs.Retained != 2 || bs.Before != 2 {
				t.Errorf("broker summary %+v; want 5 partitions, %d compared, 2 retained, 2 before", bs, r.Records-2)
			}
			notes := strings.Join(r.Notes, "\n")
			for _, want := range []string{
				`partition "cust-2": 2 lake records (offsets 0..1) are below the broker's log start 2`,
				"the broker holds 2 records stamped before the first window's start 2026-10-03T06:00:00.000000Z",
			} {
				if !strings.Contains(notes, want) {
					t.Errorf("notes lack %q:\n%s", want, notes)
				}
			}
			if out := text(r); !strings.Contains(out, "broker: 5 partitions") {
				t.Errorf("no broker line:\n%s", out)
			}
		},
	}, {
		name: "missing records",
		change: func(t *testing.T, fb *fakeBroker) {
			// A partition the lake never saw: one record in window 2, one
			// in the stretch between windows 5 and 6 that the sink skipped.
			fb.add(lakeformat.Record{Partition: "late", Offset: 0, TransactionID: "l0", Ts: t0 + 12*minute, Payload: []byte(`1`)})
			fb.add(lakeformat.Record{Partition: "late", Offset: 1, TransactionID: "l1", Ts: t0 + 52*minute, Payload: []byte(`2`)})
			fb.add(lakeformat.Record{Partition: "late", Offset: 2, TransactionID: "l2", Ts: t0 + 70*minute, Payload: []byte(`3`)})
		},
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckMissing, `partition "late" offsets 0..1 (2 records) are in the broker (stamped 2026-10-03T06:12:00.000000Z..2026-10-03T06:52:00.000000Z), not in the lake`)
			only(t, r, lake.CheckMissing)
			if len(r.Problems) != 1 {
				t.Errorf("%d problems, want 1 (offset 2 is after the last window)", len(r.Problems))
			}
		},
	}, {
		name: "records after the start point, before the first window",
		change: func(t *testing.T, fb *fakeBroker) {
			// The sink's start point is before partition "old": the sink
			// owed those records, and the first window left them out.
			at := t0 - 10*minute
			fb.startPoint = &at
		},
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckMissing, `partition "old" offsets 0..1 (2 records) are in the broker`)
			only(t, r, lake.CheckMissing)
		},
	}, {
		name: "records before the start point",
		change: func(t *testing.T, fb *fakeBroker) {
			at := t0 - 1*minute
			fb.startPoint = &at
		},
		check: func(t *testing.T, r lake.Report) {
			if !r.OK() || r.Broker.Before != 2 {
				t.Fatalf("records before the start point are a note: %+v\n%s", r.Broker, text(r))
			}
		},
	}, {
		name: "extra records",
		change: func(t *testing.T, fb *fakeBroker) {
			fb.drop("cust-1", 10)
			fb.drop("cust-1", 11)
			fb.remove("a b/c")
		},
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckExtra, "k=3", `partition "cust-1" offsets 10..11 (2 records) are in the lake (window 3), not in the broker (log start 0)`)
			has(t, r, lake.CheckExtra, `partition "a b/c": 28 records in the lake (offsets 0..27), the broker lists no such partition`)
			only(t, r, lake.CheckExtra)
		},
	}, {
		name: "different records",
		change: func(t *testing.T, fb *fakeBroker) {
			fb.record(t, "cust-1", 4).Payload = []byte(`"changed"`)
			fb.record(t, "cust-2", 5).TransactionID = "other"
			fb.record(t, "cust-3", 26).Ts++
		},
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckMismatch, "k=1", `partition "cust-1" offset 4: payload differs (broker's: "changed")`)
			has(t, r, lake.CheckMismatch, "k=2", `partition "cust-2" offset 5: transactionId "tx-cust-2-5" in the lake, "other" in the broker`)
			has(t, r, lake.CheckMismatch, "k=6", `partition "cust-3" offset 26: ts 2026-10-03T06:57:00.003000Z in the lake, 2026-10-03T06:57:00.003001Z in the broker`)
			only(t, r, lake.CheckMismatch)
		},
	}, {
		name: "Parquet payloads compare JSON-equal",
		change: func(t *testing.T, fb *fakeBroker) {
			fb.record(t, "cust-1", 15).Payload = []byte(`{ "order": 15,  "total": 42.00 }`)
		},
		check: func(t *testing.T, r lake.Report) {
			if !r.OK() {
				t.Errorf("a Parquet payload with other whitespace fails:\n%s", text(r))
			}
		},
	}, {
		name: "JSONL payloads compare exactly",
		change: func(t *testing.T, fb *fakeBroker) {
			fb.record(t, "cust-1", 0).Payload = []byte(`{ "order": 0,  "total": 42.00 }`)
			fb.record(t, "cust-1", 5).Payload = []byte(`{"order":5,"total":42.0}`)
		},
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckMismatch, "k=1", `partition "cust-1" offset 0: payload differs`)
			has(t, r, lake.CheckMismatch, "k=2", `partition "cust-1" offset 5: payload differs`)
			only(t, r, lake.CheckMismatch)
		},
	}, {
		name: "log start moves during the run",
		change: func(t *testing.T, fb *fakeBroker) {
			// Discovery says cust-2 starts at 0; the fetch finds it at 2.
			fb.listedStart = map[string]int64{"cust-2": 0}
		},
		check: func(t *testing.T, r lake.Report) {
			if !r.OK() || r.Broker.Retained != 2 {
				t.Errorf("a log start that moved fails, or the lake's records below it are not counted:\n%s", text(r))
			}
		},
	}, {
		name:   "unknown queue",
		change: func(t *testing.T, fb *fakeBroker) { fb.queue = "other" },
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckBroker, `the broker has no queue "orders"`)
			has(t, r, lake.CheckExtra, `partition "cust-1"`, "the broker lists no such partition")
			only(t, r, lake.CheckBroker, lake.CheckExtra)
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fb := newFakeBroker(f)
			c.change(t, fb)
			r := b.verify(fb.serve(t))
			c.check(t, r)
			if t.Failed() || testing.Verbose() {
				t.Logf("the report:\n%s", text(r))
			}
		})
	}
}

// TestVerifyBrokerLost checks the lost ranges against what the broker no
// longer holds.
func TestVerifyBrokerLost(t *testing.T) {
	srv := s3test.Versitygw(t)
	cases := []struct {
		name  string
		set   func(f *fixture)
		check func(t *testing.T, r lake.Report)
	}{{
		name: "gone and in no lost range",
		set: func(f *fixture) {
			f.skip["cust-1"] = []int64{3, 4}
			f.brokerStart["cust-1"] = 5
		},
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckLost, `partition "cust-1" offsets 3..4 (2 records) are gone from the broker (log start 5), not in the lake, and in no lost range`)
			only(t, r, lake.CheckLost)
		},
	}, {
		name: "skipped while the broker has them",
		set:  func(f *fixture) { f.skip["cust-1"] = []int64{3, 4} },
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckMissing, `partition "cust-1" offsets 3..4 (2 records) are`)
			only(t, r, lake.CheckMissing)
		},
	}, {
		name: "gone up to the log start, the broker's first record in the lake's span",
		set: func(f *fixture) {
			// The lake stops reading cust-1 after offset 20 (window 5) with
			// no lost range; the broker deleted up to 26, stamped before
			// the last tEnd.
			for o := int64(21); o < 30; o++ {
				f.skip["cust-1"] = append(f.skip["cust-1"], o)
			}
			f.brokerStart["cust-1"] = 26
		},
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckLost, `partition "cust-1" offsets 21..25 (5 records) are gone from the broker (log start 26)`)
			has(t, r, lake.CheckMissing, `partition "cust-1" offsets 26..27 (2 records) are`)
			only(t, r, lake.CheckLost, lake.CheckMissing)
		},
	}, {
		name: "gone past the lake's end",
		set:  func(f *fixture) { f.brokerStart["cust-1"] = 29 },
		check: func(t *testing.T, r lake.Report) {
			if !r.OK() {
				t.Fatalf("retention past the lake's end fails:\n%s", text(r))
			}
			notes := strings.Join(r.Notes, "\n")
			for _, want := range []string{
				`partition "cust-1": 28 lake records (offsets 0..27) are below the broker's log start 29`,
				`partition "cust-1": offsets 28..28 are gone from the broker past the lake's last record`,
			} {
				if !strings.Contains(notes, want) {
					t.Errorf("notes lack %q:\n%s", want, notes)
				}
			}
		},
	}, {
		name: "lost range over a record the lake holds",
		set: func(f *fixture) {
			f.lakeStart["cust-1"] = 0
			f.lostExtra = []lakeformat.LostRange{{Partition: "cust-1", From: 4, To: 5}}
		},
		check: func(t *testing.T, r lake.Report) {
			has(t, r, lake.CheckLost, "k=1", `partition "cust-1": lost range 4..5 covers offset 4, which the lake holds (window 1)`)
			only(t, r, lake.CheckLost)
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			c.set(f)
			b := builtBucket(t, srv, f)
			r := b.verify(newFakeBroker(f).serve(t))
			c.check(t, r)
			if t.Failed() || testing.Verbose() {
				t.Logf("the report:\n%s", text(r))
			}
		})
	}
}
