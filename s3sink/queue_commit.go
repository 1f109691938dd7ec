package s3sink

import (
	"context"
	"fmt"

	"github.com/queen-mq/queen-go/lakeformat"
)

// writerName is the manifest's writer field: the sink's version and the
// format, as queen-s3/2.0.0 jsonl+zstd.
func writerName(o lakeformat.Options) string { return "queen-s3/" + Version + " " + o.WriterID() }

// Version is the sink's version, in manifests and the status block.
const Version = "2.0.0"

// commitWindow commits the window that fillRound closed at q.closeAt:
// intent, objects then manifest, commit pointer.
func (q *queueTask) commitWindow(ctx context.Context) error {
	w := lakeformat.Window{Tenant: q.e.tenant, Queue: q.queue, K: q.k, TStart: q.tStart, TEnd: q.closeAt}
	o := lakeformat.Options{Format: q.e.set.Format, Codec: q.codec()}
	in := intentDoc{K: w.K, TStart: w.TStart, TEnd: w.TEnd, Format: o.Format.String(), Compression: o.Codec.String(),
		Layout: q.e.set.Layout.String(), Writer: writerName(o)}
	q.setState(StateIntent)
	iv := q.intentVersion
	res, err := q.fenced(ctx, []KVOp{{Kind: KVPut, Key: docKey(q.e.set.Sink, q.queue, "intent"), Value: mustJSON(in),
		Expect: &iv, Required: true}})
	if err != nil {
		return fmt.Errorf("intent of window %d: %w", w.K, err)
	}
	q.intentVersion = res.Results[1].Version
	q.pending = &in
	q.e.crashAt(CrashAfterIntent)
	q.log.Debug("window closing", "k", w.K, "why", q.closeWhy, "tStart", w.TStart, "tEnd", w.TEnd)
	return q.uploadAndCommit(ctx, w, in)
}

// finishPending finishes the window of q.pending once this node has
// applied all of it (its safeTime reached the window's end); done is false
// while it waits.
func (q *queueTask) finishPending(ctx context.Context) (done bool, err error) {
	in := *q.pending
	if err := q.readAll(ctx); err != nil {
		return false, err
	}
	q.setComplete(in.TStart) // the lag grows while the window waits
	if q.safeTime < in.TEnd {
		return false, nil
	}
	w := lakeformat.Window{Tenant: q.e.tenant, Queue: q.queue, K: in.K, TStart: in.TStart, TEnd: in.TEnd}
	return true, q.uploadAndCommit(ctx, w, in)
}

// uploadAndCommit writes the objects of window w, as intent in fixed them,
// then its manifest, then moves the commit pointer. The window's records
// are the buffered ones stamped before w.TEnd.
func (q *queueTask) uploadAndCommit(ctx context.Context, w lakeformat.Window, in intentDoc) error {
	q.setState(StateUpload)
	format, err := lakeformat.ParseFormat(in.Format)
	if err != nil {
		return err
	}
	codec, err := lakeformat.ParseCodec(in.Compression)
	if err != nil {
		return err
	}
	layout, err := lakeformat.ParseLayout(in.Layout)
	if err != nil {
		return err
	}
	o := lakeformat.Options{Format: format, Codec: codec, Tenant: w.Tenant, Queue: w.Queue}
	m := lakeformat.Manifest{Sink: q.e.set.Sink, Tenant: w.Tenant, Queue: w.Queue, K: w.K, TStart: w.TStart, TEnd: w.TEnd,
		Format: format, Codec: codec, Layout: layout, Writer: in.Writer}
	var minTs, maxTs int64
	uploaded := 0
	ww, err := lakeformat.NewWindowWriter(q.e.keys, w, q.e.set.Align, layout, o, func(obj *lakeformat.Object) error {
		if err := q.put(ctx, obj.Key, obj.Body); err != nil {
			return err
		}
		if uploaded++; uploaded == 1 {
			minTs, maxTs = obj.MinTs, obj.MaxTs
			q.e.crashAt(CrashMidUpload)
		}
		minTs, maxTs = min(minTs, obj.MinTs), max(maxTs, obj.MaxTs)
		mo := obj.ManifestObject()
		m.Objects = append(m.Objects, mo)
		m.Records += mo.Records
		m.Bytes += mo.Bytes
		return nil
	})
	if err != nil {
		return err
	}
	partitions := map[string]bool{}
	for _, p := range q.sortedParts() {
		n, _ := p.below(w.TEnd)
		for i := range n {
			if err := ww.Add(&p.recs[i]); err != nil {
				return fmt.Errorf("window %d: %w", w.K, err)
			}
		}
		if n > 0 {
			partitions[p.name] = true
		}
		m.Lost = append(m.Lost, p.lost...)
	}
	if err := ww.Close(); err != nil {
		return fmt.Errorf("window %d: %w", w.K, err)
	}
	q.e.crashAt(CrashAfterUpload)
	m.Partitions = int64(len(partitions))
	if m.Records > 0 {
		m.MinTs, m.MaxTs = &minTs, &maxTs
	}
	m.CommittedAt = q.e.now().UnixMicro()
	body, err := m.Encode()
	if err != nil {
		return err
	}
	manifestKey, err := q.e.keys.Manifest(w.Tenant, w.Queue, w.K)
	if err != nil {
		return err
	}
	if err := q.put(ctx, manifestKey, body); err != nil {
		return err
	}
	q.e.crashAt(CrashBeforeCommit)
	if err := q.commitPointer(ctx, w, manifestKey, m.Records, m.Bytes); err != nil {
		return err
	}
	for _, lr := range m.Lost {
		q.e.metrics.lost(q.e.tenant, q.queue, lr.To-lr.From+1)
		q.mu.Lock()
		q.st.recordsLost += lr.To - lr.From + 1
		q.mu.Unlock()
		q.log.Warn("window committed with records retention deleted before they were read", "k", w.K,
			"partition", lr.Partition, "from", lr.From, "to", lr.To)
	}
	return nil
}

// put uploads one object, in parts when it passes the multipart threshold.
func (q *queueTask) put(ctx context.Context, key string, body []byte) error {
	if int64(len(body)) > q.e.node.MultipartThreshold {
		return q.e.store.PutMultipart(ctx, key, body, multipartPart)
	}
	return q.e.store.Put(ctx, key, body)
}

// multipartPart is the part size of a multipart upload.
const multipartPart = 16 << 20

// commitPointer moves the commit pointer to window w, fenced by the lease,
// drops the window's records from the buffers and opens window k+1 at w's
// end.
func (q *queueTask) commitPointer(ctx context.Context, w lakeformat.Window, manifest string, records, bytes int64) error {
	q.setState(StateCommit)
	cv := q.committedVersion
	doc := committedDoc{K: w.K, TEnd: lakeformat.FormatTs(w.TEnd), Manifest: manifest, Records: records, Bytes: bytes,
		CommittedAtMs: q.e.now().UnixMilli()}
	// The lost notes this window reported, and older ones, go with it.
	deletes, done := q.noteDeletes(w.K)
	res, err := q.fenced(ctx, append([]KVOp{{Kind: KVPut, Key: docKey(q.e.set.Sink, q.queue, "committed"), Value: mustJSON(doc),
		Expect: &cv, Required: true}}, deletes...))
	if err != nil {
		return fmt.Errorf("commit window %d: %w", w.K, err)
	}
	q.e.crashAt(CrashAfterCommit)
	q.committedVersion = res.Results[1].Version
	q.dropNotes(done)
	q.committed(w, records, bytes)
	q.seedLost(w.K)
	q.checkpoint(ctx, w)
	return nil
}

// committed moves past window w, committed: drops its records from the
// buffers and opens window k+1 at w's end.
func (q *queueTask) committed(w lakeformat.Window, records, bytes int64) {
	q.pending = nil
	q.k, q.committedEnd = w.K+1, w.TEnd
	var freed int64
	for _, p := range q.parts {
		n, size := p.below(w.TEnd)
		p.recs = append(p.recs[:0:0], p.recs[n:]...)
		p.lost = nil
		freed += size
	}
	q.buffered -= freed
	q.e.mem.add(q, -freed)
	q.tStart = w.TEnd
	q.mu.Lock()
	q.st.redo = false
	q.st.windowsCommitted++
	q.st.records += records
	q.st.bytes += bytes
	q.st.completeThrough = max(q.st.completeThrough, w.TEnd)
	q.st.k, q.st.tEnd = w.K, w.TEnd
	q.mu.Unlock()
	q.e.metrics.window(q.e.tenant, q.queue, records, bytes)
	q.log.Info("window committed", "k", w.K, "records", records, "bytes", bytes, "tEnd", lakeformat.FormatTs(w.TEnd))
}

// checkpoint writes the next offset of each partition every
// CHECKPOINT_EVERY windows. It only shortens a later re-read: a failure is
// logged and forgotten.
func (q *queueTask) checkpoint(ctx context.Context, w lakeformat.Window) {
	q.ckptAge++
	defer func() {
		q.mu.Lock()
		q.st.ckptAge = q.ckptAge
		q.mu.Unlock()
	}()
	if q.ckptAge < max(q.e.node.CheckpointEvery, 1) {
		return
	}
	c := lakeformat.Checkpoint{K: w.K, TEnd: w.TEnd}
	for _, p := range q.sortedParts() {
		next := p.next - int64(len(p.recs))
		c.Positions = append(c.Positions, lakeformat.Position{Partition: p.name, NextOffset: next})
	}
	body, err := c.Encode()
	if err == nil {
		var key string
		if key, err = q.e.keys.Checkpoint(w.Tenant, w.Queue, w.K); err == nil {
			err = q.put(ctx, key, body)
		}
	}
	if err != nil {
		q.log.Warn("checkpoint not written", "k", w.K, "err", err)
		return
	}
	q.ckptAge = 0
}
