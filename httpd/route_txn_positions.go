package httpd

import (
	"encoding/json"
	"fmt"

	"github.com/queen-mq/queen-go/contract"
)

// The bounds of a transaction's positions[] (API.md §3).
const (
	MaxPositions        = 16384
	MaxPositionMetadata = 4096
)

// decodePositions checks positions[]: at most MaxPositions, each with a
// queue and a consumerGroup, a partition (default "Default"), an offset
// (a whole number ≥ -1, or null), metadata of at most MaxPositionMetadata
// bytes and a subscriptionMode of new or all; one per (queue, group,
// partition).
func decodePositions(raw json.RawMessage) ([]TxnPosition, error) {
	list, err := arrayAtMost(raw, "positions", MaxPositions, "positions: %d positions, at most %d in one transaction")
	if err != nil {
		return nil, err
	}
	out := make([]TxnPosition, len(list))
	seen := map[[3]string]int{}
	for i, raw := range list {
		at := fmt.Sprintf("positions[%d]", i)
		o, err := asObject(raw, at)
		if err != nil {
			return nil, err
		}
		p := TxnPosition{OpIndex: i}
		if p.Queue, err = o.required("queue", at, contract.Queue); err != nil {
			return nil, err
		}
		if p.Group, err = o.required("consumerGroup", at, contract.ConsumerGroup); err != nil {
			return nil, err
		}
		if p.Partition, err = o.name("partition", at+".partition", contract.Partition); err != nil {
			return nil, err
		} else if p.Partition == "" {
			p.Partition = "Default"
		}
		if _, ok := o["offset"]; !ok {
			return nil, badRequest("%s.offset is required: the last offset the group is done with, or null to forget its position", at)
		}
		if !isNull(o["offset"]) {
			n, err := contract.PositionOffset.Parse(at+".offset", o["offset"])
			if err != nil {
				return nil, contractError(err)
			}
			p.Offset = &n
		}
		if p.Metadata, _, err = o.str("metadata", at+".metadata"); err != nil {
			return nil, err
		} else if len(p.Metadata) > MaxPositionMetadata {
			return nil, badRequest("%s.metadata is %d bytes, at most %d", at, len(p.Metadata), MaxPositionMetadata)
		}
		if p.Mode, _, err = o.str("subscriptionMode", at+".subscriptionMode"); err != nil {
			return nil, err
		}
		switch p.Mode {
		case "", "new", "new-only":
			p.Mode = "new"
		case "all":
		default:
			return nil, badRequest("%s.subscriptionMode %q is not new or all", at, p.Mode)
		}
		k := [3]string{p.Queue, p.Group, p.Partition}
		if j, dup := seen[k]; dup {
			return nil, badRequest("%s: the position of group %q on %s/%s is in positions[%d] already", at, p.Group, p.Queue, p.Partition, j)
		}
		seen[k] = i
		out[i] = p
	}
	return out, nil
}
