package timers

import (
	"fmt"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/queen/internal/consume"
	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"
)

// Appliers returns the timers family's applier by op kind, to pass to
// raftlog.Host.StartShard beside the queue log's (fires push through it)
// and consume's (whose dead-letter queue takes the timers that fail).
func Appliers() map[raftlog.OpKind]raftlog.Applier { return applier.Appliers(OpTimers) }

// applier applies a call or a fire, judged on the entry's stamp.
var applier = family.Applier[*state]{Decode: decodeOp, Growing: grows, State: func(e family.Entry) *state { return &state{e} }}

// state is an op's access to the timers of the shard.
type state struct{ family.Entry }

// The statuses of an Answer.
const (
	StatusScheduled   byte = 1
	StatusRescheduled byte = 2
	StatusCancelled   byte = 3
	StatusAbsent      byte = 4
)

// StatusNames are the statuses on the wire.
var StatusNames = map[byte]string{StatusScheduled: "scheduled", StatusRescheduled: "rescheduled",
	StatusCancelled: "cancelled", StatusAbsent: "absent"}

// Answer is what one operation of a call did. DeliverAt is 0 and
// MessageID zero for a cancel; Txn is the timer's (a cancel that found
// none echoes its own).
type Answer struct {
	Status    byte
	Txn       string
	MessageID [16]byte
	DeliverAt int64
}

func (s *state) load(tenant, queue, key string) (Timer, bool, error) {
	b, ok, err := s.Tx.Get(timerKey(tenant, queue, key))
	if err != nil || !ok {
		return Timer{}, false, err
	}
	t, err := decodeTimer(queue, key, b)
	return t, err == nil, err
}

func (s *state) save(tenant string, t *Timer) {
	s.Tx.Set(timerKey(tenant, t.Queue, t.Key), t.encode())
	s.Tx.Set(dueKey(t.Due, tenant, t.Queue, t.Key), nil)
}

func (s *state) remove(tenant string, t *Timer) {
	s.Tx.Delete(timerKey(tenant, t.Queue, t.Key))
	s.Tx.Delete(dueKey(t.Due, tenant, t.Queue, t.Key))
}

// Apply applies a call's operations in order: a schedule replaces the
// timer of its key (a new timer under an old name: attempts from 0), a
// cancel removes it.
func (c *Call) Apply(s *state) ([]byte, error) {
	out := make([]Answer, len(c.Ops))
	for i, o := range c.Ops {
		old, had, err := s.load(c.Tenant, o.Queue, o.Key)
		if err != nil {
			return nil, err
		}
		if had {
			s.remove(c.Tenant, &old)
		}
		if o.Kind == KindCancel {
			out[i] = Answer{Status: StatusAbsent, Txn: o.Txn}
			if had {
				out[i] = Answer{Status: StatusCancelled, Txn: old.Txn}
			}
			continue
		}
		at := s.At.Stamp + min(max(o.DelayMicros, 0), MaxDelayMicros)
		t := Timer{Queue: o.Queue, Key: o.Key, Partition: o.Partition, Txn: o.Txn, MessageID: o.MessageID,
			Payload: o.Payload, Sealed: o.Sealed, Created: s.At.Stamp, DeliverAt: at, Due: at}
		s.save(c.Tenant, &t)
		out[i] = Answer{Status: StatusScheduled, Txn: t.Txn, MessageID: t.MessageID, DeliverAt: at}
		if had {
			out[i].Status = StatusRescheduled
		}
	}
	return appendAnswers(nil, out), nil
}

// FireAnswer is what a fire did: timers fired (pushed, or found pushed
// already by their txn), failed (to be tried again), filed (in the
// dead-letter group after MaxPermanent permanent failures), and More when
// it stopped at its limit (FireLimit timers or FireBytes of payload) with
// more due.
type FireAnswer struct {
	Fired, Failed, Filed int
	More                 bool
}

// Apply fires the timers due at the entry's stamp, in due order, up to
// the limit. A fire is a push of one record through the queue log's
// applier (deduplicated by the timer's txn) and the timer's deletion, in
// this entry: whichever of a fire and a cancel applies first wins.
func (f FireOp) Apply(s *state) ([]byte, error) {
	var a FireAnswer
	due, more, err := family.Keys(s.Tx.Scan, []byte{prefixDue}, dueBy(s.At.Stamp), f.Limit)
	a.More = more
	if err != nil {
		return nil, err
	}
	size := 0
	for i, k := range due {
		when, tenant, queue, key, ok := parseDue(k)
		if !ok {
			return nil, fmt.Errorf("%w: timers: due index key %x", raftlog.ErrStorage, k)
		}
		t, found, err := s.load(tenant, queue, key)
		if err != nil {
			return nil, err
		}
		if !found || t.Due != when {
			s.Tx.Delete(k) // INVARIANT: never written so; repaired rather than fired
			continue
		}
		if size += len(t.Payload); size > FireBytes && i > 0 {
			a.More = true
			break
		}
		why, permanent, err := s.push(tenant, &t)
		if err != nil {
			return nil, err
		}
		switch {
		case why == "":
			s.remove(tenant, &t)
			a.Fired++
		case permanent && t.Permanent+1 >= MaxPermanent:
			s.remove(tenant, &t)
			consume.FileTimer(s.Tx, s.At, tenant, consume.DeadLetter{Queue: t.Queue, Partition: t.Partition,
				MessageID: t.MessageID, TransactionID: t.Txn, Payload: t.Payload, Created: t.Created,
				Attempts: t.Attempts + 1, Error: why}, a.Filed)
			a.Filed++
		default:
			s.Tx.Delete(k)
			t.Attempts++
			if permanent {
				t.Permanent++
			}
			t.LastError = why
			t.Due = s.At.Stamp + Backoff(t.Attempts)
			s.save(tenant, &t)
			a.Failed++
		}
	}
	return appendFire(nil, a), nil
}

// Backoff is the wait before the next try after the n-th failed fire:
// 1 s, doubling, at most 60 s.
func Backoff(n int) int64 {
	if n > 6 {
		return 60e6
	}
	return min(int64(1e6)<<(n-1), 60e6)
}

// push appends the timer's record through the queue log's applier, and
// answers why it did not ("" when it did, or when the txn was pushed
// already) and whether that is for good (anything but a full queue). A
// payload sealed for an encrypted queue is delivered only to a queue that
// is still encrypted, and a plain one only to a plain one.
func (s *state) push(tenant string, t *Timer) (why string, permanent bool, err error) {
	q, ok, err := queuelog.Queue(s.Tx.View(s.At), tenant, t.Queue)
	if err != nil {
		return "", false, err
	}
	if enc := ok && contract.ParseQueueOptions(q.Options).EncryptionEnabled; enc != t.Sealed {
		if enc {
			return "queue " + t.Queue + " is encrypted now, and the timer's payload was not sealed when it was scheduled", true, nil
		}
		return "queue " + t.Queue + " is not encrypted now, and the timer's payload was sealed for it", true, nil
	}
	op := queuelog.PushOp{Tenant: tenant, Items: []queuelog.PushItem{{Queue: t.Queue, Partition: t.Partition,
		TransactionID: t.Txn, MessageID: t.MessageID, Dedup: true, Payload: t.Payload}}}
	answer, applied, err := s.Tx.Apply(s.At, op.Op())
	if err != nil {
		return "", false, err
	}
	if !applied {
		why, _ := raftlog.Rejected(answer)
		return "the push was refused: " + why, true, nil
	}
	got, err := queuelog.DecodePushAnswers(answer)
	if err != nil || len(got) != 1 {
		return "", false, fmt.Errorf("timers: push answered %d items: %w", len(got), err)
	}
	if got[0].Full {
		return "queue " + t.Queue + " is full (maxSize)", false, nil
	}
	return "", false, nil
}

func appendAnswers(b []byte, as []Answer) []byte {
	e := family.Encoder(b)
	e.Uvarint(uint64(len(as)))
	for _, a := range as {
		e.Byte(a.Status)
		e.Str(a.Txn)
		e.Byte(a.MessageID[:]...)
		e.Varint(a.DeliverAt)
	}
	return e
}

// DecodeAnswers reads the answer of a Call.
func DecodeAnswers(b []byte) ([]Answer, error) {
	return family.Decode(b, ErrCorrupt, func(d *family.Decoder) []Answer {
		n := d.Count(1 + 1 + 16 + 1)
		out := make([]Answer, 0, n)
		for i := 0; i < n && d.Err == nil; i++ {
			a := Answer{Status: d.Byte(), Txn: d.Str(), MessageID: d.ID("message id")}
			if d.Err != nil {
				break
			}
			a.DeliverAt = d.Varint()
			out = append(out, a)
		}
		return out
	})
}

func appendFire(b []byte, a FireAnswer) []byte {
	e := family.Encoder(b)
	e.Uvarint(uint64(a.Fired), uint64(a.Failed), uint64(a.Filed))
	e.Bool(a.More)
	return e
}

// DecodeFire reads the answer of a FireOp.
func DecodeFire(b []byte) (FireAnswer, error) {
	return family.Decode(b, ErrCorrupt, func(d *family.Decoder) FireAnswer {
		return FireAnswer{Fired: int(d.Uvarint()), Failed: int(d.Uvarint()), Filed: int(d.Uvarint()), More: d.Byte() == 1}
	})
}
