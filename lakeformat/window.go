package lakeformat

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Object is one finished object of a window, ready to upload.
type Object struct {
	// Key is the object's key in the bucket.
	Key string
	// Body is the object's bytes.
	Body []byte
	// SHA256 is the digest of Body.
	SHA256 [sha256.Size]byte
	// Records is how many records Body holds; Size their uncompressed size
	// (see Encoder.Size).
	Records, Size int64
	// MinTs and MaxTs are the least and greatest ts of its records.
	MinTs, MaxTs int64
	// Part names the partition and offsets of a per-partition object; nil
	// in the merged layout.
	Part *Part
}

// WindowWriter encodes the records of one window into its objects: one for
// the merged layout, one per partition for the per-partition layout. Records
// come in the lake's order (partition, then offset), and each must lie in
// the window: TStart <= ts < TEnd. A finished object is handed to the emit
// function at once, so the writer holds one object at a time.
type WindowWriter struct {
	keys    Keys
	window  Window
	align   Align
	layout  Layout
	opts    Options
	emit    func(*Object) error
	buf     bytes.Buffer
	enc     *Encoder // the open object; nil between per-partition objects
	part    Part     // the open object's partition and offsets (per-partition)
	minTs   int64
	maxTs   int64
	records int64
	size    int64 // of the finished objects
	err     error // sticky
}

// NewWindowWriter starts window w. The key of each object comes from keys,
// w, align and o (see Keys.Data); emit receives each object as it is
// finished, and an error it returns stops the writer.
func NewWindowWriter(keys Keys, w Window, align Align, layout Layout, o Options, emit func(*Object) error) (*WindowWriter, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	if layout != Merged && layout != PerPartition {
		return nil, fmt.Errorf("%w: layout %v is not merged or per-partition", ErrBadSetting, layout)
	}
	// Check the key once, up front, so that bad settings fail before any record.
	if _, err := keys.Data(w, align, o, nil); err != nil {
		return nil, err
	}
	return &WindowWriter{keys: keys, window: w, align: align, layout: layout, opts: o, emit: emit}, nil
}

// Add appends r. Refused records (ErrInvalidRecord, ErrOutOfOrder) leave the
// writer as it was; any other error stops it.
func (ww *WindowWriter) Add(r *Record) error {
	if ww.err != nil {
		return ww.err
	}
	if r.Ts < ww.window.TStart || r.Ts >= ww.window.TEnd {
		return fmt.Errorf("%w: partition %q offset %d: ts %d is outside window %d [%d, %d)",
			ErrInvalidRecord, r.Partition, r.Offset, r.Ts, ww.window.K, ww.window.TStart, ww.window.TEnd)
	}
	if ww.enc != nil && ww.layout == PerPartition && r.Partition != ww.part.Partition {
		if err := r.Validate(); err != nil {
			return err // refuse before finishing the open object
		}
		if err := checkOrder(&Record{Partition: ww.part.Partition, Offset: ww.part.LastOffset}, r); err != nil {
			return err
		}
		if err := ww.finish(); err != nil {
			return err
		}
	}
	if ww.enc == nil {
		enc, err := NewEncoder(&ww.buf, ww.opts)
		if err != nil {
			return ww.fail(err)
		}
		ww.enc, ww.part = enc, Part{Partition: r.Partition, FirstOffset: r.Offset}
		ww.minTs, ww.maxTs = r.Ts, r.Ts
	}
	if err := ww.enc.Add(r); err != nil {
		if ww.enc.err != nil {
			return ww.fail(err)
		}
		return err
	}
	ww.part.LastOffset = r.Offset
	ww.minTs, ww.maxTs = min(ww.minTs, r.Ts), max(ww.maxTs, r.Ts)
	ww.records++
	return nil
}

// Records returns how many records were added.
func (ww *WindowWriter) Records() int64 { return ww.records }

// Size returns the uncompressed size of the records added so far.
func (ww *WindowWriter) Size() int64 {
	if ww.enc != nil {
		return ww.size + ww.enc.Size()
	}
	return ww.size
}

// Close finishes the last object. A window with no records writes none.
func (ww *WindowWriter) Close() error {
	if ww.err != nil {
		return ww.err
	}
	err := ww.finish()
	if err == nil {
		ww.err = ErrClosed
	}
	return err
}

// finish closes the open object, if any, and hands it to emit.
func (ww *WindowWriter) finish() error {
	if ww.enc == nil {
		return nil
	}
	enc := ww.enc
	ww.enc = nil
	if err := enc.Close(); err != nil {
		return ww.fail(err)
	}
	var part *Part
	if ww.layout == PerPartition {
		p := ww.part
		part = &p
	}
	key, err := ww.keys.Data(ww.window, ww.align, ww.opts, part)
	if err != nil {
		return ww.fail(err)
	}
	body := ww.buf.Bytes()
	ww.buf = bytes.Buffer{} // the object owns body now
	obj := &Object{Key: key, Body: body, SHA256: sha256.Sum256(body), Records: enc.Records(),
		Size: enc.Size(), MinTs: ww.minTs, MaxTs: ww.maxTs, Part: part}
	ww.size += obj.Size
	if err := ww.emit(obj); err != nil {
		return ww.fail(err)
	}
	return nil
}

func (ww *WindowWriter) fail(err error) error {
	ww.err = err
	return err
}

// EncodeWindow encodes records, sorted in the lake's order, into the objects
// of window w and returns them. It is NewWindowWriter for callers that hold
// the whole window already (tools, tests, the compatibility lane).
func EncodeWindow(keys Keys, w Window, align Align, layout Layout, o Options, records []Record) ([]*Object, error) {
	var objs []*Object
	ww, err := NewWindowWriter(keys, w, align, layout, o, func(obj *Object) error {
		objs = append(objs, obj)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range records {
		if err := ww.Add(&records[i]); err != nil {
			return nil, err
		}
	}
	if err := ww.Close(); err != nil {
		return nil, err
	}
	return objs, nil
}

// ManifestObject returns o's entry in its window's manifest.
func (o *Object) ManifestObject() ManifestObject {
	m := ManifestObject{Key: o.Key, Bytes: int64(len(o.Body)), Records: o.Records, SHA256: hex.EncodeToString(o.SHA256[:])}
	if o.Part != nil {
		p, first, last := o.Part.Partition, o.Part.FirstOffset, o.Part.LastOffset
		m.Partition, m.FirstOffset, m.LastOffset = &p, &first, &last
	}
	return m
}
