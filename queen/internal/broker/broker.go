// Package broker adapts the replicated broker (raftlog's queue log and
// kvstore) to the interface the HTTP API serves (httpd.Broker), and this
// node's own ephemeral queues (package ephemeral, never replicated) to
// httpd.Ephemeral.
package broker

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/queen/internal/ephemeral"
	"github.com/queen-mq/queen-go/queen/internal/locks"
	"github.com/queen-mq/queen-go/queen/internal/seal"
	"github.com/queen-mq/queen-go/queen/internal/streams"
	"github.com/queen-mq/queen-go/queen/internal/timers"
	"github.com/queen-mq/queen-go/queen/internal/traces"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"

	"github.com/queen-mq/queen-go/contract"

	"maps"
)

// Broker is the broker one node serves.
type Broker struct {
	// StatusExtra adds blocks to GET /status (the sink's s3 block).
	StatusExtra func(ctx context.Context) map[string]any

	host     *raftlog.Host
	shard    *raftlog.Shard
	kv       *kvstore.Store
	cons     *consume.Consumer
	locks    *locks.Locks
	timers   *timers.Timers
	streams  *streams.Streams
	eph      *ephemeral.Store
	traces   *traces.Traces
	traceTTL time.Duration
	seal     *seal.Sealer
	version  string
	readyLag time.Duration
}

var _ httpd.Broker = (*Broker)(nil)

// Options are a Broker's settings beside its shard.
type Options struct {
	Version string
	// ReadyLag is the apply lag past which /health says settling.
	ReadyLag time.Duration
	// Skew is the clock skew leases allow for (QUEEN_RAFT_MAX_CLOCK_SKEW_MS).
	Skew time.Duration
	// Sealer seals the payloads of encrypted queues (nil: no
	// QUEEN_ENCRYPTION_KEY; such queues cannot be configured or pushed to).
	Sealer *seal.Sealer
	// Ephemeral is this node's ephemeral queues (nil: a store of its own
	// with the defaults, without metrics).
	Ephemeral *ephemeral.Store
	// TraceRetention is the lifetime of a trace event recorded through
	// this node (QUEEN_TRACES_RETENTION_S); 0 means
	// traces.DefaultRetention.
	TraceRetention time.Duration
}

// New serves shard, which runs kvstore's and consume's appliers, on host.
func New(host *raftlog.Host, shard *raftlog.Shard, o Options) *Broker {
	if o.Ephemeral == nil {
		// INVARIANT: New of the store fails only on its metrics, and this
		// one has none.
		o.Ephemeral, _ = ephemeral.New(ephemeral.Options{})
	}
	if o.TraceRetention < time.Second {
		o.TraceRetention = traces.DefaultRetention
	}
	return &Broker{host: host, shard: shard, kv: kvstore.New(shard), cons: &consume.Consumer{Shard: shard, Skew: o.Skew},
		locks: &locks.Locks{Shard: shard}, timers: &timers.Timers{Shard: shard},
		streams: &streams.Streams{Shard: shard}, eph: o.Ephemeral, traces: &traces.Traces{Shard: shard},
		traceTTL: o.TraceRetention, seal: o.Sealer, version: o.Version, readyLag: o.ReadyLag}
}

// mapErr turns raftlog's errors and the contract's KV refusals (kvstore's
// validation) into httpd's.
func mapErr(err error) error {
	var kvErr *contract.KVError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, raftlog.ErrTimeout):
		return fmt.Errorf("%w: %w", httpd.ErrTimeout, err)
	case errors.Is(err, raftlog.ErrNoLeader):
		return fmt.Errorf("%w: %w", httpd.ErrNoLeader, err)
	case errors.Is(err, raftlog.ErrClosed):
		return fmt.Errorf("%w: %w", httpd.ErrRetry, err)
	case errors.Is(err, raftlog.ErrStorageFull):
		return &httpd.Error{Status: http.StatusInsufficientStorage, Code: httpd.CodeStorageFull, Message: err.Error()}
	case errors.Is(err, raftlog.ErrRejected):
		return &httpd.Error{Status: http.StatusBadRequest, Code: "bad_request", Message: err.Error()}
	case errors.As(err, &kvErr):
		return httpd.KVRefusal(kvErr)
	}
	return err
}

// Push appends items as one entry. An item of a queue that holds maxSize
// records already is answered with an error and not pushed: the state
// machine judges it where the entry applies, so pushes through several
// nodes at once cannot pass the bound together.
func (b *Broker) Push(ctx context.Context, tenant string, items []httpd.PushItem) ([]httpd.PushResult, error) {
	out := make([]httpd.PushResult, len(items))
	op := queuelog.PushOp{Tenant: tenant, Items: make([]queuelog.PushItem, len(items))}
	sealFor := b.sealer(tenant)
	for i, it := range items {
		payload, err := sealFor(it.Queue, it.Payload)
		if err != nil {
			return nil, err
		}
		it.Strict, it.Payload = false, payload // a plain push: a duplicate answers its original
		op.Items[i] = it
	}
	answers, _, err := queuelog.Push(ctx, b.shard, op)
	if err != nil {
		return nil, mapErr(err)
	}
	for i, a := range answers {
		out[i] = httpd.PushResult{Duplicate: a.Duplicate, Offset: a.Offset, MessageID: a.MessageID}
		if a.Full {
			out[i] = httpd.PushResult{MessageID: items[i].MessageID, Error: "queue " + items[i].Queue + " is full (maxSize)"}
		}
	}
	return out, nil
}

// Configure stores a queue's options.
func (b *Broker) Configure(ctx context.Context, tenant string, req httpd.ConfigureRequest) (httpd.ConfigureAnswer, error) {
	if b.seal == nil && contract.ParseQueueOptions(req.Options).EncryptionEnabled {
		return httpd.ConfigureAnswer{}, errNoKey(req.Queue)
	}
	stored, err := queuelog.Configure(ctx, b.shard, queuelog.ConfigureOp{Tenant: tenant, Queue: req.Queue, Replace: req.Replace, Options: req.Options})
	if err != nil {
		return httpd.ConfigureAnswer{}, mapErr(err)
	}
	o := contract.ParseQueueOptions(stored)
	return httpd.ConfigureAnswer{QueueID: queueID(tenant, req.Queue), Queue: req.Queue,
		Namespace: o.Namespace, Task: o.Task, Options: stored}, nil
}

// queueID names a queue by a UUID derived from its tenant and name: the
// same on every node and across restarts.
func queueID(tenant, queue string) [16]byte {
	h := sha256.Sum256([]byte("queen/queue/" + tenant + "\x00" + queue))
	var id [16]byte
	copy(id[:], h[:])
	id[6] = id[6]&0x0f | 0x80
	id[8] = id[8]&0x3f | 0x80
	return id
}

// KV runs one KV call: httpd's ops are kvstore's (contract.KVOp).
func (b *Broker) KV(ctx context.Context, tenant string, ops []httpd.KVOp) (json.Marshaler, error) {
	a, err := b.kv.Do(ctx, tenant, ops)
	if err != nil {
		return nil, mapErr(err)
	}
	return a, nil
}

// applyLag is how far this node's applied state is behind the wall
// clock: now less its safe time, which an idle leader moves every tick.
func (b *Broker) applyLag() time.Duration {
	return time.Duration(max(time.Now().UnixMicro()-b.shard.SafeTime(), 0)) * time.Microsecond
}

// Health is ready while a leader is known and this node's log is not far
// behind: its safeTime moves at least every tick while the cluster is up.
func (b *Broker) Health(ctx context.Context) (bool, any) {
	leader := b.shard.Leader()
	lag := b.applyLag()
	role := "follower"
	if leader == b.host.NodeID() {
		role = "leader"
	}
	ready := leader != 0 && lag <= b.readyLag
	return ready, map[string]any{"raft": map[string]any{
		"role": role, "leader": leader, "applied": b.shard.Applied(), "lag": lag.Milliseconds(),
		"storageReady": b.shard.Applied() > 0, "clusterVersion": 1,
	}, "disk": b.diskBlock()}
}

// Status is this node's own view.
func (b *Broker) Status(ctx context.Context) any {
	_, health := b.Health(ctx)
	st := map[string]any{"node": b.host.NodeID(), "version": b.version,
		"safeTime": kvstoreISO(b.shard.SafeTime()), "health": health}
	if b.StatusExtra != nil {
		for k, v := range b.StatusExtra(ctx) {
			st[k] = v
		}
	}
	return st
}

func kvstoreISO(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000000Z")
}

// Appliers are the state machine's families: the queue log, the KV
// store, consuming (pop, ack, leases), locks, timers, traces and streams. Every
// node runs the same set.
func Appliers() map[raftlog.OpKind]raftlog.Applier {
	m := queuelog.Appliers()
	maps.Copy(m, kvstore.Appliers())
	maps.Copy(m, consume.Appliers())
	maps.Copy(m, locks.Appliers())
	maps.Copy(m, timers.Appliers())
	maps.Copy(m, traces.Appliers())
	maps.Copy(m, streams.Appliers())
	return m
}
