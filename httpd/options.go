package httpd

import (
	"encoding/json"
	"fmt"

	"github.com/queen-mq/queen-go/contract"
)

// The queue options of POST /api/v1/configure, their defaults, types and
// ranges are contract.QueueOptionTable's: this file only adapts them.

// normalizeOptions checks the options of a configure call and renders the
// object the broker gets (contract.NormalizeOptions): keys sorted,
// integers as integers, minPopWaitTime clamped, null kept (it restores the
// default), unknown keys as sent. A known option of the wrong type or out
// of its range is 400 bad_request naming it and the range.
func normalizeOptions(o object) (json.RawMessage, error) {
	b, err := contract.NormalizeOptions(o)
	return b, contractError(err)
}

// withDefaults renders stored options with every known key
// (contract.WithDefaults): the stored value or the default, then the
// unknown keys the broker kept, sorted, then maxQueueSize.
func withDefaults(stored json.RawMessage) (json.RawMessage, error) {
	b, err := contract.WithDefaults(stored)
	if err != nil {
		return nil, fmt.Errorf("httpd: broker options: %w", err)
	}
	return b, nil
}
