package streams

import (
	"errors"
	"fmt"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/queen/internal/family"
	"github.com/queen-mq/queen-go/raftlog"
)

// OpStreams is the raftlog op kind of the streams family.
const OpStreams raftlog.OpKind = 771

// ErrCorrupt is wrapped by the errors of an op that does not decode.
var ErrCorrupt = errors.New("streams: corrupt encoding")

const opVersion byte = 1

// The op's second byte says which it is.
const (
	kindRegister   byte = 1
	kindCycle      byte = 2
	kindDelete     byte = 3
	kindDropSource byte = 4
)

// RegisterOp registers a query (POST /streams/v1/queries): a new name is
// registered; the same name with the same ConfigHash is answered as it
// stands (Source and Sink updated); another hash is refused unless Reset,
// which wipes the query's state and mints it a new id.
type RegisterOp struct {
	Tenant, Name, Source, Sink, ConfigHash string
	Reset                                  bool
}

// The kinds of a StateOp.
const (
	StateUpsert byte = 1
	StateDelete byte = 2
)

// StateOp is one state write of a cycle: an upsert of Value (JSON) under
// Key, or a delete of Key, which must be there.
type StateOp struct {
	Kind  byte
	Key   string
	Value []byte
}

// CycleOp is the state part of a stream cycle (POST /streams/v1/cycle):
// the writes to the state rows of one query's source partition. The same
// command carries the cycle's ack (consume.TxnOp) and pushes (raftlog's
// strict push); any of them refused, nothing of the command applies.
type CycleOp struct {
	Tenant    string
	ID        [16]byte
	Partition string
	// Group is the consumer group of the cycle's ack ("" without one).
	Group string
	Ops   []StateOp
}

// DeleteOp forgets a query: its registration and its state.
type DeleteOp struct {
	Tenant, Name string
}

// DropSourceOp wipes the state of every query of a tenant that reads
// Queue (the queue is being deleted, in the same command); the queries
// stay registered, under their ids.
type DropSourceOp struct {
	Tenant, Queue string
}

// Op encodes o as an op of a command.
func (o *RegisterOp) Op() raftlog.Op {
	e := family.Encoder{opVersion, kindRegister}
	e.Str(o.Tenant, o.Name, o.Source, o.Sink, o.ConfigHash)
	e.Bool(o.Reset)
	return raftlog.Op{Kind: OpStreams, Data: e}
}

// Op encodes o as an op of a command.
func (o *CycleOp) Op() raftlog.Op {
	e := family.Encoder{opVersion, kindCycle}
	e.Str(o.Tenant)
	e.Byte(o.ID[:]...)
	e.Str(o.Partition, o.Group)
	e.Uvarint(uint64(len(o.Ops)))
	for _, s := range o.Ops {
		e.Byte(s.Kind)
		e.Str(s.Key, string(s.Value))
	}
	return raftlog.Op{Kind: OpStreams, Data: e}
}

// Op encodes o as an op of a command.
func (o *DeleteOp) Op() raftlog.Op { return tenantOp(kindDelete, o.Tenant, o.Name) }

// Op encodes o as an op of a command.
func (o *DropSourceOp) Op() raftlog.Op { return tenantOp(kindDropSource, o.Tenant, o.Queue) }

// tenantOp is an op of two strings: the tenant and one name.
func tenantOp(kind byte, tenant, name string) raftlog.Op {
	e := family.Encoder{opVersion, kind}
	e.Str(tenant, name)
	return raftlog.Op{Kind: OpStreams, Data: e}
}

// decodeOp decodes an op and checks it as Check does.
func decodeOp(b []byte) (family.Op[*state], error) {
	return family.DecodeOp(family.OpCodec{Corrupt: ErrCorrupt, Version: opVersion, VersionWhat: "op version", TagWhat: "op kind"}, b, readOp,
		func(op family.Op[*state]) error { return check(op) })
}

func readOp(kind byte, d *family.Decoder) family.Op[*state] {
	switch kind {
	case kindRegister:
		o := &RegisterOp{Tenant: d.Str(), Name: d.Str(), Source: d.Str(), Sink: d.Str(), ConfigHash: d.Str()}
		o.Reset = d.Flag("register flag")
		return o
	case kindCycle:
		o := &CycleOp{Tenant: d.Str(), ID: d.ID("query id"), Partition: d.Str(), Group: d.Str()}
		n := d.Count(3)
		for i := 0; i < n && d.Err == nil; i++ {
			o.Ops = append(o.Ops, StateOp{Kind: d.Byte(), Key: d.Str(), Value: d.Bytes()})
		}
		return o
	case kindDelete:
		return &DeleteOp{Tenant: d.Str(), Name: d.Str()}
	case kindDropSource:
		return &DropSourceOp{Tenant: d.Str(), Queue: d.Str()}
	}
	return nil
}

// check refuses an op the contract refuses, naming the field. The
// proposer runs it (Check*) before proposing and apply again: a follower
// trusts nothing of an entry.
func check(op any) error {
	var err error
	switch o := op.(type) {
	case *RegisterOp:
		err = CheckRegister(o)
	case *CycleOp:
		err = CheckCycle(o)
	case *DeleteOp:
		if err = contract.Tenant.Check("tenant", o.Tenant); err == nil {
			err = contract.StreamQuery.Check("name", o.Name)
		}
	case *DropSourceOp:
		if err = contract.Tenant.Check("tenant", o.Tenant); err == nil {
			err = contract.Queue.Check("queue", o.Queue)
		}
	}
	if err != nil {
		return fmt.Errorf("streams: %w", err)
	}
	return nil
}

// CheckRegister refuses a registration the contract refuses, naming the
// field.
func CheckRegister(o *RegisterOp) error {
	var sink error
	if o.Sink != "" {
		sink = contract.Queue.Check("sink_queue", o.Sink)
	}
	return family.FirstErr(contract.Tenant.Check("tenant", o.Tenant), contract.StreamQuery.Check("name", o.Name),
		contract.Queue.Check("source_queue", o.Source), sink, contract.StreamConfigHash.Check("config_hash", o.ConfigHash))
}

// CheckCycle refuses a cycle's state part the contract refuses, naming
// the field: the partition, the group, more than StreamStateOps ops, a
// bad key or kind, a value over StreamValue bytes, an upsert without one.
func CheckCycle(o *CycleOp) error {
	var group error
	if o.Group != "" {
		group = contract.ConsumerGroup.Check("consumer_group", o.Group)
	}
	if err := family.FirstErr(contract.Tenant.Check("tenant", o.Tenant), contract.StreamPartition.Check("partition_id", o.Partition), group); err != nil {
		return err
	}
	if int64(len(o.Ops)) > contract.StreamStateOps.Max {
		return fmt.Errorf("state_ops: %d ops, at most %d in one cycle", len(o.Ops), contract.StreamStateOps.Max)
	}
	for i, s := range o.Ops {
		at := fmt.Sprintf("state_ops[%d]", i)
		if err := contract.StreamStateKey.Check(at+".key", s.Key); err != nil {
			return err
		}
		switch s.Kind {
		case StateUpsert:
			if len(s.Value) == 0 {
				return fmt.Errorf("%s.value: an upsert needs a value", at)
			}
			if int64(len(s.Value)) > contract.StreamValue.Max {
				return fmt.Errorf("%s.value: %d bytes, at most %d", at, len(s.Value), contract.StreamValue.Max)
			}
		case StateDelete:
			if len(s.Value) != 0 {
				return fmt.Errorf("%s.value: a delete has no value", at)
			}
		default:
			return fmt.Errorf("%s.type: unknown (upsert or delete)", at)
		}
	}
	return nil
}
