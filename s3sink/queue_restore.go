package s3sink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/queen-mq/queen-go/lakeformat"
)

// restore reads the queue's pointers and sets where the open window
// starts. An intent one past the commit pointer is a window a previous
// owner was committing: if its upload finished (its manifest names the
// intent) the pointer moves now; otherwise the window is rebuilt, which
// gives the same records, so the same bytes under the same keys.
func (q *queueTask) restore(ctx context.Context) error {
	q.setState(StateRestoring)
	q.pending = nil
	keys := []string{docKey(q.e.set.Sink, q.queue, "intent"), docKey(q.e.set.Sink, q.queue, "committed"),
		docKey(q.e.set.Sink, q.queue, "start")}
	rows, err := q.e.kv.Get(ctx, q.e.tenant, Namespace, keys)
	if err != nil {
		return fmt.Errorf("read pointers: %w", err)
	}
	intentRow, committedRow, startRow := rows[0], rows[1], rows[2]
	q.k, q.committedEnd = 1, 0
	if committedRow.Found {
		k, tEnd, err := decodeCommitted(committedRow.Value)
		if err != nil {
			return err
		}
		q.k, q.committedEnd = k+1, tEnd
	}
	q.intentVersion, q.committedVersion = intentRow.Version, committedRow.Version
	q.mu.Lock()
	q.st.k, q.st.tEnd, q.st.completeThrough = q.k-1, q.committedEnd, q.committedEnd
	q.mu.Unlock()
	if err := q.loadLost(ctx); err != nil {
		return err
	}
	if committedRow.Found {
		q.resetWindow(q.committedEnd)
	} else if err := q.startPoint(ctx, startRow); err != nil {
		return err
	}
	if intentRow.Found {
		var in intentDoc
		if err := json.Unmarshal(intentRow.Value, &in); err != nil {
			return fmt.Errorf("intent %s: %w", intentRow.Value, err)
		}
		if in.K == q.k {
			if err := q.redo(ctx, in); err != nil {
				return err
			}
		}
	}
	// The window now to be built follows window k-1 (a redo that found a
	// finished upload committed it): the notes about k-1 are its losses.
	q.seedLost(q.k - 1)
	return nil
}

// startPoint opens the first window of a queue with no commit pointer
// where its start point says: the one written when the sink first found
// the queue, or, the first time, one fixed now (start=latest: after every
// record applied, those stamped at safeTime too, so after the records
// that created the queue; earliest: the log's first record) and written,
// fenced by the lease, before anything is read. A queue that does not
// exist yet gets no start point: ErrQueueNotFound, and the sink looks
// again later.
func (q *queueTask) startPoint(ctx context.Context, row Row) error {
	if row.Found {
		var d startDoc
		if err := json.Unmarshal(row.Value, &d); err != nil {
			return fmt.Errorf("start point %s: %w", row.Value, err)
		}
		q.resetWindow(d.TStart)
		return nil
	}
	if _, err := q.e.logs.Partitions(ctx, q.e.tenant, q.queue, math.MaxInt64, "", 1); err != nil {
		return err
	}
	d := startDoc{TStart: -1, Start: "earliest"}
	if !q.e.set.StartEarliest {
		st, err := q.e.logs.SafeTime(ctx)
		if err != nil {
			return err
		}
		d = startDoc{TStart: st + 1, Start: "latest"}
	}
	var absent int64
	if _, err := q.fenced(ctx, []KVOp{{Kind: KVPut, Key: docKey(q.e.set.Sink, q.queue, "start"), Value: mustJSON(d),
		Expect: &absent, Required: true}}); err != nil {
		return fmt.Errorf("write the start point: %w", err)
	}
	q.resetWindow(d.TStart)
	return nil
}

// resetWindow empties the buffers; the next reads start at tStart (-1:
// from each partition's log start, for start=earliest).
func (q *queueTask) resetWindow(tStart int64) {
	q.tStart = tStart
	q.parts, q.order = map[string]*partBuf{}, nil
	q.e.mem.add(q, -q.buffered)
	q.buffered = 0
	q.discover = ""
}

// redo finishes the window of an intent left by a crash or a lost lease.
func (q *queueTask) redo(ctx context.Context, in intentDoc) error {
	q.mu.Lock()
	q.st.redo = true
	q.mu.Unlock()
	w := lakeformat.Window{Tenant: q.e.tenant, Queue: q.queue, K: in.K, TStart: in.TStart, TEnd: in.TEnd}
	manifestKey, err := q.e.keys.Manifest(q.e.tenant, q.queue, in.K)
	if err != nil {
		return err
	}
	body, err := q.e.store.Get(ctx, manifestKey)
	switch {
	case err == nil:
		m, err := lakeformat.DecodeManifest(body)
		if err == nil && m.K == in.K && m.TStart == in.TStart && m.TEnd == in.TEnd &&
			m.Format.String() == in.Format && m.Codec.String() == in.Compression && m.Layout.String() == in.Layout {
			q.log.Info("committing a finished upload", "k", in.K)
			return q.commitPointer(ctx, w, manifestKey, m.Records, m.Bytes)
		}
	case !errors.Is(err, ErrNotFound):
		return fmt.Errorf("read manifest %s: %w", manifestKey, err)
	}
	// Rebuild: read the window from its start and upload it again under
	// its intent, once this node has applied all of it (finishPending).
	q.log.Info("redoing an intent", "k", in.K, "tStart", in.TStart, "tEnd", in.TEnd)
	q.resetWindow(in.TStart)
	q.pending = &in
	return nil
}

// readBack reads keys, the lease's first, and takes the lease's version
// when the row is this life's. The lease's lock is held across the read,
// so that no refresh writes a newer version between the read and its
// taking.
func (q *queueTask) readBack(ctx context.Context, keys []string) ([]Row, error) {
	q.leaseMu.Lock()
	defer q.leaseMu.Unlock()
	rows, err := q.e.kv.Get(ctx, q.e.tenant, Namespace, keys)
	switch {
	case err != nil:
		return nil, fmt.Errorf("read back after an unknown outcome: %w", err)
	case !rows[0].Found:
		return nil, errLapsed
	case !q.isOurs(rows[0]):
		return nil, errFenced
	}
	q.leaseVersion = rows[0].Version
	return rows, nil
}

// resync reads back the lease and the pointers after a KV write whose
// outcome is unknown, and takes what the store holds: the lease's version
// when it is still this node's (else errFenced, or errLapsed when there is
// no lease row), the pointers' versions, a commit that did apply, an
// intent that did.
func (q *queueTask) resync(ctx context.Context) error {
	keys := []string{q.leaseKey(), docKey(q.e.set.Sink, q.queue, "intent"), docKey(q.e.set.Sink, q.queue, "committed")}
	rows, err := q.readBack(ctx, keys)
	if err != nil {
		return err
	}
	q.intentVersion, q.committedVersion = rows[1].Version, rows[2].Version
	if rows[2].Found {
		k, tEnd, err := decodeCommitted(rows[2].Value)
		if err != nil {
			return err
		}
		if q.pending != nil && k >= q.pending.K {
			// The commit applied before its answer was lost.
			var d committedDoc
			json.Unmarshal(rows[2].Value, &d)
			q.committed(lakeformat.Window{Tenant: q.e.tenant, Queue: q.queue, K: k, TStart: q.pending.TStart, TEnd: tEnd}, d.Records, d.Bytes)
			return nil
		}
	}
	if q.pending == nil && rows[1].Found {
		var in intentDoc
		if json.Unmarshal(rows[1].Value, &in) == nil && in.K == q.k {
			q.pending = &in // the intent applied before its answer was lost
		}
	}
	return nil
}
