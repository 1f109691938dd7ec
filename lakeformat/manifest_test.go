package lakeformat

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

func manifestRef[T any](v T) *T { return &v }

// specManifest is the manifest of the spec's example window (s3-sink.md,
// "The objects").
func specManifest() *Manifest {
	return &Manifest{
		Sink: "default", Tenant: "00000000-0000-0000-0000-000000000001", Queue: "orders",
		K: 1, TStart: 1791007200000000, TEnd: 1791009458377855,
		Format: JSONL, Codec: Zstd, Layout: Merged,
		Objects: []ManifestObject{{
			Key:     "queen/tenant=00000000-0000-0000-0000-000000000001/queue=orders/dt=2026-10-03/hour=06/w-0000000001-1791007200000000-1791009458377855.jsonl.zst",
			Bytes:   207,
			Records: 3,
			SHA256:  "5f2ac4baa20940c6c33a5e3c7207ef7d1087db6538fea0cce88cb16ff43def78",
		}},
		Records: 3, Bytes: 207, Partitions: 2,
		MinTs: manifestRef(int64(1791009457501942)), MaxTs: manifestRef(int64(1791009457501942)),
		Writer:      "queen-s3/2.0.0 jsonl+zstd",
		CommittedAt: 1791009464741000, // 2026-10-03T06:37:44.741000Z
	}
}

// perPartitionManifest is a Parquet window cut per partition, with lost
// ranges and names that JSON would HTML-escape.
func perPartitionManifest() *Manifest {
	sum := strings.Repeat("0123456789abcdef", 4)
	return &Manifest{
		Sink: "s<1>", Tenant: "t&t", Queue: "a b/c", K: 42, TStart: -5, TEnd: 1 << 40,
		Format: Parquet, Codec: Snappy, Layout: PerPartition,
		Objects: []ManifestObject{
			{Key: "k/p-a", Bytes: 10, Records: 2, SHA256: sum, Partition: manifestRef("a"), FirstOffset: manifestRef(int64(0)), LastOffset: manifestRef(int64(1))},
			{Key: "k/p-ü", Bytes: 0, Records: 1, SHA256: sum, Partition: manifestRef("ü<>&"), FirstOffset: manifestRef(int64(7)), LastOffset: manifestRef(int64(9))},
		},
		Records: 3, Bytes: 10, Partitions: 2,
		MinTs: manifestRef(int64(-5)), MaxTs: manifestRef(int64(1<<40 - 1)),
		Lost:   []LostRange{{Partition: "ü<>&", From: 3, To: 6}, {Partition: "z", From: 0, To: 0}},
		Writer: "queen-s3/2.0.0 parquet+snappy", CommittedAt: MaxTs,
	}
}

// emptyManifest is a window whose only content is a lost range.
func emptyManifest() *Manifest {
	return &Manifest{
		Sink: "default", Tenant: "t", Queue: "q", K: 3, TStart: 100, TEnd: 200,
		Format: JSONL, Codec: None, Layout: Merged,
		Lost:   []LostRange{{Partition: "p", From: 10, To: 19}},
		Writer: "queen-s3/2.0.0 jsonl+none", CommittedAt: 0,
	}
}

func TestManifestSpecExample(t *testing.T) {
	want, err := os.ReadFile("testdata/manifest-spec-example.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := specManifest().Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Encode differs from the spec's text:\n got: %s\nwant: %s", got, want)
	}
	m, err := DecodeManifest(want)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, specManifest()) {
		t.Fatalf("DecodeManifest(spec text) = %+v, want %+v", m, specManifest())
	}
}

func TestManifestRoundTrip(t *testing.T) {
	for name, m := range map[string]*Manifest{
		"merged": specManifest(), "per-partition": perPartitionManifest(), "no records": emptyManifest(),
	} {
		t.Run(name, func(t *testing.T) { assertRoundTrip(t, m, DecodeManifest) })
	}
}

func TestManifestEncodeShape(t *testing.T) {
	b, err := perPartitionManifest().Encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"sink": "s<1>"`, `"tenant": "t&t"`,
		"\"sha256\": \"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\",\n      \"partition\": \"a\",\n      \"firstOffset\": 0,\n      \"lastOffset\": 1\n",
		"\"lost\": [\n    {\n      \"partition\": \"ü<>&\",\n      \"from\": 3,\n      \"to\": 6\n    },",
		"\"committedAt\": \"9999-12-31T23:59:59.999999Z\"\n}\n",
	} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("Encode lacks %q:\n%s", want, b)
		}
	}
	b, err = emptyManifest().Encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\"objects\": [],\n", "\"partitions\": 0,\n  \"lost\": ["} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("Encode lacks %q:\n%s", want, b)
		}
	}
	m := emptyManifest()
	m.Lost = nil
	if b, _ = m.Encode(); !bytes.Contains(b, []byte("\"lost\": [],\n")) {
		t.Errorf("Encode without lost ranges lacks \"lost\": []:\n%s", b)
	}
}

func TestManifestValidateRefusals(t *testing.T) {
	for _, c := range []struct {
		name   string // the text the error must contain
		base   func() *Manifest
		change func(m *Manifest)
	}{
		{"sink is empty", specManifest, func(m *Manifest) { m.Sink = "" }},
		{"tenant is empty", specManifest, func(m *Manifest) { m.Tenant = "" }},
		{"queue is empty", specManifest, func(m *Manifest) { m.Queue = "" }},
		{"queue \"\\xff\" is not valid UTF-8", specManifest, func(m *Manifest) { m.Queue = "\xff" }},
		{"writer is empty", specManifest, func(m *Manifest) { m.Writer = "" }},
		{"k 0", specManifest, func(m *Manifest) { m.K = 0 }},
		{"tStart 200 is not before tEnd 200", emptyManifest, func(m *Manifest) { m.TStart = 200 }},
		{"tStart 201 is not before tEnd 200", emptyManifest, func(m *Manifest) { m.TStart = 201 }},
		{"format jsonl, compression snappy", specManifest, func(m *Manifest) { m.Codec = Snappy }},
		{"format parquet, compression gzip", specManifest, func(m *Manifest) { m.Format = Parquet; m.Codec = Gzip }},
		{"format Format(0)", specManifest, func(m *Manifest) { m.Format = 0 }},
		{"layout Layout(9)", specManifest, func(m *Manifest) { m.Layout = 9 }},
		{"committedAt -1", specManifest, func(m *Manifest) { m.CommittedAt = -1 }},
		{"records 4 is not the objects' sum 3", specManifest, func(m *Manifest) { m.Records = 4 }},
		{"bytes 206 is not the objects' sum 207", specManifest, func(m *Manifest) { m.Bytes = 206 }},
		{"objects[0].bytes -1", specManifest, func(m *Manifest) { m.Objects[0].Bytes = -1 }},
		{"objects[0].records -3", specManifest, func(m *Manifest) { m.Objects[0].Records = -3 }},
		{"objects[0].key is empty", specManifest, func(m *Manifest) { m.Objects[0].Key = "" }},
		{"objects[1].key \"k/p-a\" appears twice", perPartitionManifest, func(m *Manifest) { m.Objects[1].Key = "k/p-a" }},
		{"sha256 \"5F2A", specManifest, func(m *Manifest) { m.Objects[0].SHA256 = strings.ToUpper(m.Objects[0].SHA256) }},
		{"sha256 \"5f2a", specManifest, func(m *Manifest) { m.Objects[0].SHA256 += "0" }},
		{"sha256 \"\"", specManifest, func(m *Manifest) { m.Objects[0].SHA256 = "" }},
		{"sha256 \"g", specManifest, func(m *Manifest) { m.Objects[0].SHA256 = "g" + m.Objects[0].SHA256[1:] }},
		{"sums of records or bytes overflow", specManifest, func(m *Manifest) {
			m.Objects = append(m.Objects, m.Objects[0])
			m.Objects[1].Key += "x"
			m.Objects[1].Bytes = 1<<63 - 1
		}},
		{"partitions 4 does not fit records 3", specManifest, func(m *Manifest) { m.Partitions = 4 }},
		{"partitions 0 does not fit records 3", specManifest, func(m *Manifest) { m.Partitions = 0 }},
		{"partitions -1", specManifest, func(m *Manifest) { m.Partitions = -1 }},
		{"partitions 1 does not fit records 0", emptyManifest, func(m *Manifest) { m.Partitions = 1 }},
		{"partitions 1 is not the 2 per-partition objects", perPartitionManifest, func(m *Manifest) { m.Partitions = 1 }},
		{"minTs and maxTs are not both", specManifest, func(m *Manifest) { m.MaxTs = nil }},
		{"minTs and maxTs are absent", specManifest, func(m *Manifest) { m.MinTs, m.MaxTs = nil, nil }},
		{"set in a window with no record", emptyManifest, func(m *Manifest) { m.MinTs, m.MaxTs = manifestRef(int64(150)), manifestRef(int64(150)) }},
		{"minTs 1791009457501943 is after maxTs", specManifest, func(m *Manifest) { *m.MinTs++ }},
		{"is outside tStart 1791007200000000", specManifest, func(m *Manifest) { *m.MinTs = m.TStart - 1 }},
		{"maxTs 1791009458377855 is outside", specManifest, func(m *Manifest) { *m.MaxTs = m.TEnd }},
		{"lost[0].partition is empty", emptyManifest, func(m *Manifest) { m.Lost[0].Partition = "" }},
		{"lost[0] (partition \"p\"): from 20, to 19", emptyManifest, func(m *Manifest) { m.Lost[0].From = 20 }},
		{"from -1, to 19", emptyManifest, func(m *Manifest) { m.Lost[0].From = -1 }},
		{"of a merged window has a partition", specManifest, func(m *Manifest) { m.Objects[0].Partition = manifestRef("a") }},
		{"of a merged window has a partition or offsets", specManifest, func(m *Manifest) { m.Objects[0].LastOffset = manifestRef(int64(3)) }},
		{"lacks partition, firstOffset or lastOffset", perPartitionManifest, func(m *Manifest) { m.Objects[0].Partition = nil }},
		{"lacks partition, firstOffset or lastOffset", perPartitionManifest, func(m *Manifest) { m.Objects[1].FirstOffset = nil }},
		{"objects[0].partition is empty", perPartitionManifest, func(m *Manifest) { *m.Objects[0].Partition = "" }},
		{"objects[1].partition \"a\" has two objects", perPartitionManifest, func(m *Manifest) { *m.Objects[1].Partition = "a" }},
		{"firstOffset 2, lastOffset 1", perPartitionManifest, func(m *Manifest) { *m.Objects[0].FirstOffset = 2 }},
		{"firstOffset -1", perPartitionManifest, func(m *Manifest) { *m.Objects[0].FirstOffset = -1 }},
		{"records 3 does not fit offsets 0..=1", perPartitionManifest, func(m *Manifest) {
			m.Objects[0].Records, m.Records = 3, 4
		}},
		{"records 0 does not fit offsets 7..=9", perPartitionManifest, func(m *Manifest) {
			m.Objects[1].Records, m.Records = 0, 2
		}},
	} {
		m := c.base()
		c.change(m)
		err := m.Validate()
		if !errors.Is(err, ErrBadManifest) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: Validate = %v, want ErrBadManifest naming it", c.name, err)
			continue
		}
		if b, err := m.Encode(); !errors.Is(err, ErrBadManifest) || b != nil {
			t.Errorf("%s: Encode = %q, %v, want ErrBadManifest", c.name, b, err)
		}
	}
}

func TestDecodeManifestRefusals(t *testing.T) {
	spec, err := os.ReadFile("testdata/manifest-spec-example.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ old, new, want string }{
		{`"sink": "default",`, ``, "sink is missing"},
		{`"sink": "default",`, `"Sink": "default",`, "sink is missing"},
		{`"sink": "default",`, `"sink": null,`, "sink is missing"},
		{`"k": 1,`, `"k": "1",`, "k: json: cannot unmarshal string"},
		{`"k": 1,`, `"k": 1.0,`, "k: json: cannot unmarshal number 1.0"},
		{`"k": 1,`, `"k": -1,`, "k: json: cannot unmarshal number -1"},
		{`"tEnd": 1791009458377855,`, ``, "tEnd is missing"},
		{`"format": "jsonl"`, `"format": "JSONL"`, `format: "JSONL" is not canonical, write "jsonl"`},
		{`"format": "jsonl"`, `"format": "ndjson"`, `format: "ndjson" is not canonical`},
		{`"format": "jsonl"`, `"format": "csv"`, `format: lakeformat: bad setting: "csv" is not a format`},
		{`"compression": "zstd"`, `"compression": "zst"`, `compression: "zst" is not canonical`},
		{`"layout": "merged"`, `"layout": " merged"`, `layout: " merged" is not canonical`},
		{`"layout": "merged"`, `"layout": "per_partition"`, `layout: "per_partition" is not canonical`},
		{`"objects": [`, `"objects": null, "x": [`, "objects is missing"},
		{`"objects": [`, `"objects": [null, `, "objects[0] is null, not an object"},
		{`"sha256": "5f2a`, `"sha": "5f2a`, "objects[0].sha256 is missing"},
		{`"bytes": 207,`, `"bytes": 207, "partition": 7,`, "objects[0].partition: json: cannot unmarshal number"},
		{`"bytes": 207,`, `"bytes": 207, "firstOffset": 1,`, "of a merged window has a partition or offsets"},
		{`"minTs": 1791009457501942,`, ``, "minTs and maxTs are not both"},
		{`"lost": [],`, ``, "lost is missing"},
		{`"lost": [],`, `"lost": [{"partition": "p", "from": 1}],`, "lost[0].to is missing"},
		{`"lost": [],`, `"lost": {},`, "lost: json: cannot unmarshal object"},
		{`"writer"`, `"Writer"`, "writer is missing"},
		{`"committedAt": "2026-10-03T06:37:44.741000Z"`, `"committedAt": "2026-10-03T06:37:44.741Z"`, "committedAt: lakeformat: ts"},
		{`"committedAt": "2026-10-03T06:37:44.741000Z"`, `"committedAt": 1791009464741000`, "committedAt: json: cannot unmarshal number"},
		{"\n}\n", "\n} {}", "manifest: invalid character '{' after top-level value"},
		{`"records": 3,`, `"records": 3,,`, "manifest: invalid character ','"},
	} {
		if !bytes.Contains(spec, []byte(c.old)) {
			t.Fatalf("%q is not in the spec's text", c.old)
		}
		b := bytes.Replace(spec, []byte(c.old), []byte(c.new), 1)
		m, err := DecodeManifest(b)
		if !errors.Is(err, ErrBadManifest) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q → %q: DecodeManifest = %v, %v; want ErrBadManifest with %q", c.old, c.new, m, err, c.want)
		}
	}
	for _, b := range []string{"", "null", "[]", "{}", "1", `"x"`, "{", "\xff"} {
		if m, err := DecodeManifest([]byte(b)); !errors.Is(err, ErrBadManifest) {
			t.Errorf("DecodeManifest(%q) = %v, %v; want ErrBadManifest", b, m, err)
		}
	}
}

func TestDecodeManifestIgnoresUnknownFields(t *testing.T) {
	spec, err := os.ReadFile("testdata/manifest-spec-example.json")
	if err != nil {
		t.Fatal(err)
	}
	b := bytes.Replace(spec, []byte(`"k": 1,`), []byte(`"k": 1, "version": 3, "extra": {"a": [1, null]},`), 1)
	b = bytes.Replace(b, []byte(`"bytes": 207,`), []byte(`"bytes": 207, "etag": "abc", "partition": null,`), 1)
	m, err := DecodeManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, specManifest()) {
		t.Fatalf("got %+v, want %+v", m, specManifest())
	}
}
