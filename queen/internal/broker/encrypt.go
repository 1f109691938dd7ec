package broker

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/queen/internal/seal"
	"github.com/queen-mq/queen-go/raftlog"
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
	encrypted := map[string]bool{}
	return func(queue string, payload []byte) ([]byte, error) {
		on, ok := encrypted[queue]
		if !ok {
			got, err := b.shard.LocalRead(func(v *raftlog.View) (any, error) {
				q, ok, err := v.Queue(tenant, queue)
				return ok && encryptionEnabled(q.Options), err
			})
			if err != nil {
				return nil, mapErr(err)
			}
			on = got.(bool)
			encrypted[queue] = on
		}
		if !on {
			return payload, nil
		}
		sealed, err := b.seal.Seal(payload)
		if errors.Is(err, seal.ErrNoKey) {
			return nil, errNoKey(queue)
		}
		return sealed, err
	}
}

func encryptionEnabled(options []byte) bool {
	var o struct {
		EncryptionEnabled bool `json:"encryptionEnabled"`
	}
	return json.Unmarshal(options, &o) == nil && o.EncryptionEnabled
}

// open returns the payload a stored one holds, decrypted when sealed (a
// JSON string of the stored bytes when this node cannot open it).
func (b *Broker) open(p []byte) []byte {
	out, _ := b.seal.Open(p)
	return out
}
