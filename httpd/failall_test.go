package httpd

import (
	"context"
	"encoding/json"
	"testing"
)

// failAll is a broker of every part (Full) whose every call that can
// fail fails with err; each call is recorded, with its tenant ("" for
// Cluster's, which take none), in rec's list. It does not embed a fake
// that answers: a method added to a part is a compile error here, not
// a route that quietly succeeds. Health and Status, which return no
// error, answer as fakeBroker's do.
type failAll struct {
	rec *fakeBroker
	err error
}

var _ Full = failAll{}

// failEnv serves a failAll of err with o, as newEnv serves a fakeBroker:
// e.fb has its calls.
func failEnv(t *testing.T, err error, o Options) *env {
	t.Helper()
	f := failAll{rec: &fakeBroker{}, err: err}
	return newEnvOf(t, f, f.rec, o)
}

// Broker.

func (f failAll) Push(_ context.Context, tenant string, items []PushItem) ([]PushResult, error) {
	f.rec.record("Push", tenant, items)
	return nil, f.err
}
func (f failAll) Fetch(_ context.Context, tenant string, req FetchRequest) ([]FetchEntry, error) {
	f.rec.record("Fetch", tenant, req)
	return nil, f.err
}
func (f failAll) FetchOffsets(_ context.Context, tenant string, qs []OffsetQuery) ([]OffsetAnswer, error) {
	f.rec.record("FetchOffsets", tenant, qs)
	return nil, f.err
}
func (f failAll) PartitionsChanged(_ context.Context, tenant string, qs []ChangedQuery) (ChangedAnswer, error) {
	f.rec.record("PartitionsChanged", tenant, qs)
	return ChangedAnswer{}, f.err
}
func (f failAll) Configure(_ context.Context, tenant string, req ConfigureRequest) (ConfigureAnswer, error) {
	f.rec.record("Configure", tenant, req)
	return ConfigureAnswer{}, f.err
}
func (f failAll) KV(_ context.Context, tenant string, ops []KVOp) (json.Marshaler, error) {
	f.rec.record("KV", tenant, ops)
	return nil, f.err
}
func (f failAll) Queues(_ context.Context, tenant string) ([]QueueSummary, error) {
	f.rec.record("Queues", tenant, nil)
	return nil, f.err
}
func (f failAll) Queue(_ context.Context, tenant, name string) (QueueDetail, bool, error) {
	f.rec.record("Queue", tenant, name)
	return QueueDetail{}, false, f.err
}
func (f failAll) Health(ctx context.Context) (bool, any) { return f.rec.Health(ctx) }
func (f failAll) Status(ctx context.Context) any         { return f.rec.Status(ctx) }

// Consumer.

func (f failAll) Pop(_ context.Context, tenant string, req PopRequest) (PopAnswer, bool, error) {
	f.rec.record("Pop", tenant, req)
	return PopAnswer{}, false, f.err
}
func (f failAll) Ack(_ context.Context, tenant string, items []AckItem) ([]AckResult, error) {
	f.rec.record("Ack", tenant, items)
	return nil, f.err
}
func (f failAll) ExtendLease(_ context.Context, tenant, leaseID string, seconds int) (ExtendAnswer, error) {
	f.rec.record("ExtendLease", tenant, extendArg{leaseID, seconds})
	return ExtendAnswer{}, f.err
}

// Transactor.

func (f failAll) Transaction(_ context.Context, tenant string, req TxnRequest) (TxnAnswer, error) {
	f.rec.record("Transaction", tenant, req)
	return TxnAnswer{}, f.err
}

// Admin.

func (f failAll) ConsumerGroups(_ context.Context, tenant string) ([]GroupInfo, error) {
	f.rec.record("ConsumerGroups", tenant, nil)
	return nil, f.err
}
func (f failAll) ConsumerGroup(_ context.Context, tenant, group string) (GroupInfo, bool, error) {
	f.rec.record("ConsumerGroup", tenant, group)
	return GroupInfo{}, false, f.err
}
func (f failAll) DeleteConsumerGroup(_ context.Context, tenant, group, queue string, keep bool) (int, error) {
	f.rec.record("DeleteConsumerGroup", tenant, groupArg{group, queue, keep})
	return 0, f.err
}
func (f failAll) Message(_ context.Context, tenant, pid, txid string) (MessageDetail, bool, error) {
	f.rec.record("Message", tenant, pid+" "+txid)
	return MessageDetail{}, false, f.err
}
func (f failAll) RetryMessage(_ context.Context, tenant, pid, txid string) ([]ReplayAnswer, bool, error) {
	f.rec.record("RetryMessage", tenant, pid+" "+txid)
	return nil, false, f.err
}
func (f failAll) DeleteMessage(_ context.Context, tenant, pid, txid string) (MessageInfo, bool, error) {
	f.rec.record("DeleteMessage", tenant, pid+" "+txid)
	return MessageInfo{}, false, f.err
}
func (f failAll) DeleteQueue(_ context.Context, tenant, queue string) (QueueDeleted, bool, error) {
	f.rec.record("DeleteQueue", tenant, queue)
	return QueueDeleted{}, false, f.err
}
func (f failAll) SetSubscription(_ context.Context, tenant, group string, from int64) (int, error) {
	f.rec.record("SetSubscription", tenant, subscriptionArg{group, from})
	return 0, f.err
}
func (f failAll) SeekConsumerGroup(_ context.Context, tenant string, req SeekRequest) (int, error) {
	f.rec.record("SeekConsumerGroup", tenant, req)
	return 0, f.err
}
func (f failAll) DLQ(_ context.Context, tenant string, q DLQQuery) ([]DeadLetter, int, error) {
	f.rec.record("DLQ", tenant, q)
	return nil, 0, f.err
}
func (f failAll) ReplayDLQ(_ context.Context, tenant, id, queue, partition string) (ReplayAnswer, error) {
	f.rec.record("ReplayDLQ", tenant, replayArg{id, queue, partition})
	return ReplayAnswer{}, f.err
}
func (f failAll) PurgeDLQ(_ context.Context, tenant, queue, group string) (int, error) {
	f.rec.record("PurgeDLQ", tenant, dlqArg{queue: queue, group: group})
	return 0, f.err
}
func (f failAll) Messages(_ context.Context, tenant string, q MessagesQuery) ([]MessageInfo, error) {
	f.rec.record("Messages", tenant, q)
	return nil, f.err
}

// KVConsole.

func (f failAll) KVNamespaces(_ context.Context, tenant string) (json.Marshaler, error) {
	f.rec.record("KVNamespaces", tenant, nil)
	return nil, f.err
}
func (f failAll) KVList(_ context.Context, tenant string, q KVListQuery) (json.Marshaler, error) {
	f.rec.record("KVList", tenant, q)
	return nil, f.err
}

// Locker.

func (f failAll) Locks(_ context.Context, tenant string, ops []LockOp) ([]json.Marshaler, error) {
	f.rec.record("Locks", tenant, ops)
	return nil, f.err
}

// Timerer.

func (f failAll) Timers(_ context.Context, tenant string, ops []TimerOp) ([]TimerResult, error) {
	f.rec.record("Timers", tenant, ops)
	return nil, f.err
}
func (f failAll) PeekTimer(_ context.Context, tenant, queue, key string) (TimerRow, bool, error) {
	f.rec.record("PeekTimer", tenant, queue+" "+key)
	return TimerRow{}, false, f.err
}
func (f failAll) ListTimers(_ context.Context, tenant, queue, after string, limit int) ([]TimerRow, bool, error) {
	f.rec.record("ListTimers", tenant, queue)
	return nil, false, f.err
}
func (f failAll) CountTimers(_ context.Context, tenant, queue, prefix string) (int64, error) {
	f.rec.record("CountTimers", tenant, queue+" "+prefix)
	return 0, f.err
}

// Statuser.

func (f failAll) QueueStats(_ context.Context, tenant, queue string) (Stats, error) {
	f.rec.record("QueueStats", tenant, queue)
	return Stats{}, f.err
}

// Ephemeral.

func (f failAll) EphemeralPush(_ context.Context, tenant string, req EphemeralPush) (int, error) {
	f.rec.record("EphemeralPush", tenant, req)
	return 0, f.err
}
func (f failAll) EphemeralPop(_ context.Context, tenant string, req EphemeralPop) ([]EphemeralMessage, error) {
	f.rec.record("EphemeralPop", tenant, req)
	return nil, f.err
}
func (f failAll) EphemeralAck(_ context.Context, tenant string, req EphemeralAck) ([]string, error) {
	f.rec.record("EphemeralAck", tenant, req)
	return nil, f.err
}
func (f failAll) EphemeralConfigure(_ context.Context, tenant string, req EphemeralConfigure) (EphemeralOptions, error) {
	f.rec.record("EphemeralConfigure", tenant, req)
	return EphemeralOptions{}, f.err
}
func (f failAll) EphemeralReset(_ context.Context, tenant, queue string) (int, error) {
	f.rec.record("EphemeralReset", tenant, queue)
	return 0, f.err
}
func (f failAll) EphemeralDelete(_ context.Context, tenant, queue string) (bool, error) {
	f.rec.record("EphemeralDelete", tenant, queue)
	return false, f.err
}
func (f failAll) EphemeralQueues(_ context.Context, tenant string) ([]EphemeralQueue, error) {
	f.rec.record("EphemeralQueues", tenant, nil)
	return nil, f.err
}
func (f failAll) EphemeralDepth(_ context.Context, tenant, queue string) (EphemeralDepth, bool, error) {
	f.rec.record("EphemeralDepth", tenant, queue)
	return EphemeralDepth{}, false, f.err
}

// Tracer.

func (f failAll) RecordTrace(_ context.Context, tenant string, ev TraceEvent) (TraceRow, error) {
	f.rec.record("RecordTrace", tenant, ev)
	return TraceRow{}, f.err
}
func (f failAll) TracesOf(_ context.Context, tenant string, uid uint64, txid string, limit int) ([]TraceRow, bool, error) {
	f.rec.record("TracesOf", tenant, ofArg{uid, txid, limit})
	return nil, false, f.err
}
func (f failAll) TracesByName(_ context.Context, tenant string, q TraceNameQuery) ([]TraceRow, bool, error) {
	f.rec.record("TracesByName", tenant, q)
	return nil, false, f.err
}
func (f failAll) TraceNames(_ context.Context, tenant string, q TraceNamesQuery) ([]TraceNameCount, bool, error) {
	f.rec.record("TraceNames", tenant, q)
	return nil, false, f.err
}

// Streamer.

func (f failAll) RegisterStream(_ context.Context, tenant string, req StreamRegister) (StreamRegistered, error) {
	f.rec.record("RegisterStream", tenant, req)
	return StreamRegistered{}, f.err
}
func (f failAll) StreamQueries(_ context.Context, tenant, name string) ([]StreamQuery, error) {
	f.rec.record("StreamQueries", tenant, name)
	return nil, f.err
}
func (f failAll) DeleteStream(_ context.Context, tenant, name string) (bool, int64, error) {
	f.rec.record("DeleteStream", tenant, name)
	return false, 0, f.err
}
func (f failAll) StreamState(_ context.Context, tenant string, req StreamStateRequest) ([]StreamRow, bool, error) {
	f.rec.record("StreamState", tenant, req)
	return nil, false, f.err
}
func (f failAll) StreamCycle(_ context.Context, tenant string, req StreamCycle) (StreamCycleAnswer, error) {
	f.rec.record("StreamCycle", tenant, req)
	return StreamCycleAnswer{}, f.err
}

// Cluster.

func (f failAll) Members(context.Context) (Members, error) {
	f.rec.record("Members", "", nil)
	return Members{}, f.err
}
func (f failAll) ReplaceMember(_ context.Context, nodeID, newNodeID uint64, address string) (Members, error) {
	f.rec.record("ReplaceMember", "", []any{nodeID, newNodeID, address})
	return Members{}, f.err
}
