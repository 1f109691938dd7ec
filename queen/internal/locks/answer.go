package locks

import (
	"encoding/json"
	"fmt"
)

// Answer is one operation's result, as POST /api/v1/locks answers it
// (API.md §6). Which fields are set depends on the operation and how it
// went:
//
//   - acquire: Acquired; when true Slot, Token, Owner, Guard and Already
//     (the owner held this permit before the call); when false Reason
//     "held" (every slot below the limit is taken) and Holders.
//   - renew: Renewed; when true Slot, Token (a new one), Owner and Guard;
//     when false Reason "lost" and Holders.
//   - release: Released and Slot; Reason "lost" when false.
//   - get: Held and Holders.
type Answer struct {
	Index    int       `json:"index"`
	Op       string    `json:"op"`
	Name     string    `json:"name"`
	Acquired *bool     `json:"acquired,omitempty"`
	Renewed  *bool     `json:"renewed,omitempty"`
	Released *bool     `json:"released,omitempty"`
	Held     *bool     `json:"held,omitempty"`
	Already  bool      `json:"already,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	Slot     *int      `json:"slot,omitempty"`
	Token    uint64    `json:"token,omitempty"`
	Owner    string    `json:"owner,omitempty"`
	Guard    *Guard    `json:"guard,omitempty"`
	Holders  *[]Holder `json:"holders,omitempty"`
}

// Guard is the KV op that holds while the permit is its holder's: a
// required check of the permit's row at the token. A transaction or a KV
// call that carries it commits only while the token is the row's.
type Guard struct {
	Op       string `json:"op"`
	NS       string `json:"ns"`
	Key      string `json:"key"`
	Expect   uint64 `json:"expect"`
	Required bool   `json:"required"`
}

// Holder is one live permit of a lock. The times are the KV's (its row's
// updatedAt and expiresAt) and Since the acquire's stamp, all on the
// broker clock.
type Holder struct {
	Slot      int    `json:"slot"`
	Owner     string `json:"owner"`
	Token     uint64 `json:"token"`
	Since     string `json:"since"`
	RenewedAt string `json:"renewedAt"`
	ExpiresAt string `json:"expiresAt"`
}

// DecodeAnswers reads what the applier answered for a call of n
// operations.
func DecodeAnswers(b []byte, n int) ([]Answer, error) {
	var out []Answer
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("%w: answer: %w", ErrCorrupt, err)
	}
	if len(out) != n {
		return nil, fmt.Errorf("%w: %d answers for %d operations", ErrCorrupt, len(out), n)
	}
	return out, nil
}
