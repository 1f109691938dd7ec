package broker

import (
	"errors"
	"net/http"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/queen/internal/seal"
	"github.com/queen-mq/queen-go/raftlog"
	"github.com/queen-mq/queen-go/raftlog/queuelog"

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
	facts := b.queueFacts(tenant)
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
// encrypted.
type queueFact struct {
	encrypted bool
}

// queueFacts reads each queue's facts once per call, from this node's
// state.
func (b *Broker) queueFacts(tenant string) func(queue string) (*queueFact, error) {
	facts := map[string]*queueFact{}
	return func(queue string) (*queueFact, error) {
		if f, ok := facts[queue]; ok {
			return f, nil
		}
		got, err := b.shard.LocalRead(func(v *raftlog.View) (any, error) {
			f := &queueFact{}
			q, ok, err := queuelog.Queue(v, tenant, queue)
			if err != nil || !ok {
				return f, err
			}
			f.encrypted = contract.ParseQueueOptions(q.Options).EncryptionEnabled
			return f, nil
		})
		if err != nil {
			return nil, mapErr(err)
		}
		facts[queue] = got.(*queueFact)
		return facts[queue], nil
	}
}

// open returns the payload a stored one holds, decrypted when sealed (a
// JSON string of the stored bytes when this node cannot open it).
func (b *Broker) open(p []byte) []byte {
	out, _ := b.seal.Open(p)
	return out
}
