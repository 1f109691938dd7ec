package ephemeral

import (
	"fmt"

	"github.com/queen-mq/queen-go/contract"
)

// Bound names the bound a push met.
type Bound string

// The bounds of a push.
const (
	// BoundNode is the node's cap on what all its ephemeral queues hold
	// (QUEEN_EPHEMERAL_MAX_BYTES).
	BoundNode Bound = "QUEEN_EPHEMERAL_MAX_BYTES"
	// BoundQueueBytes and BoundQueueLength are a queue's own options.
	BoundQueueBytes  Bound = "maxBytes"
	BoundQueueLength Bound = "maxLength"
)

// FullError refuses a push that fits its bound but not now: the bound
// holds Held of Max already and the push needs Need more. It may fit once
// consumers ack (or TTLs drop) what is there. At BoundNode, Held is every
// tenant's and its message leaves it out (the log line of warnFull has
// it): a tenant learns only that the node's memory is full.
type FullError struct {
	Queue string
	Bound Bound
	Held  int64
	Max   int64
	Need  int64
}

func (e *FullError) Error() string {
	switch e.Bound {
	case BoundNode:
		return fmt.Sprintf("ephemeral memory of this node is full: the push needs %d bytes, more than %s=%d leaves free now; retry once consumers have acked",
			e.Need, e.Bound, e.Max)
	case BoundQueueLength:
		return fmt.Sprintf("ephemeral queue %s is full: it holds %d of maxLength=%d messages and the push adds %d (policy reject)",
			contract.Quote(e.Queue), e.Held, e.Max, e.Need)
	}
	return fmt.Sprintf("ephemeral queue %s is full: it holds %d of maxBytes=%d bytes and the push needs %d more (policy reject)",
		contract.Quote(e.Queue), e.Held, e.Max, e.Need)
}

// TooLargeError refuses a push that could never fit its bound, however
// empty the queue and the node were.
type TooLargeError struct {
	Queue string
	Bound Bound
	Max   int64
	Need  int64
}

func (e *TooLargeError) Error() string {
	switch e.Bound {
	case BoundNode:
		return fmt.Sprintf("the push needs %d bytes (payloads + %d per message), over %s=%d: it can never fit on this node",
			e.Need, MessageOverhead, e.Bound, e.Max)
	case BoundQueueLength:
		return fmt.Sprintf("the push of %d messages is over maxLength=%d of ephemeral queue %s: it can never fit",
			e.Need, e.Max, contract.Quote(e.Queue))
	}
	return fmt.Sprintf("the push needs %d bytes (payloads + %d per message), over maxBytes=%d of ephemeral queue %s: it can never fit",
		e.Need, MessageOverhead, e.Max, contract.Quote(e.Queue))
}
