package lakeformat

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Keys builds and parses the object keys under one prefix:
//
//	<prefix>/tenant=<t>/queue=<q>/dt=<YYYY-MM-DD>/hour=<HH>/w-<k>-<tStart>-<tEnd>[-p-<partition>-<first>-<last>].<ext>
//	<prefix>/_queen/tenant=<t>/queue=<q>/windows/<k>.json
//	<prefix>/_queen/tenant=<t>/queue=<q>/checkpoint/<k>.json.zst
//
// Tenant, queue and partition names are escaped with EscapeName, and k is
// padded to ten digits.
//
// INVARIANT: a key built by Keys starts with prefix+"/", has no empty, "."
// or ".." segment, and has the same segment count for every name.
type Keys struct {
	// INVARIANT: prefix is non-empty valid UTF-8 without control characters,
	// with no leading or trailing '/', and no empty, "." or ".." segment.
	prefix string
}

// NewKeys returns the Keys of prefix, its outer slashes removed. It refuses,
// in an error wrapping ErrBadSetting that names the prefix, a prefix that is
// empty once trimmed, has an empty ("a//b"), "." or ".." segment, is not
// valid UTF-8, or holds a control character (below 0x20, or 0x7f).
func NewKeys(prefix string) (Keys, error) {
	p := strings.Trim(prefix, "/")
	bad := func(why string) (Keys, error) {
		return Keys{}, fmt.Errorf("%w: prefix %q %s", ErrBadSetting, prefix, why)
	}
	switch {
	case p == "":
		return bad("is empty")
	case !utf8.ValidString(p):
		return bad("is not valid UTF-8")
	}
	for i := 0; i < len(p); i++ {
		if p[i] < 0x20 || p[i] == 0x7f {
			return bad(fmt.Sprintf("holds control character %q", p[i]))
		}
	}
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "":
			return bad("has an empty segment")
		case ".", "..":
			return bad(fmt.Sprintf("has a %q segment", seg))
		}
	}
	return Keys{prefix: p}, nil
}

// Prefix returns the prefix every key starts with, without outer slashes.
func (k Keys) Prefix() string { return k.prefix }

// Window identifies one window of one queue.
type Window struct {
	// Tenant and Queue are non-empty; any bytes (they are escaped in keys).
	Tenant, Queue string
	// K is the window's number in commit order: 1 or more.
	K uint64
	// TStart is the window's inclusive start, in microseconds since the
	// epoch: MinTs <= TStart.
	TStart int64
	// TEnd is the window's exclusive end: TStart < TEnd <= MaxTs+1.
	TEnd int64
}

// Validate reports the first field of w that no key can carry, in an error
// wrapping ErrBadKey that names the field and its value.
func (w Window) Validate() error {
	if err := checkName(w.Tenant, w.Queue, w.K); err != nil {
		return err
	}
	switch {
	case w.TStart < MinTs || w.TStart > MaxTs:
		return fmt.Errorf("%w: window tStart %d is outside %d..=%d", ErrBadKey, w.TStart, MinTs, MaxTs)
	case w.TEnd <= w.TStart || w.TEnd > MaxTs+1:
		return fmt.Errorf("%w: window tEnd %d is outside %d..=%d (tStart %d)",
			ErrBadKey, w.TEnd, w.TStart+1, MaxTs+1, w.TStart)
	}
	return nil
}

// checkName reports an empty tenant or queue, or a k of 0.
func checkName(tenant, queue string, k uint64) error {
	switch {
	case tenant == "":
		return fmt.Errorf("%w: tenant %q is empty", ErrBadKey, tenant)
	case queue == "":
		return fmt.Errorf("%w: queue %q is empty", ErrBadKey, queue)
	case k == 0:
		return fmt.Errorf("%w: k %d is not 1 or more", ErrBadKey, k)
	}
	return nil
}

// Part names the object of one partition in the per-partition layout.
type Part struct {
	// Partition is the partition's name: non-empty, any bytes.
	Partition string
	// FirstOffset and LastOffset are the offsets of the object's first and
	// last records: 0 <= FirstOffset <= LastOffset.
	FirstOffset, LastOffset int64
}

// validate reports the first field of p that no key can carry.
func (p *Part) validate() error {
	switch {
	case p.Partition == "":
		return fmt.Errorf("%w: part partition %q is empty", ErrBadKey, p.Partition)
	case p.FirstOffset < 0:
		return fmt.Errorf("%w: part %q firstOffset %d is negative", ErrBadKey, p.Partition, p.FirstOffset)
	case p.LastOffset < p.FirstOffset:
		return fmt.Errorf("%w: part %q lastOffset %d is below firstOffset %d",
			ErrBadKey, p.Partition, p.LastOffset, p.FirstOffset)
	}
	return nil
}

// Data returns the key of a data object of window w: the window's one
// object when part is nil (merged layout), else the object of part.
// dt= and hour= are the UTC date and hour of w.TStart; AlignDay drops hour=.
//
// It refuses, wrapping ErrBadSetting, options that do not validate or an
// unknown align; and, wrapping ErrBadKey, a window or part that does not
// validate, or a window that crosses the hour (AlignHour) or the UTC day
// (AlignDay).
func (k Keys) Data(w Window, align Align, o Options, part *Part) (string, error) {
	if err := o.Validate(); err != nil {
		return "", err
	}
	if err := w.Validate(); err != nil {
		return "", err
	}
	var unit int64
	switch align {
	case AlignHour:
		unit = microsPerHour
	case AlignDay:
		unit = microsPerDay
	case AlignNone:
	default:
		return "", fmt.Errorf("%w: align %v is not hour, day or none", ErrBadSetting, align)
	}
	if unit != 0 {
		if end := w.TStart - w.TStart%unit + unit; w.TEnd > end {
			return "", fmt.Errorf("%w: window %d..%d (k %d) crosses the %v boundary at %d",
				ErrBadKey, w.TStart, w.TEnd, w.K, align, end)
		}
	}
	if part != nil {
		if err := part.validate(); err != nil {
			return "", err
		}
	}
	dt, hour := dateHour(w.TStart)
	b := make([]byte, 0, 128+len(k.prefix)+3*(len(w.Tenant)+len(w.Queue)))
	b = k.appendQueue(b, w.Tenant, w.Queue)
	b = append(b, "/dt="...)
	b = append(b, dt...)
	if align != AlignDay {
		b = append(b, "/hour="...)
		b = append(b, hour...)
	}
	b = append(b, "/w-"...)
	b = appendK(b, w.K)
	b = append(b, '-')
	b = strconv.AppendInt(b, w.TStart, 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, w.TEnd, 10)
	if part != nil {
		b = append(b, "-p-"...)
		b = append(b, EscapeName(part.Partition)...)
		b = append(b, '-')
		b = strconv.AppendInt(b, part.FirstOffset, 10)
		b = append(b, '-')
		b = strconv.AppendInt(b, part.LastOffset, 10)
	}
	b = append(b, '.')
	b = append(b, o.Ext()...)
	return string(b), nil
}

// Manifest returns the key of the manifest of window kk of a queue. It
// refuses an empty tenant or queue, or a kk of 0, wrapping ErrBadKey.
func (k Keys) Manifest(tenant, queue string, kk uint64) (string, error) {
	return k.sidecar(tenant, queue, kk, "/windows/", ".json")
}

// Checkpoint returns the key of the checkpoint written after window kk of a
// queue. It refuses an empty tenant or queue, or a kk of 0, wrapping ErrBadKey.
func (k Keys) Checkpoint(tenant, queue string, kk uint64) (string, error) {
	return k.sidecar(tenant, queue, kk, "/checkpoint/", ".json.zst")
}

// sidecarDir is the first segment after the prefix of every sidecar key. It
// is not a Hive partition, so readers globbing tenant=*/... never see it.
const sidecarDir = "_queen"

func (k Keys) sidecar(tenant, queue string, kk uint64, dir, ext string) (string, error) {
	if err := checkName(tenant, queue, kk); err != nil {
		return "", err
	}
	b := make([]byte, 0, 64+len(k.prefix)+3*(len(tenant)+len(queue)))
	b = append(b, k.prefix...)
	b = append(b, "/"+sidecarDir...)
	b = appendQueueSegs(b, tenant, queue)
	b = append(b, dir...)
	b = appendK(b, kk)
	b = append(b, ext...)
	return string(b), nil
}

// appendQueue appends <prefix>/tenant=<t>/queue=<q>.
func (k Keys) appendQueue(b []byte, tenant, queue string) []byte {
	return appendQueueSegs(append(b, k.prefix...), tenant, queue)
}

// appendQueueSegs appends /tenant=<t>/queue=<q>.
func appendQueueSegs(b []byte, tenant, queue string) []byte {
	b = append(b, "/tenant="...)
	b = append(b, EscapeName(tenant)...)
	b = append(b, "/queue="...)
	return append(b, EscapeName(queue)...)
}

// appendK appends k padded with zeros to ten digits (more when k needs more).
func appendK(b []byte, k uint64) []byte {
	var d [20]byte
	s := strconv.AppendUint(d[:0], k, 10)
	for i := len(s); i < 10; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// KeyKind says which object a key names.
type KeyKind uint8

// The kinds of key. The zero KeyKind is invalid.
const (
	// KindData is the key of a data object (JSONL or Parquet).
	KindData KeyKind = iota + 1
	// KindManifest is the key of a window's manifest.
	KindManifest
	// KindCheckpoint is the key of a checkpoint.
	KindCheckpoint
)

var kindNames = [...]string{KindData: "data", KindManifest: "manifest", KindCheckpoint: "checkpoint"}

// String returns the kind's name: data, manifest or checkpoint.
func (k KeyKind) String() string { return name(kindNames[:], uint8(k), "KeyKind") }
