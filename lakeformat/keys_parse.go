package lakeformat

import (
	"fmt"
	"strconv"
	"strings"
)

// ParsedKey is what Keys.Parse reads from a key.
type ParsedKey struct {
	// Kind is the kind of object the key names.
	Kind KeyKind
	// Window is the window of the key: every field for data keys; Tenant,
	// Queue and K for manifest and checkpoint keys.
	Window Window
	// Hour says whether a data key carries hour= (AlignHour or AlignNone).
	Hour bool
	// Format is the format of a data key, from its extension.
	Format Format
	// Codec is the codec of a JSONL data key (Zstd, Gzip or None); 0 for
	// Parquet, whose codec is inside the file.
	Codec Codec
	// Part is the partition and offsets of a per-partition data key; nil
	// otherwise.
	Part *Part
}

// align returns the alignment that rebuilds a data key: AlignNone when it
// carries hour= (AlignHour builds the same key, for windows within an hour),
// AlignDay when it does not.
func (p ParsedKey) align() Align {
	if p.Hour {
		return AlignNone
	}
	return AlignDay
}

// options returns Options that rebuild a data key: Parquet's codec, not in
// the key, is taken as Zstd (any Parquet codec gives the same extension).
func (p ParsedKey) options() Options {
	o := Options{Format: p.Format, Codec: p.Codec}
	if o.Format == Parquet {
		o.Codec = Zstd
	}
	return o
}

// rebuild returns the key k builds from p.
func (k Keys) rebuild(p ParsedKey) (string, error) {
	switch p.Kind {
	case KindData:
		return k.Data(p.Window, p.align(), p.options(), p.Part)
	case KindManifest:
		return k.Manifest(p.Window.Tenant, p.Window.Queue, p.Window.K)
	case KindCheckpoint:
		return k.Checkpoint(p.Window.Tenant, p.Window.Queue, p.Window.K)
	}
	return "", fmt.Errorf("%w: kind %v", ErrBadKey, p.Kind)
}

// dataExts are the extensions of data keys, longest first, so that
// jsonl.zst is not read as jsonl.
var dataExts = [...]string{".jsonl.zst", ".jsonl.gz", ".parquet", ".jsonl"}

// Parse reads a key that k's builders produce: a data, manifest or
// checkpoint key under k's prefix. It is strict: it refuses, in an error
// wrapping ErrBadKey that quotes the key, any key the builders would not
// produce from what it holds (another prefix, unknown segments or
// extension, non-canonical numbers or escapes, a dt= or hour= that is not
// tStart's, a window crossing its day when hour= is absent, and so on).
// Parse never panics.
func (k Keys) Parse(key string) (ParsedKey, error) {
	p, err := k.parse(key)
	if err != nil {
		return ParsedKey{}, err
	}
	again, err := k.rebuild(p)
	if err != nil {
		return ParsedKey{}, fmt.Errorf("%w %q: %s", ErrBadKey, key, reason(err))
	}
	if again != key {
		return ParsedKey{}, fmt.Errorf("%w %q: not canonical (want %q)", ErrBadKey, key, again)
	}
	return p, nil
}

// parse splits key into its fields; Parse checks them by rebuilding.
func (k Keys) parse(key string) (ParsedKey, error) {
	bad := func(why string, args ...any) (ParsedKey, error) {
		return ParsedKey{}, fmt.Errorf("%w %q: %s", ErrBadKey, key, fmt.Sprintf(why, args...))
	}
	rest, ok := strings.CutPrefix(key, k.prefix+"/")
	if !ok {
		return bad("not under prefix %q", k.prefix)
	}
	segs := strings.Split(rest, "/")
	var p ParsedKey
	if segs[0] == sidecarDir {
		if len(segs) != 5 {
			return bad("a sidecar key has 5 segments after the prefix, not %d", len(segs))
		}
		var ext string
		switch segs[3] {
		case "windows":
			p.Kind, ext = KindManifest, ".json"
		case "checkpoint":
			p.Kind, ext = KindCheckpoint, ".json.zst"
		default:
			return bad("unknown sidecar directory %q", segs[3])
		}
		if err := parseQueue(&p.Window, segs[1], segs[2]); err != nil {
			return bad("%s", reason(err))
		}
		num, ok := strings.CutSuffix(segs[4], ext)
		if !ok {
			return bad("%s file %q does not end in %s", p.Kind, segs[4], ext)
		}
		if p.Window.K, ok = parseUint(num); !ok {
			return bad("k %q is not a number", num)
		}
		return p, nil
	}
	p.Kind = KindData
	switch len(segs) {
	case 4:
	case 5:
		p.Hour = true
	default:
		return bad("a data key has 4 or 5 segments after the prefix, not %d", len(segs))
	}
	if err := parseQueue(&p.Window, segs[0], segs[1]); err != nil {
		return bad("%s", reason(err))
	}
	// dt= and hour= are not read: rebuilding from tStart checks them.
	file := segs[len(segs)-1]
	stem := ""
	for _, ext := range dataExts {
		if s, ok := strings.CutSuffix(file, ext); ok {
			stem = s
			p.Format, p.Codec, _ = optionsForExt(ext[1:])
			break
		}
	}
	if p.Format == 0 {
		return bad("file %q has no known extension", file)
	}
	stem, ok = strings.CutPrefix(stem, "w-")
	if !ok {
		return bad("file %q does not start with w-", file)
	}
	f := strings.SplitN(stem, "-", 4)
	if len(f) < 3 {
		return bad("file %q is not w-<k>-<tStart>-<tEnd>", file)
	}
	var okK, okS, okE bool
	p.Window.K, okK = parseUint(f[0])
	p.Window.TStart, okS = parseInt(f[1])
	p.Window.TEnd, okE = parseInt(f[2])
	if !okK || !okS || !okE {
		return bad("file %q is not w-<k>-<tStart>-<tEnd>", file)
	}
	if len(f) == 4 {
		part, err := parsePart(f[3])
		if err != nil {
			return bad("file %q: %s", file, reason(err))
		}
		p.Part = part
	}
	return p, nil
}

// reason returns the message of err without the "lakeformat: bad key: "
// that Parse's own error already starts with.
func reason(err error) string {
	return strings.TrimPrefix(err.Error(), ErrBadKey.Error()+": ")
}

// parseQueue reads the tenant=<t> and queue=<q> segments into w.
func parseQueue(w *Window, tseg, qseg string) error {
	t, ok1 := strings.CutPrefix(tseg, "tenant=")
	q, ok2 := strings.CutPrefix(qseg, "queue=")
	if !ok1 || !ok2 {
		return fmt.Errorf("segments %q and %q are not tenant=<t> and queue=<q>", tseg, qseg)
	}
	var err error
	if w.Tenant, err = UnescapeName(t); err != nil {
		return err
	}
	w.Queue, err = UnescapeName(q)
	return err
}

// parsePart reads p-<partition>-<first>-<last>, the offsets from the right
// since an escaped partition may hold '-'.
func parsePart(s string) (*Part, error) {
	s, ok := strings.CutPrefix(s, "p-")
	i := strings.LastIndexByte(s, '-')
	if !ok || i < 0 {
		return nil, fmt.Errorf("suffix %q is not p-<partition>-<first>-<last>", s)
	}
	j := strings.LastIndexByte(s[:i], '-')
	if j < 0 {
		return nil, fmt.Errorf("suffix %q is not p-<partition>-<first>-<last>", s)
	}
	first, ok1 := parseInt(s[j+1 : i])
	last, ok2 := parseInt(s[i+1:])
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("offsets %q are not <first>-<last>", s[j+1:])
	}
	name, err := UnescapeName(s[:j])
	if err != nil {
		return nil, err
	}
	return &Part{Partition: name, FirstOffset: first, LastOffset: last}, nil
}

// parseUint reads decimal digits only (no sign); padding is checked by
// rebuilding.
func parseUint(s string) (uint64, bool) {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}

// parseInt reads decimal digits only (no sign) into an int64.
func parseInt(s string) (int64, bool) {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}
