package lakeformat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// ErrBadCheckpoint is wrapped by every error that refuses a checkpoint,
// whether Encode or DecodeCheckpoint returns it.
var ErrBadCheckpoint = errors.New("lakeformat: bad checkpoint")

// maxCheckpointJSON bounds a checkpoint's JSON text, so that a small
// corrupt or hostile zstd stream cannot expand without end.
const maxCheckpointJSON = 256 << 20

// Checkpoint holds the next offset of each partition after window K: a cache
// that shortens the re-read after a restart. It is stored as
// <prefix>/_queen/tenant=<t>/queue=<q>/checkpoint/<k>.json.zst, a zstd stream
// of compact JSON:
//
//	{"k":7,"tEnd":1791009458377855,"positions":[["p",12],["q",3,"uuid"]]}
type Checkpoint struct {
	// K is the window after which the positions hold, from 1.
	K uint64
	// TEnd is window K's end, µs on the broker's clock.
	TEnd int64
	// Positions are the partitions' next offsets.
	//
	// INVARIANT: sorted by Partition (bytewise), each partition once.
	// DecodeCheckpoint returns nil for an empty list.
	Positions []Position
}

// Position is the next offset to read in one partition.
type Position struct {
	// Partition is the partition's name: non-empty, valid UTF-8.
	Partition string
	// NextOffset is the first offset not yet in a committed window: 0 or more.
	NextOffset int64
	// PartitionID names the partition's incarnation when known; "" is omitted.
	PartitionID string
}

// Encode validates c and renders it as compact JSON in one zstd stream. The
// same checkpoint always gives the same bytes. Unsorted or duplicate
// partitions are refused, not sorted.
func (c *Checkpoint) Encode() ([]byte, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	positions := make([][]any, len(c.Positions))
	for i, p := range c.Positions {
		positions[i] = []any{p.Partition, p.NextOffset}
		if p.PartitionID != "" {
			positions[i] = append(positions[i], p.PartitionID)
		}
	}
	var text bytes.Buffer
	enc := json.NewEncoder(&text)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		K         uint64  `json:"k"`
		TEnd      int64   `json:"tEnd"`
		Positions [][]any `json:"positions"`
	}{c.K, c.TEnd, positions})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadCheckpoint, err)
	}
	body := bytes.TrimSuffix(text.Bytes(), []byte("\n"))
	if len(body) > maxCheckpointJSON {
		return nil, fmt.Errorf("%w: %d bytes of JSON is more than %d", ErrBadCheckpoint, len(body), maxCheckpointJSON)
	}
	var out bytes.Buffer
	zw, err := newCompressor(&out, Zstd)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(body); err != nil {
		zw.Close()
		return nil, fmt.Errorf("lakeformat: compress checkpoint: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("lakeformat: compress checkpoint: %w", err)
	}
	return out.Bytes(), nil
}

// DecodeCheckpoint reads a checkpoint that Encode wrote. It refuses a broken
// zstd stream, JSON that lacks k, tEnd or positions, a position that is not
// a 2- or 3-element array [partition, nextOffset(, partitionId)], and
// positions that break Encode's rules. Unknown members are ignored.
func DecodeCheckpoint(b []byte) (*Checkpoint, error) {
	zr, err := newDecompressor(bytes.NewReader(b), Zstd)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadCheckpoint, err)
	}
	defer zr.Close()
	text, err := io.ReadAll(io.LimitReader(zr, maxCheckpointJSON+1))
	if err != nil {
		return nil, fmt.Errorf("%w: zstd: %w", ErrBadCheckpoint, err)
	}
	if len(text) > maxCheckpointJSON {
		return nil, fmt.Errorf("%w: more than %d bytes of JSON", ErrBadCheckpoint, maxCheckpointJSON)
	}
	c, err := decodeCheckpoint(text)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadCheckpoint, err)
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

func decodeCheckpoint(text []byte) (*Checkpoint, error) {
	o, err := parseObject(text, "checkpoint")
	if err != nil {
		return nil, err
	}
	var c Checkpoint
	var positions []json.RawMessage
	if err := o.need("", jsonMember{"k", &c.K}, jsonMember{"tEnd", &c.TEnd}, jsonMember{"positions", &positions}); err != nil {
		return nil, err
	}
	for i, raw := range positions {
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return nil, fmt.Errorf("positions[%d]: %w", i, err)
		}
		if len(elems) != 2 && len(elems) != 3 {
			return nil, fmt.Errorf("positions[%d] has %d elements, not 2 or 3", i, len(elems))
		}
		var p Position
		dsts := []any{&p.Partition, &p.NextOffset, &p.PartitionID}
		for j, e := range elems {
			if string(e) == "null" {
				return nil, fmt.Errorf("positions[%d][%d] is null", i, j)
			}
			if err := json.Unmarshal(e, dsts[j]); err != nil {
				return nil, fmt.Errorf("positions[%d][%d]: %w", i, j, err)
			}
		}
		c.Positions = append(c.Positions, p)
	}
	return &c, nil
}

// validate reports the first rule c breaks, in an error wrapping
// ErrBadCheckpoint.
func (c *Checkpoint) validate() error {
	if c.K < 1 {
		return fmt.Errorf("%w: k %d is not 1 or more", ErrBadCheckpoint, c.K)
	}
	for i, p := range c.Positions {
		switch {
		case p.Partition == "" || !utf8.ValidString(p.Partition):
			return fmt.Errorf("%w: positions[%d]: partition %q is empty or not UTF-8", ErrBadCheckpoint, i, p.Partition)
		case !utf8.ValidString(p.PartitionID):
			return fmt.Errorf("%w: positions[%d] (%q): partitionId %q is not UTF-8", ErrBadCheckpoint, i, p.Partition, p.PartitionID)
		case p.NextOffset < 0:
			return fmt.Errorf("%w: positions[%d] (%q): nextOffset %d is negative", ErrBadCheckpoint, i, p.Partition, p.NextOffset)
		case i > 0 && c.Positions[i-1].Partition >= p.Partition:
			return fmt.Errorf("%w: positions[%d]: partition %q follows %q (sorted, unique names required)",
				ErrBadCheckpoint, i, p.Partition, c.Positions[i-1].Partition)
		}
	}
	return nil
}

// jsonObject is a JSON object's members by exact name: unlike
// encoding/json's struct decoding, it never matches a name in another case.
type jsonObject map[string]json.RawMessage

// jsonMember names an object member and where to decode it.
type jsonMember struct {
	name string
	dst  any
}

// parseObject reads b as one JSON object; what names it in errors.
func parseObject(b []byte, what string) (jsonObject, error) {
	var o jsonObject
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if o == nil {
		return nil, fmt.Errorf("%s is null, not an object", what)
	}
	return o, nil
}

// need decodes every member of ms and refuses one that is absent or null.
// path prefixes the names in errors.
func (o jsonObject) need(path string, ms ...jsonMember) error {
	for _, m := range ms {
		raw, ok := o[m.name]
		if !ok || string(raw) == "null" {
			return fmt.Errorf("%s%s is missing", path, m.name)
		}
		if err := json.Unmarshal(raw, m.dst); err != nil {
			return fmt.Errorf("%s%s: %w", path, m.name, err)
		}
	}
	return nil
}

// optMember decodes member name of o, or returns nil when it is absent or null.
func optMember[T any](o jsonObject, path, name string) (*T, error) {
	raw, ok := o[name]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	v := new(T)
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, fmt.Errorf("%s%s: %w", path, name, err)
	}
	return v, nil
}
