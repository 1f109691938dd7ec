package httpd

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"testing"
)

// fakeBroker is a Broker of funcs that records what it was called with.
// A nil func answers a plain default.
type fakeBroker struct {
	push         func(ctx context.Context, tenant string, items []PushItem) ([]PushResult, error)
	fetch        func(ctx context.Context, tenant string, req FetchRequest) ([]FetchEntry, error)
	fetchOffsets func(ctx context.Context, tenant string, qs []OffsetQuery) ([]OffsetAnswer, error)
	changed      func(ctx context.Context, tenant string, qs []ChangedQuery) (ChangedAnswer, error)
	configure    func(ctx context.Context, tenant string, req ConfigureRequest) (ConfigureAnswer, error)
	kv           func(ctx context.Context, tenant string, ops []KVOp) (json.Marshaler, error)
	queues       func(ctx context.Context, tenant string) ([]QueueSummary, error)
	queue        func(ctx context.Context, tenant, name string) (QueueDetail, bool, error)
	health       func(ctx context.Context) (bool, any)
	status       func(ctx context.Context) any
	pop          func(ctx context.Context, tenant string, req PopRequest) (PopAnswer, bool, error)
	ack          func(ctx context.Context, tenant string, items []AckItem) ([]AckResult, error)
	extend       func(ctx context.Context, tenant, leaseID string, seconds int) (ExtendAnswer, error)
	transaction  func(ctx context.Context, tenant string, req TxnRequest) (TxnAnswer, error)
	groups       func(ctx context.Context, tenant string) ([]GroupInfo, error)
	group        func(ctx context.Context, tenant, group string) (GroupInfo, bool, error)
	deleteGroup  func(ctx context.Context, tenant, group, queue string) (int, error)
	dlq          func(ctx context.Context, tenant string, q DLQQuery) ([]DeadLetter, int, error)
	replay       func(ctx context.Context, tenant, id, queue, partition string) (ReplayAnswer, error)
	purge        func(ctx context.Context, tenant, queue, group string) (int, error)
	messages     func(ctx context.Context, tenant string, q MessagesQuery) ([]MessageInfo, error)
	kvList       func(ctx context.Context, tenant string, q KVListQuery) (json.Marshaler, error)
	queueStats   func(ctx context.Context, tenant, queue string) (Stats, error)
	// eph answers the Ephemeral methods (route_ephemeral_test.go).
	eph ephemeralFuncs

	mu    sync.Mutex
	calls []call
}

// call is one recorded Broker call: the method, the tenant and the
// argument after it.
type call struct {
	method string
	tenant string
	arg    any
}

var (
	_ Broker     = (*fakeBroker)(nil)
	_ KVConsole  = (*fakeBroker)(nil)
	_ Consumer   = (*fakeBroker)(nil)
	_ Transactor = (*fakeBroker)(nil)
	_ Admin      = (*fakeBroker)(nil)
	_ Statuser   = (*fakeBroker)(nil)
	_ Ephemeral  = (*fakeBroker)(nil)
)

func (f *fakeBroker) record(method, tenant string, arg any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call{method, tenant, arg})
}

// only returns the one call the test expects, failing when there is
// another number of calls.
func (f *fakeBroker) only(t *testing.T) call {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) != 1 {
		t.Fatalf("broker calls = %d (%v), want 1", len(f.calls), f.calls)
	}
	return f.calls[0]
}

// wantCall fails unless the broker had the one call the test expects:
// method, for the default tenant, with arg (reflect.DeepEqual).
func (f *fakeBroker) wantCall(t *testing.T, method string, arg any) {
	t.Helper()
	got := f.only(t)
	if got.method != method || got.tenant != DefaultTenant || !reflect.DeepEqual(got.arg, arg) {
		t.Fatalf("broker got %s %s %+v, want %s %+v", got.method, got.tenant, got.arg, method, arg)
	}
}

// none fails when the broker was called.
func (f *fakeBroker) none(t *testing.T) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) != 0 {
		t.Fatalf("broker calls = %v, want none", f.calls)
	}
}

func (f *fakeBroker) Push(ctx context.Context, tenant string, items []PushItem) ([]PushResult, error) {
	f.record("Push", tenant, items)
	if f.push != nil {
		return f.push(ctx, tenant, items)
	}
	out := make([]PushResult, len(items))
	for i, it := range items {
		out[i] = PushResult{Offset: int64(i), MessageID: it.MessageID}
	}
	return out, nil
}

func (f *fakeBroker) Fetch(ctx context.Context, tenant string, req FetchRequest) ([]FetchEntry, error) {
	f.record("Fetch", tenant, req)
	if f.fetch != nil {
		return f.fetch(ctx, tenant, req)
	}
	out := make([]FetchEntry, len(req.Entries))
	for i, q := range req.Entries {
		out[i] = FetchEntry{Queue: q.Queue, Partition: q.Partition}
	}
	return out, nil
}

func (f *fakeBroker) FetchOffsets(ctx context.Context, tenant string, qs []OffsetQuery) ([]OffsetAnswer, error) {
	f.record("FetchOffsets", tenant, qs)
	if f.fetchOffsets != nil {
		return f.fetchOffsets(ctx, tenant, qs)
	}
	out := make([]OffsetAnswer, len(qs))
	for i, q := range qs {
		out[i] = OffsetAnswer{Queue: q.Queue, Partition: q.Partition}
	}
	return out, nil
}

func (f *fakeBroker) PartitionsChanged(ctx context.Context, tenant string, qs []ChangedQuery) (ChangedAnswer, error) {
	f.record("PartitionsChanged", tenant, qs)
	if f.changed != nil {
		return f.changed(ctx, tenant, qs)
	}
	a := ChangedAnswer{Entries: make([]ChangedEntry, len(qs))}
	for i, q := range qs {
		a.Entries[i] = ChangedEntry{Queue: q.Queue}
	}
	return a, nil
}

func (f *fakeBroker) Configure(ctx context.Context, tenant string, req ConfigureRequest) (ConfigureAnswer, error) {
	f.record("Configure", tenant, req)
	if f.configure != nil {
		return f.configure(ctx, tenant, req)
	}
	return ConfigureAnswer{Queue: req.Queue, Options: req.Options}, nil
}

func (f *fakeBroker) KV(ctx context.Context, tenant string, ops []KVOp) (json.Marshaler, error) {
	f.record("KV", tenant, ops)
	if f.kv != nil {
		return f.kv(ctx, tenant, ops)
	}
	return rawAnswer(`{"results":[]}`), nil
}

func (f *fakeBroker) KVNamespaces(ctx context.Context, tenant string) (json.Marshaler, error) {
	f.record("KVNamespaces", tenant, nil)
	return rawAnswer(`{"namespaces":[{"namespace":"app","keys":2}]}`), nil
}

func (f *fakeBroker) KVList(ctx context.Context, tenant string, q KVListQuery) (json.Marshaler, error) {
	f.record("KVList", tenant, q)
	if f.kvList != nil {
		return f.kvList(ctx, tenant, q)
	}
	return rawAnswer(`{"rows":[],"truncated":false,"nextAfter":null,"bytes":0}`), nil
}

func (f *fakeBroker) Queues(ctx context.Context, tenant string) ([]QueueSummary, error) {
	f.record("Queues", tenant, nil)
	if f.queues != nil {
		return f.queues(ctx, tenant)
	}
	return nil, nil
}

func (f *fakeBroker) Queue(ctx context.Context, tenant, name string) (QueueDetail, bool, error) {
	f.record("Queue", tenant, name)
	if f.queue != nil {
		return f.queue(ctx, tenant, name)
	}
	return QueueDetail{}, false, nil
}

func (f *fakeBroker) Health(ctx context.Context) (bool, any) {
	f.record("Health", "", nil)
	if f.health != nil {
		return f.health(ctx)
	}
	return true, nil
}

func (f *fakeBroker) Status(ctx context.Context) any {
	f.record("Status", "", nil)
	if f.status != nil {
		return f.status(ctx)
	}
	return map[string]any{}
}

// Pop answers nothing to lease (204) by default.
func (f *fakeBroker) Pop(ctx context.Context, tenant string, req PopRequest) (PopAnswer, bool, error) {
	f.record("Pop", tenant, req)
	if f.pop != nil {
		return f.pop(ctx, tenant, req)
	}
	return PopAnswer{}, false, nil
}

// Ack settles every item by default.
func (f *fakeBroker) Ack(ctx context.Context, tenant string, items []AckItem) ([]AckResult, error) {
	f.record("Ack", tenant, items)
	if f.ack != nil {
		return f.ack(ctx, tenant, items)
	}
	out := make([]AckResult, len(items))
	for i, it := range items {
		out[i] = AckResult{Index: i, TransactionID: it.TransactionID, Success: true}
	}
	return out, nil
}

// extendArg is what ExtendLease was called with.
type extendArg struct {
	leaseID string
	seconds int
}

// ExtendLease renews one partition by default, to a fixed time.
func (f *fakeBroker) ExtendLease(ctx context.Context, tenant, leaseID string, seconds int) (ExtendAnswer, error) {
	f.record("ExtendLease", tenant, extendArg{leaseID, seconds})
	if f.extend != nil {
		return f.extend(ctx, tenant, leaseID, seconds)
	}
	return ExtendAnswer{Success: true, LeaseID: leaseID, Renewed: 1, ExpiresAt: 1_758_536_130_000_001}, nil
}

// brokerOnly is a Broker that is neither a Consumer, a Transactor nor an
// Admin: it hides fakeBroker's consuming, transaction and admin methods.
type brokerOnly struct{ Broker }

// fakeTxnID is the transactionId of the fake's default commit.
const fakeTxnID = "0199718d-0000-7000-8000-000000000001"

// Transaction commits by default: one result per pushed item and ack, by
// operation, then one per kv op ({"index":j,"op":…}, as a KV call answers
// its op j).
func (f *fakeBroker) Transaction(ctx context.Context, tenant string, req TxnRequest) (TxnAnswer, error) {
	f.record("Transaction", tenant, req)
	if f.transaction != nil {
		return f.transaction(ctx, tenant, req)
	}
	var out []TxnResult
	for p, a := 0, 0; p < len(req.Pushes) || a < len(req.Acks); {
		if a == len(req.Acks) || (p < len(req.Pushes) && req.Pushes[p].OpIndex < req.Acks[a].OpIndex) {
			it := req.Pushes[p].Item
			out = append(out, TxnResult{Index: req.Pushes[p].OpIndex, Type: "push", TransactionID: it.TransactionID,
				MessageID: it.MessageID, Queue: it.Queue})
			p++
			continue
		}
		out = append(out, TxnResult{Index: req.Acks[a].OpIndex, Type: "ack", TransactionID: req.Acks[a].Item.TransactionID})
		a++
	}
	ops := 0
	if len(out) > 0 {
		ops = out[len(out)-1].Index + 1
	}
	for j, op := range req.KV {
		out = append(out, TxnResult{Index: ops + j, Type: "kv", OpIndex: j,
			KV: rawAnswer(fmt.Sprintf(`{"index":%d,"op":%q}`, j, op.Op))})
	}
	return TxnAnswer{TransactionID: fakeTxnID, Success: true, Results: out}, nil
}

// rawAnswer is a KV answer that marshals to its own text, as the
// broker's contract.KVAnswer does.
type rawAnswer string

func (a rawAnswer) MarshalJSON() ([]byte, error) { return []byte(a), nil }

// ConsumerGroups lists no group by default.
func (f *fakeBroker) ConsumerGroups(ctx context.Context, tenant string) ([]GroupInfo, error) {
	f.record("ConsumerGroups", tenant, nil)
	if f.groups != nil {
		return f.groups(ctx, tenant)
	}
	return nil, nil
}

// ConsumerGroup finds no group by default.
func (f *fakeBroker) ConsumerGroup(ctx context.Context, tenant, group string) (GroupInfo, bool, error) {
	f.record("ConsumerGroup", tenant, group)
	if f.group != nil {
		return f.group(ctx, tenant, group)
	}
	return GroupInfo{}, false, nil
}

// groupArg is what DeleteConsumerGroup was called with.
type groupArg struct {
	group, queue string
	keep         bool
}

// DeleteConsumerGroup forgets the group on one queue by default.
func (f *fakeBroker) DeleteConsumerGroup(ctx context.Context, tenant, group, queue string, keep bool) (int, error) {
	f.record("DeleteConsumerGroup", tenant, groupArg{group, queue, keep})
	if f.deleteGroup != nil {
		return f.deleteGroup(ctx, tenant, group, queue)
	}
	return 1, nil
}

// Message knows one message: partition 7, transaction "t/1".
func (f *fakeBroker) Message(ctx context.Context, tenant, pid, txid string) (MessageDetail, bool, error) {
	f.record("Message", tenant, pid+" "+txid)
	if pid != "7" || txid != "t/1" {
		return MessageDetail{}, false, nil
	}
	return MessageDetail{MessageInfo: MessageInfo{ID: [16]byte{1}, TransactionID: txid, Queue: "q", Partition: "p", PartitionID: pid, Offset: 3,
		Data: json.RawMessage(`{"a":1.50}`), CreatedAt: 1_758_536_130_000_001, Status: MessageDLQ},
		Groups: []GroupStatus{{"__QUEUE_MODE__", MessageDLQ}, {"g", MessagePending}}, DeadLetters: []string{"d1"}}, true, nil
}

// RetryMessage replays the one dead letter of message 7 "t/1"; 8 "none" is
// a message in no DLQ.
func (f *fakeBroker) RetryMessage(ctx context.Context, tenant, pid, txid string) ([]ReplayAnswer, bool, error) {
	f.record("RetryMessage", tenant, pid+" "+txid)
	switch {
	case pid == "7" && txid == "t/1":
		return []ReplayAnswer{{ID: "d1", Verdict: "moved", Queue: "q", Partition: "p"}}, true, nil
	case pid == "8" && txid == "none":
		return nil, true, nil
	}
	return nil, false, nil
}

// DeleteMessage knows message 7 "t/1".
func (f *fakeBroker) DeleteMessage(ctx context.Context, tenant, pid, txid string) (MessageInfo, bool, error) {
	f.record("DeleteMessage", tenant, pid+" "+txid)
	if pid != "7" || txid != "t/1" {
		return MessageInfo{}, false, nil
	}
	return MessageInfo{TransactionID: txid, Queue: "q", Partition: "p", PartitionID: pid, Offset: 3}, true, nil
}

// DeleteQueue deletes any queue but "nope".
func (f *fakeBroker) DeleteQueue(ctx context.Context, tenant, queue string) (QueueDeleted, bool, error) {
	f.record("DeleteQueue", tenant, queue)
	if queue == "nope" {
		return QueueDeleted{}, false, nil
	}
	return QueueDeleted{Partitions: 2, Messages: 5, ConsumerGroups: 1, DeadLetters: 3}, true, nil
}

// subscriptionArg is what SetSubscription was called with.
type subscriptionArg struct {
	group string
	from  int64
}

// SetSubscription finds the group on one queue, unless it is "nobody".
func (f *fakeBroker) SetSubscription(ctx context.Context, tenant, group string, from int64) (int, error) {
	f.record("SetSubscription", tenant, subscriptionArg{group, from})
	if group == "nobody" {
		return 0, nil
	}
	return 1, nil
}

// SeekConsumerGroup moves one partition by default.
func (f *fakeBroker) SeekConsumerGroup(ctx context.Context, tenant string, req SeekRequest) (int, error) {
	f.record("SeekConsumerGroup", tenant, req)
	return 1, nil
}

// dlqArg is what DLQ and PurgeDLQ (limit 0) were called with.
type dlqArg struct {
	queue, group string
	limit        int
}

// DLQ lists no dead letter by default.
func (f *fakeBroker) DLQ(ctx context.Context, tenant string, q DLQQuery) ([]DeadLetter, int, error) {
	f.record("DLQ", tenant, q)
	if f.dlq != nil {
		return f.dlq(ctx, tenant, q)
	}
	return nil, 0, nil
}

// replayArg is what ReplayDLQ was called with.
type replayArg struct{ id, queue, partition string }

// ReplayDLQ moves the letter by default, to the queue and partition asked
// for, else to q/Default.
func (f *fakeBroker) ReplayDLQ(ctx context.Context, tenant, id, queue, partition string) (ReplayAnswer, error) {
	f.record("ReplayDLQ", tenant, replayArg{id, queue, partition})
	if f.replay != nil {
		return f.replay(ctx, tenant, id, queue, partition)
	}
	a := ReplayAnswer{ID: id, Verdict: "moved", Queue: "q", Partition: "Default"}
	if queue != "" {
		a.Queue = queue
	}
	if partition != "" {
		a.Partition = partition
	}
	return a, nil
}

// PurgeDLQ deletes nothing by default.
func (f *fakeBroker) PurgeDLQ(ctx context.Context, tenant, queue, group string) (int, error) {
	f.record("PurgeDLQ", tenant, dlqArg{queue: queue, group: group})
	if f.purge != nil {
		return f.purge(ctx, tenant, queue, group)
	}
	return 0, nil
}

// Messages lists no message by default.
func (f *fakeBroker) Messages(ctx context.Context, tenant string, q MessagesQuery) ([]MessageInfo, error) {
	f.record("Messages", tenant, q)
	if f.messages != nil {
		return f.messages(ctx, tenant, q)
	}
	return nil, nil
}

// QueueStats reads no queue by default.
func (f *fakeBroker) QueueStats(ctx context.Context, tenant, queue string) (Stats, error) {
	f.record("QueueStats", tenant, queue)
	if f.queueStats != nil {
		return f.queueStats(ctx, tenant, queue)
	}
	return Stats{}, nil
}
