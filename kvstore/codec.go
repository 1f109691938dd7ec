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

// op flags.
const (
	flagRequired = 1 << iota
	flagKeysOnly
	flagExpect
	flagValue
	flagsKnown = flagRequired | flagKeysOnly | flagExpect | flagValue
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
		var flags byte
		if o.required {
			flags |= flagRequired
		}
		if o.keysOnly {
			flags |= flagKeysOnly
		}
		if o.hasExpect {
			flags |= flagExpect
		}
		if o.value != nil {
			flags |= flagValue
		}
		b = append(b, byte(o.kind), flags)
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
		if o.value != nil {
			b = appendString(b, string(o.value))
		}
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
	if len(b) == 0 || b[0] != callVersion {
		return nil, fmt.Errorf("%w: call version", ErrCorrupt)
	}
	d := newDecoder(b[1:])
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
		if nk := d.Count(1); nk > 0 {
			o.keys = make([]string, nk)
			for j := range o.keys {
				o.keys[j] = d.string()
			}
		}
		o.after = d.string()
		if l := d.Uvarint(); l > 1<<32-1 {
			d.Fail("limit")
		} else {
			o.limit = uint32(l)
		}
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
	if d.Err == nil && len(d.B) > 0 {
		d.Fail("trailing bytes")
	}
	if d.Err != nil {
		return nil, d.Err
	}
	return c, nil
}

func appendString(b []byte, s string) []byte { return wire.AppendString(b, s) }

// decoder reads the fields of kvstore's codecs (wire.Decoder), its
// failures wrapping ErrCorrupt.
type decoder struct{ wire.Decoder }

func newDecoder(b []byte) decoder { return decoder{wire.NewDecoder(b, ErrCorrupt)} }

func (d *decoder) string() string { return string(d.Bytes()) }
