package lakeformat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"
)

// ErrBadManifest is wrapped by every error that refuses a manifest, whether
// Validate, Encode or DecodeManifest returns it.
var ErrBadManifest = errors.New("lakeformat: bad manifest")

// Manifest describes one committed window: the sidecar
// <prefix>/_queen/tenant=<t>/queue=<q>/windows/<k>.json.
//
// DecodeManifest returns nil Objects and Lost for empty lists; Encode writes
// nil and empty lists alike as [].
type Manifest struct {
	// Sink, Tenant and Queue name the sink, the tenant and the queue: non-empty.
	Sink, Tenant, Queue string
	// K is the window's number, from 1.
	K uint64
	// TStart and TEnd bound the window's stamps, [TStart, TEnd), in µs on the
	// broker's clock.
	TStart, TEnd int64
	// Format is the objects' format.
	Format Format
	// Codec is the JSONL codec or the Parquet page codec (JSON "compression").
	Codec Codec
	// Layout says whether the window is one object or one per partition.
	Layout Layout
	// Objects are the window's data objects.
	Objects []ManifestObject
	// Records and Bytes are the sums of the objects' records and bytes.
	Records, Bytes int64
	// Partitions counts the distinct partitions with at least one record.
	Partitions int64
	// MinTs and MaxTs are the least and greatest record stamps (µs): both nil
	// when the window has no record, both set otherwise.
	MinTs, MaxTs *int64
	// Lost are the offset ranges retention deleted before the sink read them.
	Lost []LostRange
	// Writer names the writer, as in "queen-s3/2.0.0 jsonl+zstd".
	Writer string
	// CommittedAt is the wall clock of the commit, µs; rendered ISO-8601 UTC
	// with six fractional digits and Z. The manifest's only wall-clock value.
	CommittedAt int64
}

// ManifestObject is one data object of a window.
type ManifestObject struct {
	// Key is the object's key in the bucket.
	Key string `json:"key"`
	// Bytes is the object's size; Records the records it holds.
	Bytes   int64 `json:"bytes"`
	Records int64 `json:"records"`
	// SHA256 is the object's digest: 64 lowercase hex digits.
	SHA256 string `json:"sha256"`
	// Partition, FirstOffset and LastOffset are set in the per-partition
	// layout only: the object's partition and its first and last offsets.
	Partition   *string `json:"partition,omitempty"`
	FirstOffset *int64  `json:"firstOffset,omitempty"`
	LastOffset  *int64  `json:"lastOffset,omitempty"`
}

// LostRange is a range of a partition's offsets, From to To inclusive, that
// retention deleted before the sink read it.
type LostRange struct {
	Partition string `json:"partition"`
	From      int64  `json:"from"`
	To        int64  `json:"to"`
}

// manifestJSON is the manifest as written: its field order is the spec's.
type manifestJSON struct {
	Sink        string           `json:"sink"`
	Tenant      string           `json:"tenant"`
	Queue       string           `json:"queue"`
	K           uint64           `json:"k"`
	TStart      int64            `json:"tStart"`
	TEnd        int64            `json:"tEnd"`
	Format      string           `json:"format"`
	Compression string           `json:"compression"`
	Layout      string           `json:"layout"`
	Objects     []ManifestObject `json:"objects"`
	Records     int64            `json:"records"`
	Bytes       int64            `json:"bytes"`
	Partitions  int64            `json:"partitions"`
	MinTs       *int64           `json:"minTs,omitempty"`
	MaxTs       *int64           `json:"maxTs,omitempty"`
	Lost        []LostRange      `json:"lost"`
	Writer      string           `json:"writer"`
	CommittedAt string           `json:"committedAt"`
}

// Encode validates m and renders it as the spec shows: two-space
// indentation, no HTML escaping, one final newline.
func (m *Manifest) Encode() ([]byte, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	w := manifestJSON{
		Sink: m.Sink, Tenant: m.Tenant, Queue: m.Queue, K: m.K, TStart: m.TStart, TEnd: m.TEnd,
		Format: m.Format.String(), Compression: m.Codec.String(), Layout: m.Layout.String(),
		Objects: m.Objects, Records: m.Records, Bytes: m.Bytes, Partitions: m.Partitions,
		MinTs: m.MinTs, MaxTs: m.MaxTs, Lost: m.Lost, Writer: m.Writer, CommittedAt: FormatTs(m.CommittedAt),
	}
	if w.Objects == nil {
		w.Objects = []ManifestObject{}
	}
	if w.Lost == nil {
		w.Lost = []LostRange{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&w); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadManifest, err)
	}
	return buf.Bytes(), nil
}

// DecodeManifest reads a manifest and validates it. Unknown fields are
// ignored; a missing or null required field is refused, and field names
// match exactly (case included). Format, compression and layout must be
// spelled canonically (jsonl, not JSON or ndjson).
func DecodeManifest(b []byte) (*Manifest, error) {
	o, err := parseObject(b, "manifest")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadManifest, err)
	}
	m, err := decodeManifest(o)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadManifest, err)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

func decodeManifest(o jsonObject) (*Manifest, error) {
	var m Manifest
	var format, codec, layout, committedAt string
	var objects, lost []json.RawMessage
	err := o.need("", jsonMember{"sink", &m.Sink}, jsonMember{"tenant", &m.Tenant}, jsonMember{"queue", &m.Queue},
		jsonMember{"k", &m.K}, jsonMember{"tStart", &m.TStart}, jsonMember{"tEnd", &m.TEnd}, jsonMember{"format", &format},
		jsonMember{"compression", &codec}, jsonMember{"layout", &layout}, jsonMember{"objects", &objects},
		jsonMember{"records", &m.Records}, jsonMember{"bytes", &m.Bytes}, jsonMember{"partitions", &m.Partitions},
		jsonMember{"lost", &lost}, jsonMember{"writer", &m.Writer}, jsonMember{"committedAt", &committedAt})
	if err != nil {
		return nil, err
	}
	if m.Format, err = parseCanonical(format, "format", ParseFormat); err != nil {
		return nil, err
	}
	if m.Codec, err = parseCanonical(codec, "compression", ParseCodec); err != nil {
		return nil, err
	}
	if m.Layout, err = parseCanonical(layout, "layout", ParseLayout); err != nil {
		return nil, err
	}
	if m.CommittedAt, err = ParseTs(committedAt); err != nil {
		return nil, fmt.Errorf("committedAt: %w", err)
	}
	if m.MinTs, err = optMember[int64](o, "", "minTs"); err != nil {
		return nil, err
	}
	if m.MaxTs, err = optMember[int64](o, "", "maxTs"); err != nil {
		return nil, err
	}
	for i, raw := range objects {
		var obj ManifestObject
		path := fmt.Sprintf("objects[%d].", i)
		oo, err := parseObject(raw, path[:len(path)-1])
		if err == nil {
			err = oo.need(path, jsonMember{"key", &obj.Key}, jsonMember{"bytes", &obj.Bytes},
				jsonMember{"records", &obj.Records}, jsonMember{"sha256", &obj.SHA256})
		}
		if err == nil {
			obj.Partition, err = optMember[string](oo, path, "partition")
		}
		if err == nil {
			obj.FirstOffset, err = optMember[int64](oo, path, "firstOffset")
		}
		if err == nil {
			obj.LastOffset, err = optMember[int64](oo, path, "lastOffset")
		}
		if err != nil {
			return nil, err
		}
		m.Objects = append(m.Objects, obj)
	}
	for i, raw := range lost {
		var r LostRange
		path := fmt.Sprintf("lost[%d].", i)
		lo, err := parseObject(raw, path[:len(path)-1])
		if err == nil {
			err = lo.need(path, jsonMember{"partition", &r.Partition}, jsonMember{"from", &r.From}, jsonMember{"to", &r.To})
		}
		if err != nil {
			return nil, err
		}
		m.Lost = append(m.Lost, r)
	}
	return &m, nil
}

// parseCanonical reads an enumerated name with parse and accepts it only in
// its canonical spelling, the one String gives back.
func parseCanonical[T interface {
	~uint8
	String() string
}](s, field string, parse func(string) (T, error)) (T, error) {
	v, err := parse(s)
	if err == nil && v.String() != s {
		err = fmt.Errorf("%q is not canonical, write %q", s, v.String())
	}
	if err != nil {
		return 0, fmt.Errorf("%s: %w", field, err)
	}
	return v, nil
}

// Validate reports the first rule m breaks, in an error wrapping
// ErrBadManifest that names the field and its value.
func (m *Manifest) Validate() error {
	for _, f := range [...]struct{ name, v string }{{"sink", m.Sink}, {"tenant", m.Tenant}, {"queue", m.Queue}, {"writer", m.Writer}} {
		if err := validManifestName(f.name, f.v); err != nil {
			return err
		}
	}
	switch {
	case m.K < 1:
		return badManifest("k %d is not 1 or more", m.K)
	case m.TStart >= m.TEnd:
		return badManifest("tStart %d is not before tEnd %d", m.TStart, m.TEnd)
	case m.Layout != Merged && m.Layout != PerPartition:
		return badManifest("layout %v is not merged or per-partition", m.Layout)
	case m.CommittedAt < MinTs || m.CommittedAt > MaxTs:
		return badManifest("committedAt %d is outside %d..=%d", m.CommittedAt, MinTs, MaxTs)
	}
	if err := (Options{Format: m.Format, Codec: m.Codec}).Validate(); err != nil {
		return fmt.Errorf("%w: format %v, compression %v: %w", ErrBadManifest, m.Format, m.Codec, err)
	}
	var records, size int64
	keys := make(map[string]bool, len(m.Objects))
	parts := make(map[string]bool, len(m.Objects))
	for i := range m.Objects {
		o := &m.Objects[i]
		if err := o.validate(i, m.Layout); err != nil {
			return err
		}
		if keys[o.Key] {
			return badManifest("objects[%d].key %q appears twice", i, o.Key)
		}
		keys[o.Key] = true
		if o.Partition != nil {
			if parts[*o.Partition] {
				return badManifest("objects[%d].partition %q has two objects", i, *o.Partition)
			}
			parts[*o.Partition] = true
		}
		if records > math.MaxInt64-o.Records || size > math.MaxInt64-o.Bytes {
			return badManifest("objects[%d]: the sums of records or bytes overflow", i)
		}
		records, size = records+o.Records, size+o.Bytes
	}
	switch {
	case m.Records != records:
		return badManifest("records %d is not the objects' sum %d", m.Records, records)
	case m.Bytes != size:
		return badManifest("bytes %d is not the objects' sum %d", m.Bytes, size)
	case m.Partitions < 0 || m.Partitions > m.Records || (m.Partitions == 0) != (m.Records == 0):
		return badManifest("partitions %d does not fit records %d", m.Partitions, m.Records)
	case m.Layout == PerPartition && m.Partitions != int64(len(parts)):
		return badManifest("partitions %d is not the %d per-partition objects", m.Partitions, len(parts))
	case (m.MinTs == nil) != (m.MaxTs == nil):
		return badManifest("minTs and maxTs are not both present or both absent")
	case m.MinTs == nil && m.Records > 0:
		return badManifest("minTs and maxTs are absent from a window of %d records", m.Records)
	case m.MinTs != nil && m.Records == 0:
		return badManifest("minTs %d and maxTs %d are set in a window with no record", *m.MinTs, *m.MaxTs)
	case m.MinTs != nil && *m.MinTs > *m.MaxTs:
		return badManifest("minTs %d is after maxTs %d", *m.MinTs, *m.MaxTs)
	case m.MinTs != nil && (*m.MinTs < m.TStart || *m.MaxTs >= m.TEnd):
		return badManifest("minTs %d..maxTs %d is outside tStart %d..tEnd %d", *m.MinTs, *m.MaxTs, m.TStart, m.TEnd)
	}
	for i, r := range m.Lost {
		if err := validManifestName(fmt.Sprintf("lost[%d].partition", i), r.Partition); err != nil {
			return err
		}
		if r.From < 0 || r.From > r.To {
			return badManifest("lost[%d] (partition %q): from %d, to %d is not a range of offsets", i, r.Partition, r.From, r.To)
		}
	}
	return nil
}

// validate checks one object of a manifest of layout l; i names it in errors.
func (o *ManifestObject) validate(i int, l Layout) error {
	if err := validManifestName(fmt.Sprintf("objects[%d].key", i), o.Key); err != nil {
		return err
	}
	switch {
	case o.Bytes < 0:
		return badManifest("objects[%d].bytes %d is negative", i, o.Bytes)
	case o.Records < 0:
		return badManifest("objects[%d].records %d is negative", i, o.Records)
	case !isSHA256Hex(o.SHA256):
		return badManifest("objects[%d].sha256 %q is not 64 lowercase hex digits", i, o.SHA256)
	}
	if l == Merged {
		if o.Partition != nil || o.FirstOffset != nil || o.LastOffset != nil {
			return badManifest("objects[%d] (%q) of a merged window has a partition or offsets", i, o.Key)
		}
		return nil
	}
	if o.Partition == nil || o.FirstOffset == nil || o.LastOffset == nil {
		return badManifest("objects[%d] (%q) of a per-partition window lacks partition, firstOffset or lastOffset", i, o.Key)
	}
	if err := validManifestName(fmt.Sprintf("objects[%d].partition", i), *o.Partition); err != nil {
		return err
	}
	first, last := *o.FirstOffset, *o.LastOffset
	if first < 0 || first > last {
		return badManifest("objects[%d]: firstOffset %d, lastOffset %d is not a range of offsets", i, first, last)
	}
	if o.Records < 1 || o.Records-1 > last-first {
		return badManifest("objects[%d]: records %d does not fit offsets %d..=%d", i, o.Records, first, last)
	}
	return nil
}

func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// validManifestName reports a name field that is empty or not valid UTF-8 (which
// JSON could not carry byte for byte).
func validManifestName(field, s string) error {
	if s == "" {
		return badManifest("%s is empty", field)
	}
	if !utf8.ValidString(s) {
		return badManifest("%s %q is not valid UTF-8", field, s)
	}
	return nil
}

func badManifest(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadManifest, fmt.Sprintf(format, args...))
}
