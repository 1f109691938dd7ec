package lakeformat

import (
	"errors"
	"fmt"
	"strings"
)

// Format is the kind of object a window is written as.
type Format uint8

// The formats. The zero Format is invalid.
const (
	JSONL Format = iota + 1
	Parquet
)

// Codec is the compression of a JSONL object, or the page codec of a Parquet
// object. The zero Codec is invalid.
type Codec uint8

// The codecs. JSONL takes Zstd, Gzip or None; Parquet takes Zstd or Snappy.
const (
	Zstd Codec = iota + 1
	Gzip
	None
	Snappy
)

// Layout says how a window's records are cut into objects.
type Layout uint8

// The layouts. The zero Layout is invalid.
const (
	// Merged writes one object per window, records sorted by partition, then offset.
	Merged Layout = iota + 1
	// PerPartition writes one object per partition of the window.
	PerPartition
)

// Align is the boundary no window crosses, and so which of dt= and hour= a
// data key carries.
type Align uint8

// The alignments. The zero Align is invalid.
const (
	// AlignHour: windows never cross an hour; keys carry dt= and hour=.
	AlignHour Align = iota + 1
	// AlignDay: windows never cross a day (UTC); keys carry dt= only.
	AlignDay
	// AlignNone: windows cross anything; keys carry dt= and hour= of the window's start.
	AlignNone
)

// ErrBadSetting is wrapped by every error that refuses a format, codec,
// layout or alignment, or a combination of them.
var ErrBadSetting = errors.New("lakeformat: bad setting")

var (
	formatNames = [...]string{JSONL: "jsonl", Parquet: "parquet"}
	codecNames  = [...]string{Zstd: "zstd", Gzip: "gzip", None: "none", Snappy: "snappy"}
	layoutNames = [...]string{Merged: "merged", PerPartition: "per-partition"}
	alignNames  = [...]string{AlignHour: "hour", AlignDay: "day", AlignNone: "none"}
)

func name(names []string, i uint8, kind string) string {
	if int(i) < len(names) && names[i] != "" {
		return names[i]
	}
	return fmt.Sprintf("%s(%d)", kind, i)
}

// String returns the format's name as manifests spell it: jsonl or parquet.
func (f Format) String() string { return name(formatNames[:], uint8(f), "Format") }

// String returns the codec's name as manifests spell it: zstd, gzip, none or snappy.
func (c Codec) String() string { return name(codecNames[:], uint8(c), "Codec") }

// String returns the layout's name as manifests spell it: merged or per-partition.
func (l Layout) String() string { return name(layoutNames[:], uint8(l), "Layout") }

// String returns the alignment's name: hour, day or none.
func (a Align) String() string { return name(alignNames[:], uint8(a), "Align") }

// lookup finds s (case-insensitively, outer spaces ignored) among the
// aliases and returns the value it names.
func lookup[T ~uint8](s string, kind string, aliases map[string]T, accepted string) (T, error) {
	if v, ok := aliases[strings.ToLower(strings.TrimSpace(s))]; ok {
		return v, nil
	}
	return 0, fmt.Errorf("%w: %q is not a %s; it is one of %s", ErrBadSetting, s, kind, accepted)
}

// ParseFormat reads a format name: jsonl (or json, ndjson) or parquet, in any case.
func ParseFormat(s string) (Format, error) {
	return lookup(s, "format", map[string]Format{
		"jsonl": JSONL, "json": JSONL, "ndjson": JSONL, "parquet": Parquet,
	}, "jsonl, parquet")
}

// ParseCodec reads a codec name: zstd (zst), gzip (gz), none (off) or
// snappy (snap), in any case. Whether the codec suits a format is checked by
// Options.Validate.
func ParseCodec(s string) (Codec, error) {
	return lookup(s, "codec", map[string]Codec{
		"zstd": Zstd, "zst": Zstd, "gzip": Gzip, "gz": Gzip,
		"none": None, "off": None, "snappy": Snappy, "snap": Snappy,
	}, "zstd, gzip, none, snappy")
}

// ParseLayout reads a layout name: merged or per-partition (per_partition,
// perpartition), in any case.
func ParseLayout(s string) (Layout, error) {
	return lookup(s, "layout", map[string]Layout{
		"merged": Merged, "per-partition": PerPartition, "per_partition": PerPartition, "perpartition": PerPartition,
	}, "merged, per-partition")
}

// ParseAlign reads an alignment name: hour (hourly), day (daily) or none
// (off), in any case.
func ParseAlign(s string) (Align, error) {
	return lookup(s, "alignment", map[string]Align{
		"hour": AlignHour, "hourly": AlignHour, "day": AlignDay, "daily": AlignDay,
		"none": AlignNone, "off": AlignNone,
	}, "hour, day, none")
}

// Options are the settings that decide an object's bytes.
type Options struct {
	// Format is JSONL or Parquet.
	Format Format
	// Codec is Zstd, Gzip or None for JSONL; Zstd or Snappy for Parquet.
	Codec Codec
	// Tenant and Queue name where the records came from. Parquet writes them
	// into the footer (queen.tenant, queen.queue); JSONL ignores them.
	Tenant, Queue string
}

// Validate reports a format and codec that do not go together.
func (o Options) Validate() error {
	switch o.Format {
	case JSONL:
		if o.Codec == Zstd || o.Codec == Gzip || o.Codec == None {
			return nil
		}
		return fmt.Errorf("%w: JSONL takes codec zstd, gzip or none, not %v", ErrBadSetting, o.Codec)
	case Parquet:
		if o.Codec == Zstd || o.Codec == Snappy {
			return nil
		}
		return fmt.Errorf("%w: Parquet takes codec zstd or snappy, not %v", ErrBadSetting, o.Codec)
	}
	return fmt.Errorf("%w: format %v is not jsonl or parquet", ErrBadSetting, o.Format)
}

// Ext returns the file extension of the objects o writes, without the dot:
// jsonl.zst, jsonl.gz, jsonl or parquet.
func (o Options) Ext() string {
	if o.Format == Parquet {
		return "parquet"
	}
	switch o.Codec {
	case Zstd:
		return "jsonl.zst"
	case Gzip:
		return "jsonl.gz"
	}
	return "jsonl"
}

// WriterID names the format and codec as the manifest's writer field ends:
// jsonl+zstd, parquet+snappy, and so on.
func (o Options) WriterID() string { return o.Format.String() + "+" + o.Codec.String() }

// optionsForExt is the inverse of Options.Ext for the JSONL codecs and
// Parquet (whose codec is inside the file: the answer says Zstd).
func optionsForExt(ext string) (Format, Codec, bool) {
	switch ext {
	case "jsonl.zst":
		return JSONL, Zstd, true
	case "jsonl.gz":
		return JSONL, Gzip, true
	case "jsonl":
		return JSONL, None, true
	case "parquet":
		return Parquet, 0, true
	}
	return 0, 0, false
}
