package lakeformat

import (
	"reflect"
	"strings"
	"testing"
)

// fuzzPrefixes are the prefixes FuzzKeys builds under, chosen by mode.
var fuzzPrefixes = []string{"queen", "a/b.c/queen"}

// fuzzMode decodes FuzzKeys's mode into an alignment, options, whether the
// key names a part, and a prefix.
func fuzzMode(mode uint8) (Align, Options, bool, string) {
	m := int(mode)
	align := []Align{AlignHour, AlignDay, AlignNone}[m%3]
	o := allOpts[m/3%len(allOpts)]
	part := m/15%2 == 1
	return align, o, part, fuzzPrefixes[m/30%len(fuzzPrefixes)]
}

func FuzzKeys(f *testing.F) {
	f.Add(defTenant, "orders", "p", uint64(1), int64(specStart), int64(specEnd), int64(0), int64(0), uint8(0))
	f.Add("t", "q", "a-b/c", uint64(7), int64(0), int64(1), int64(0), int64(17), uint8(15))
	f.Add("..", ".", "/", uint64(12345678901), int64(MaxTs), int64(MaxTs+1), int64(3), int64(9), uint8(31))
	f.Add("é/日本", "😀 %", "-p-1-2", uint64(99), int64(specStart), int64(specStart+microsPerDay), int64(1), int64(2), uint8(47))
	f.Add("t\x00", "q%2F", "x.jsonl", uint64(2), int64(3600000000), int64(7200000000), int64(5), int64(5), uint8(22))
	f.Add("t", "q", "", uint64(0), int64(-1), int64(0), int64(-1), int64(-2), uint8(255))
	f.Fuzz(func(t *testing.T, tenant, queue, partition string, kk uint64, tStart, tEnd, first, last int64, mode uint8) {
		align, o, withPart, prefix := fuzzMode(mode)
		k := mustKeys(t, prefix)
		w := Window{Tenant: tenant, Queue: queue, K: kk, TStart: tStart, TEnd: tEnd}
		var part *Part
		if withPart {
			part = &Part{Partition: partition, FirstOffset: first, LastOffset: last}
		}
		key, err := k.Data(w, align, o, part)
		if err != nil {
			return
		}
		segs := strings.Count(prefix, "/") + 1 + 5
		if align == AlignDay {
			segs--
		}
		checkUnderPrefix(t, k, key, segs)
		p, err := k.Parse(key)
		if err != nil {
			t.Fatalf("Parse(%q): %v", key, err)
		}
		if p.Kind != KindData || p.Window != w || p.Format != o.Format || p.Hour != (align != AlignDay) ||
			!reflect.DeepEqual(p.Part, part) {
			t.Fatalf("Parse(%q) = %+v; built from %+v %v %v %+v", key, p, w, align, o, part)
		}
		if o.Format == JSONL && p.Codec != o.Codec || o.Format == Parquet && p.Codec != 0 {
			t.Fatalf("Parse(%q): codec %v, built with %v", key, p.Codec, o.Codec)
		}
		for kind, build := range map[KeyKind]func(string, string, uint64) (string, error){
			KindManifest: k.Manifest, KindCheckpoint: k.Checkpoint,
		} {
			side, err := build(tenant, queue, kk)
			if err != nil {
				t.Fatalf("%v(%q, %q, %d): %v", kind, tenant, queue, kk, err)
			}
			checkUnderPrefix(t, k, side, strings.Count(prefix, "/")+1+5)
			p, err := k.Parse(side)
			if want := (ParsedKey{Kind: kind, Window: Window{Tenant: tenant, Queue: queue, K: kk}}); err != nil || !reflect.DeepEqual(p, want) {
				t.Fatalf("Parse(%q) = %+v, %v; want %+v", side, p, err, want)
			}
		}
	})
}

func FuzzParseKey(f *testing.F) {
	const q = "queen/tenant=" + defTenant + "/queue=orders/"
	for _, s := range []string{
		q + "dt=2026-10-03/hour=06/w-0000000001-1791007200000000-1791009458377855.jsonl.zst",
		q + "dt=2026-10-03/w-0000000001-1791007200000000-1791009458377855-p-a-b%2Fc-0-17.parquet",
		"queen/_queen/tenant=" + defTenant + "/queue=orders/windows/0000000001.json",
		"queen/_queen/tenant=t/queue=q/checkpoint/12345678901.json.zst",
		q + "dt=1970-01-01/w-0000000001-0-86400000001.jsonl",
		q + "dt=1970-01-01/hour=00/w-0000000001-0-1-p---0-0.jsonl.gz",
		"queen/tenant=%/queue=q/dt=1970-01-01/w-0000000001-0-1.jsonl",
		"", "queen/", "queen//",
	} {
		f.Add(s)
	}
	k := mustKeys(f, "queen")
	f.Fuzz(func(t *testing.T, key string) {
		p, err := k.Parse(key)
		if err != nil {
			return
		}
		checkUnderPrefix(t, k, key, -1)
		var again string
		switch p.Kind {
		case KindData:
			align := AlignDay
			if p.Hour {
				align = AlignNone
			}
			o := Options{Format: p.Format, Codec: p.Codec}
			if p.Format == Parquet {
				if p.Codec != 0 {
					t.Fatalf("Parse(%q): Parquet with codec %v", key, p.Codec)
				}
				o.Codec = Snappy
			}
			again, err = k.Data(p.Window, align, o, p.Part)
		case KindManifest:
			again, err = k.Manifest(p.Window.Tenant, p.Window.Queue, p.Window.K)
		case KindCheckpoint:
			again, err = k.Checkpoint(p.Window.Tenant, p.Window.Queue, p.Window.K)
		default:
			t.Fatalf("Parse(%q): kind %v", key, p.Kind)
		}
		if err != nil || again != key {
			t.Fatalf("Parse(%q) = %+v; rebuilt %q, %v", key, p, again, err)
		}
	})
}
