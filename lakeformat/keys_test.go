package lakeformat

import (
	"errors"
	"path"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

const (
	defTenant = "00000000-0000-0000-0000-000000000001"
	specStart = 1791007200000000 // 2026-10-03T06:00:00Z
	specEnd   = 1791009458377855
)

var (
	specWin = Window{Tenant: defTenant, Queue: "orders", K: 1, TStart: specStart, TEnd: specEnd}
	jsonZst = Options{Format: JSONL, Codec: Zstd}
	allOpts = []Options{jsonZst, {Format: JSONL, Codec: Gzip}, {Format: JSONL, Codec: None},
		{Format: Parquet, Codec: Zstd}, {Format: Parquet, Codec: Snappy}}
)

func mustKeys(t testing.TB, prefix string) Keys {
	t.Helper()
	k, err := NewKeys(prefix)
	if err != nil {
		t.Fatalf("NewKeys(%q): %v", prefix, err)
	}
	return k
}

func TestKeysShapes(t *testing.T) {
	const q = "queen/tenant=" + defTenant + "/queue=orders/"
	big := specWin
	big.K = 12345678901
	day := Window{Tenant: "t 1", Queue: "a/b", K: 42, TStart: 0, TEnd: microsPerDay}
	long := Window{Tenant: "t", Queue: "q", K: 7, TStart: specStart + 5, TEnd: specStart + 3*microsPerDay}
	for _, tc := range []struct {
		name   string
		prefix string
		w      Window
		align  Align
		o      Options
		part   *Part
		want   string
	}{
		{"spec", "queen", specWin, AlignHour, jsonZst, nil,
			q + "dt=2026-10-03/hour=06/w-0000000001-1791007200000000-1791009458377855.jsonl.zst"},
		{"outer slashes", "/queen/", specWin, AlignHour, jsonZst, nil,
			q + "dt=2026-10-03/hour=06/w-0000000001-1791007200000000-1791009458377855.jsonl.zst"},
		{"gzip", "queen", specWin, AlignHour, allOpts[1], nil,
			q + "dt=2026-10-03/hour=06/w-0000000001-1791007200000000-1791009458377855.jsonl.gz"},
		{"none", "queen", specWin, AlignHour, allOpts[2], nil,
			q + "dt=2026-10-03/hour=06/w-0000000001-1791007200000000-1791009458377855.jsonl"},
		{"parquet", "queen", specWin, AlignHour, allOpts[4], nil,
			q + "dt=2026-10-03/hour=06/w-0000000001-1791007200000000-1791009458377855.parquet"},
		{"big k", "queen", big, AlignHour, jsonZst, nil,
			q + "dt=2026-10-03/hour=06/w-12345678901-1791007200000000-1791009458377855.jsonl.zst"},
		{"day", "lake/v1", day, AlignDay, jsonZst, nil,
			"lake/v1/tenant=t%201/queue=a%2Fb/dt=1970-01-01/w-0000000042-0-86400000000.jsonl.zst"},
		{"none align", "queen", long, AlignNone, allOpts[3], nil,
			"queen/tenant=t/queue=q/dt=2026-10-03/hour=06/w-0000000007-1791007200000005-1791266400000000.parquet"},
		{"part", "queen", specWin, AlignHour, jsonZst, &Part{Partition: "a-b/c", FirstOffset: 0, LastOffset: 17},
			q + "dt=2026-10-03/hour=06/w-0000000001-1791007200000000-1791009458377855-p-a-b%2Fc-0-17.jsonl.zst"},
		{"part day", "queen", specWin, AlignDay, allOpts[3], &Part{Partition: "p-1-2", FirstOffset: 5, LastOffset: 5},
			q + "dt=2026-10-03/w-0000000001-1791007200000000-1791009458377855-p-p-1-2-5-5.parquet"},
	} {
		got, err := mustKeys(t, tc.prefix).Data(tc.w, tc.align, tc.o, tc.part)
		if err != nil || got != tc.want {
			t.Errorf("%s: Data = %q, %v\nwant %q", tc.name, got, err, tc.want)
		}
	}
	k := mustKeys(t, "queen")
	m, err := k.Manifest(defTenant, "orders", 1)
	if want := "queen/_queen/tenant=" + defTenant + "/queue=orders/windows/0000000001.json"; err != nil || m != want {
		t.Errorf("Manifest = %q, %v; want %q", m, err, want)
	}
	c, err := k.Checkpoint("t/x", "q", 12345678901)
	if want := "queen/_queen/tenant=t%2Fx/queue=q/checkpoint/12345678901.json.zst"; err != nil || c != want {
		t.Errorf("Checkpoint = %q, %v; want %q", c, err, want)
	}
}

func TestKeysRoundTrip(t *testing.T) {
	k := mustKeys(t, "a/b.c/queen")
	parts := []*Part{nil, {Partition: "p", FirstOffset: 0, LastOffset: 0},
		{Partition: "x-1-2 é/%", FirstOffset: 3, LastOffset: 1 << 62}}
	wins := []Window{specWin,
		{Tenant: "t-9", Queue: "q-9-9", K: 99999999999, TStart: MaxTs, TEnd: MaxTs + 1},
		{Tenant: "w-1-2-3", Queue: "tenant=x", K: 1, TStart: 0, TEnd: 1}}
	for _, w := range wins {
		for _, align := range []Align{AlignHour, AlignDay, AlignNone} {
			for _, o := range allOpts {
				for _, part := range parts {
					key, err := k.Data(w, align, o, part)
					if err != nil {
						t.Fatalf("Data(%+v, %v, %v, %+v): %v", w, align, o, part, err)
					}
					p, err := k.Parse(key)
					wantCodec := o.Codec
					if o.Format == Parquet {
						wantCodec = 0
					}
					want := ParsedKey{Kind: KindData, Window: w, Hour: align != AlignDay,
						Format: o.Format, Codec: wantCodec, Part: part}
					if err != nil || !reflect.DeepEqual(p, want) {
						t.Errorf("Parse(%q) = %+v, %v\nwant %+v", key, p, err, want)
					}
				}
			}
		}
		side := Window{Tenant: w.Tenant, Queue: w.Queue, K: w.K}
		for kind, build := range map[KeyKind]func(string, string, uint64) (string, error){
			KindManifest: k.Manifest, KindCheckpoint: k.Checkpoint,
		} {
			key, err := build(w.Tenant, w.Queue, w.K)
			if err != nil {
				t.Fatalf("%v(%+v): %v", kind, w, err)
			}
			p, err := k.Parse(key)
			if want := (ParsedKey{Kind: kind, Window: side}); err != nil || !reflect.DeepEqual(p, want) {
				t.Errorf("Parse(%q) = %+v, %v\nwant %+v", key, p, err, want)
			}
		}
	}
}

func TestNewKeysRefuses(t *testing.T) {
	for _, p := range []string{"", "/", "//", "a//b", "a/./b", "..", "a/..", "./a",
		"a\xffb", "a\x00b", "a\nb", "a\x7fb", "a/\tb"} {
		_, err := NewKeys(p)
		if !errors.Is(err, ErrBadSetting) || !strings.Contains(err.Error(), strconv.Quote(p)) {
			t.Errorf("NewKeys(%q) = %v; want ErrBadSetting naming the prefix", p, err)
		}
	}
	if k := mustKeys(t, "///a b/%c/é//"); k.Prefix() != "a b/%c/é" {
		t.Errorf("Prefix() = %q", k.Prefix())
	}
}

func TestDataRefuses(t *testing.T) {
	k := mustKeys(t, "queen")
	w := func(f func(*Window)) Window { c := specWin; f(&c); return c }
	for _, tc := range []struct {
		w     Window
		align Align
		o     Options
		part  *Part
		is    error
		names string
	}{
		{w(func(w *Window) { w.Tenant = "" }), AlignHour, jsonZst, nil, ErrBadKey, `tenant ""`},
		{w(func(w *Window) { w.Queue = "" }), AlignHour, jsonZst, nil, ErrBadKey, `queue ""`},
		{w(func(w *Window) { w.K = 0 }), AlignHour, jsonZst, nil, ErrBadKey, "k 0"},
		{w(func(w *Window) { w.TStart = -1 }), AlignHour, jsonZst, nil, ErrBadKey, "tStart -1"},
		{w(func(w *Window) { w.TEnd = w.TStart }), AlignHour, jsonZst, nil, ErrBadKey, "tEnd 1791007200000000"},
		{w(func(w *Window) { w.TStart, w.TEnd = MaxTs, MaxTs+2 }), AlignNone, jsonZst, nil, ErrBadKey, "tEnd 253402300800000001"},
		{w(func(w *Window) { w.TEnd = specStart + microsPerHour + 1 }), AlignHour, jsonZst, nil, ErrBadKey, "1791010800000001"},
		{w(func(w *Window) { w.TEnd = specStart + microsPerDay }), AlignDay, jsonZst, nil, ErrBadKey, "1791072000000000"},
		{specWin, 0, jsonZst, nil, ErrBadSetting, "Align(0)"},
		{specWin, AlignHour, Options{Format: JSONL, Codec: Snappy}, nil, ErrBadSetting, "snappy"},
		{specWin, AlignHour, Options{Format: Parquet, Codec: Gzip}, nil, ErrBadSetting, "gzip"},
		{specWin, AlignHour, Options{}, nil, ErrBadSetting, "Format(0)"},
		{specWin, AlignHour, jsonZst, &Part{}, ErrBadKey, `partition ""`},
		{specWin, AlignHour, jsonZst, &Part{Partition: "p", FirstOffset: -1}, ErrBadKey, "firstOffset -1"},
		{specWin, AlignHour, jsonZst, &Part{Partition: "p", FirstOffset: 5, LastOffset: 4}, ErrBadKey, "lastOffset 4"},
	} {
		key, err := k.Data(tc.w, tc.align, tc.o, tc.part)
		if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.names) {
			t.Errorf("Data(%+v, %v, %+v, %+v) = %q, %v; want %v naming %s", tc.w, tc.align, tc.o, tc.part, key, err, tc.is, tc.names)
		}
	}
	for _, err := range []error{
		func() error { _, err := k.Manifest("", "q", 1); return err }(),
		func() error { _, err := k.Checkpoint("t", "", 1); return err }(),
		func() error { _, err := k.Manifest("t", "q", 0); return err }(),
	} {
		if !errors.Is(err, ErrBadKey) {
			t.Errorf("sidecar: %v; want ErrBadKey", err)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	k := mustKeys(t, "queen")
	const q = "queen/tenant=t/queue=q/"
	// The control: each refused key below differs from this one (or its
	// sidecar siblings) in one way.
	if _, err := k.Parse(q + "dt=1970-01-01/w-0000000001-0-1.jsonl"); err != nil {
		t.Fatalf("Parse of the control key: %v", err)
	}
	for _, key := range []string{
		"", "queen", "queen/", "other/tenant=t/queue=q/dt=1970-01-01/w-0000000001-0-1.jsonl",
		"queenx/tenant=t/queue=q/dt=1970-01-01/w-0000000001-0-1.jsonl",
		q + "dt=1970-01-01/w-1-0-1.jsonl",                                // short k
		q + "dt=1970-01-01/w-00000000001-0-1.jsonl",                      // over-padded k
		q + "dt=1970-01-01/w-0000000000-0-1.jsonl",                       // k 0
		q + "dt=1970-01-02/w-0000000001-0-1.jsonl",                       // wrong dt
		q + "dt=1970-01-01/hour=01/w-0000000001-0-1.jsonl",               // wrong hour
		q + "dt=1970-01-01/w-0000000001-0-86400000001.jsonl",             // crosses the day
		q + "dt=1970-01-01/w-0000000001-00-1.jsonl",                      // padded tStart
		q + "dt=1970-01-01/w-0000000001-+0-1.jsonl",                      // signed
		q + "dt=1970-01-01/w-0000000001-1-1.jsonl",                       // empty window
		q + "dt=1970-01-01/w-0000000001-0-1.json",                        // unknown ext
		q + "dt=1970-01-01/w-0000000001-0-1.jsonl.zstd",                  // unknown ext
		q + "dt=1970-01-01/w-0000000001-0-1-p-a-1-0.jsonl",               // last < first
		q + "dt=1970-01-01/w-0000000001-0-1-p--0-0.jsonl",                // empty partition
		q + "dt=1970-01-01/w-0000000001-0-1-p-a%2f-0-0.jsonl",            // lowercase escape
		q + "dt=1970-01-01/w-0000000001-0-1-x-a-0-0.jsonl",               // not -p-
		q + "dt=1970-01-01/x/w-0000000001-0-1.jsonl",                     // bad hour segment
		"queen/tenant=t%41/queue=q/dt=1970-01-01/w-0000000001-0-1.jsonl", // needless escape
		"queen/tenant=/queue=q/dt=1970-01-01/w-0000000001-0-1.jsonl",     // empty tenant
		"queen/queue=q/tenant=t/dt=1970-01-01/w-0000000001-0-1.jsonl",    // swapped
		"queen/_queen/tenant=t/queue=q/windows/1.json",
		"queen/_queen/tenant=t/queue=q/windows/0000000001.json.zst",
		"queen/_queen/tenant=t/queue=q/checkpoint/0000000001.json",
		"queen/_queen/tenant=t/queue=q/other/0000000001.json",
		"queen/_queen/tenant=t/queue=q/windows/0000000001.json/",
		"queen/_queen/tenant=t/queue=q/windows//0000000001.json",
	} {
		_, err := k.Parse(key)
		if !errors.Is(err, ErrBadKey) || !strings.Contains(err.Error(), strconv.Quote(key)) {
			t.Errorf("Parse(%q) = %v; want ErrBadKey quoting the key", key, err)
		}
	}
}

func TestKeysNeverEscapePrefix(t *testing.T) {
	names := []string{"/", "..", ".", "../..", "a/../../b", "a b", "%", "%2F", "\x00", "é", "日本", "😀", "/x/", "-p-1-2"}
	for _, prefix := range []string{"queen", "a/b"} {
		k := mustKeys(t, prefix)
		for _, n := range names {
			w := Window{Tenant: n, Queue: n, K: 3, TStart: specStart, TEnd: specStart + 1}
			check := func(key string, err error, segs int) {
				t.Helper()
				if err != nil {
					t.Fatalf("name %q: %v", n, err)
				}
				checkUnderPrefix(t, k, key, segs)
			}
			for _, align := range []Align{AlignHour, AlignDay} {
				key, err := k.Data(w, align, jsonZst, &Part{Partition: n, LastOffset: 1})
				check(key, err, 5+strings.Count(prefix, "/")+1-map[Align]int{AlignDay: 1}[align])
			}
			key, err := k.Manifest(n, n, 1)
			check(key, err, 6+strings.Count(prefix, "/"))
			key, err = k.Checkpoint(n, n, 1)
			check(key, err, 6+strings.Count(prefix, "/"))
		}
	}
}

// checkUnderPrefix fails t unless key is a clean path of segs segments under k's prefix.
func checkUnderPrefix(t testing.TB, k Keys, key string, segs int) {
	t.Helper()
	if !strings.HasPrefix(key, k.Prefix()+"/") {
		t.Fatalf("key %q is not under %q", key, k.Prefix())
	}
	parts := strings.Split(key, "/")
	for _, s := range parts {
		if s == "" || s == "." || s == ".." {
			t.Fatalf("key %q has segment %q", key, s)
		}
	}
	if segs >= 0 && len(parts) != segs {
		t.Fatalf("key %q has %d segments, want %d", key, len(parts), segs)
	}
	if path.Clean(key) != key {
		t.Fatalf("key %q is not clean: %q", key, path.Clean(key))
	}
}

func TestKeyKindString(t *testing.T) {
	for kind, want := range map[KeyKind]string{KindData: "data", KindManifest: "manifest",
		KindCheckpoint: "checkpoint", 0: "KeyKind(0)", 9: "KeyKind(9)"} {
		if got := kind.String(); got != want {
			t.Errorf("KeyKind(%d).String() = %q, want %q", kind, got, want)
		}
	}
}
