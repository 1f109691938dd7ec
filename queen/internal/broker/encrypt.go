package broker

import (
	"errors"
	"net/http"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/queen/internal/seal"
	"github.com/queen-mq/queen-go/raftlog"

	"github.com/queen-mq/queen-go/contract"
)

// errNoKey answers a push to, or a configure of, an encrypted queue on a
// node without QUEEN_ENCRYPTION_KEY.
func errNoKey(queue string) error {
	return &httpd.Error{Status: http.StatusConflict, Code: "encryption_required",
		Message: "queue " + queue + " has encryptionEnabled, and this node has no QUEEN_ENCRYPTION_KEY"}
}

// sealer returns the function that seals a payload for its queue when the
// queue has encryptionEnabled (read once per queue from this node's state).
func (b *Broker) sealer(tenant string) func(queue string, payload []byte) ([]byte, error) {
	return b.sealWith(b.queueFacts(tenant))
}

// sealWith is sealer over facts already being read.
func (b *Broker) sealWith(facts func(queue string) (*queueFact, error)) func(queue string, payload []byte) ([]byte, error) {
	return func(queue string, payload []byte) ([]byte, error) {
		f, err := facts(queue)
		if err != nil || !f.encrypted {
			return payload, err
		}
		sealed, err := b.seal.Seal(payload)
		if errors.Is(err, seal.ErrNoKey) {
			return nil, errNoKey(queue)
		}
		return sealed, err
	}
}

// queueFact is what a push needs to know of a queue: whether it is
// encrypted, and how many more records it may hold (maxSize; -1: no bound).
type queueFact struct {
	encrypted bool
	room      int64
}

// queueFacts reads each queue's facts once per call, from this node's
// state (so maxSize is a bound as of the proposer's view: concurrent
// pushes on several nodes can pass it by what they add together).
func (b *Broker) queueFacts(tenant string) func(queue string) (*queueFact, error) {
	facts := map[string]*queueFact{}
	return func(queue string) (*queueFact, error) {
		if f, ok := facts[queue]; ok {
			return f, nil
		}
		got, err := b.shard.LocalRead(func(v *raftlog.View) (any, error) {
			f := &queueFact{room: -1}
			q, ok, err := v.Queue(tenant, queue)
			if err != nil || !ok {
				return f, err
			}
			o := contract.ParseQueueOptions(q.Options)
			f.encrypted = o.EncryptionEnabled
			if o.MaxSize > 0 {
				held, err := retained(v, tenant, queue)
				if err != nil {
					return nil, err
				}
				f.room = max(o.MaxSize-held, 0)
			}
			return f, nil
		})
		if err != nil {
			return nil, mapErr(err)
		}
		facts[queue] = got.(*queueFact)
		return facts[queue], nil
	}
}

// retained counts the records a queue holds (not deleted by retention).
func retained(v *raftlog.View, tenant, queue string) (int64, error) {
	var n int64
	err := v.EachPartition(tenant, queue, 0, func(p raftlog.PartitionInfo) (bool, error) {
		n += p.LastOffset + 1 - p.LogStart
		return true, nil
	})
	return n, err
}

// open returns the payload a stored one holds, decrypted when sealed (a
// JSON string of the stored bytes when this node cannot open it).
func (b *Broker) open(p []byte) []byte {
	out, _ := b.seal.Open(p)
	return out
}
