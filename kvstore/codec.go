package kvstore

import (
	"encoding/binary"
	"fmt"
	"github.com/queen-mq/queen-go/raftlog/wire"

	"github.com/queen-mq/queen-go/raftlog"
)

// OpKV is the raftlog op kind of a KV call: one op of kind OpKV carries a
// whole call (a tenant and its KV ops). Its number never changes meaning.
const OpKV raftlog.OpKind = 256

// callVersion starts every encoded call and answer. A node refuses a
// version it does not know, so an old binary never misreads a newer log;
// the number only ever grows.
const callVersion = 1

// minOpBytes is the size of the smallest encoded op: two bytes and ten
// one-byte fields.
const minOpBytes = 12

// The flags of an op (call codec) and of a result (answer codec), side by
// side: bit i is flagBits' argument i in both.
const (
	flagRequired, rflagApplied = 1 << iota, 1 << iota
	flagKeysOnly, rflagFound
	flagExpect, rflagTruncated
	flagValue, rflagValue
	flagsKnown  = flagRequired | flagKeysOnly | flagExpect | flagValue
	rflagsKnown = rflagApplied | rflagFound | rflagTruncated | rflagValue
)

// appendCall appends c's encoding:
//
//	version | tenant | count (uvarint) | count × op
//	op = kind (1) | flags (1) | ns | key | keys (uvarint count, strings) | after |
//	     limit (uvarint) | ttl (varint) | expect (uvarint) | [value] | delta | min | max
//
// where a string is its uvarint length and bytes, and value is present
// when flagValue is set.
func appendCall(b []byte, c *call) []byte {
	b = append(b, callVersion)
	b = appendString(b, c.tenant)
	b = binary.AppendUvarint(b, uint64(len(c.ops)))
	for i := range c.ops {
		o := &c.ops[i]
		b = append(b, byte(o.kind), flagBits(o.required, o.keysOnly, o.hasExpect, o.value != nil))
		b = appendString(b, o.ns)
		b = appendString(b, o.key)
		b = binary.AppendUvarint(b, uint64(len(o.keys)))
		for _, k := range o.keys {
			b = appendString(b, k)
		}
		b = appendString(b, o.after)
		b = binary.AppendUvarint(b, uint64(o.limit))
		b = binary.AppendVarint(b, o.ttl)
		b = binary.AppendUvarint(b, o.expect)
		b = appendValue(b, o.value)
		b = appendString(b, o.delta)
		b = appendString(b, o.min)
		b = appendString(b, o.max)
	}
	return b
}

// decodeCall reads a call encoded by appendCall. It checks the shape only
// (known version, kinds and flags; lengths inside b; no trailing bytes):
// evaluation checks the rest. Values alias b.
func decodeCall(b []byte) (*call, error) {
	d, err := openDecoder(b, "call")
	if err != nil {
		return nil, err
	}
	c := &call{tenant: d.string()}
	n := d.Count(minOpBytes)
	if n > 0 {
		c.ops = make([]op, n)
	}
	for i := range c.ops {
		o := &c.ops[i]
		kind, flags := d.Byte(), d.Byte()
		if d.Err != nil || kind == 0 || kind >= byte(kindEnd) || flags&^flagsKnown != 0 {
			d.Fail("op kind or flags")
			break
		}
		o.kind = opKind(kind)
		o.required, o.keysOnly, o.hasExpect = flags&flagRequired != 0, flags&flagKeysOnly != 0, flags&flagExpect != 0
		o.ns, o.key = d.string(), d.string()
		o.keys = d.strings()
		o.after = d.string()
		o.limit = uint32(d.uvarintTo(1<<32-1, "limit"))
		o.ttl = d.Varint()
		o.expect = d.Uvarint()
		if flags&flagValue != 0 {
			o.value = d.Bytes()
		}
		o.delta, o.min, o.max = d.string(), d.string(), d.string()
		if d.Err != nil {
			break
		}
	}
	if err := d.finish(); err != nil {
		return nil, err
	}
	return c, nil
}

func appendString(b []byte, s string) []byte { return wire.AppendString(b, s) }

// appendValue appends v as a string when it is present (its flag says so).
func appendValue(b, v []byte) []byte {
	if v != nil {
		b = appendString(b, string(v))
	}
	return b
}

// flagBits packs a flag byte: bit i is set when set[i] is true (the
// flag* and rflag* constants count from bit 0 in that order).
func flagBits(set ...bool) byte {
	var f byte
	for i, on := range set {
		if on {
			f |= 1 << i
		}
	}
	return f
}

// decoder reads the fields of kvstore's codecs (wire.Decoder), its
// failures wrapping ErrCorrupt.
type decoder struct{ wire.Decoder }

func newDecoder(b []byte) decoder { return decoder{wire.NewDecoder(b, ErrCorrupt)} }

// openDecoder reads past the version that starts an encoded call or
// answer (what), refusing one this node does not know.
func openDecoder(b []byte, what string) (decoder, error) {
	if len(b) == 0 || b[0] != callVersion {
		return decoder{}, fmt.Errorf("%w: %s version", ErrCorrupt, what)
	}
	return newDecoder(b[1:]), nil
}

// finish refuses bytes after the last field and returns d's error.
func (d *decoder) finish() error {
	if d.Err == nil && len(d.B) > 0 {
		d.Fail("trailing bytes")
	}
	return d.Err
}

func (d *decoder) string() string { return string(d.Bytes()) }

// strings reads a uvarint count and that many strings (nil for none).
func (d *decoder) strings() []string {
	n := d.Count(1)
	if n == 0 {
		return nil
	}
	s := make([]string, n)
	for i := range s {
		s[i] = d.string()
	}
	return s
}

// uvarintTo reads a uvarint of at most max; a larger one fails d (what
// names it) and reads as 0.
func (d *decoder) uvarintTo(max uint64, what string) uint64 {
	v := d.Uvarint()
	if v > max {
		d.Fail(what)
		return 0
	}
	return v
}
