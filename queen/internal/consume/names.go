package consume

import (
	"fmt"

	"github.com/queen-mq/queen-go/contract"
)

// checkNames checks the names an op carries against the contract where it
// applies: the proposer checked them, and a follower trusts nothing of an
// entry. A refusal rolls the entry back (raftlog.ErrRejected).
func checkNames(op any) error {
	var err error
	switch op := op.(type) {
	case *PopOp:
		err = check(op.Tenant, op.Queue, op.Group, op.Partition, op.LeaseID)
	case *AckOp:
		err = checkAcks(op.Tenant, op.Items)
	case *TxnOp:
		err = checkAcks(op.Tenant, op.Acks)
		for i, l := range op.RequiredLeases {
			if err == nil {
				if err = contract.ID.Check("leaseId", l); err != nil {
					err = fmt.Errorf("required lease %d: %w", i, err)
				}
			}
		}
	case *SeekOp:
		err = check(op.Tenant, op.Queue, op.Group, op.Partition, "")
	case *DeleteOp:
		err = check(op.Tenant, op.Queue, op.Group, "", "")
	case *SubscriptionOp:
		err = check(op.Tenant, "", op.Group, "", "")
	case *DropQueueOp:
		err = check(op.Tenant, op.Queue, "", "", "")
	case *DeleteMessageOp:
		err = check(op.Tenant, op.Queue, "", op.Partition, "")
	case *PurgeOp:
		err = check(op.Tenant, op.Queue, op.Group, "", "")
	case *PositionOp:
		for i, p := range op.Items {
			if err == nil {
				if err = check(op.Tenant, p.Queue, p.Group, p.Partition, ""); err != nil {
					err = fmt.Errorf("position %d: %w", i, err)
				}
			}
		}
	case *ReplayOp:
		if err = check(op.Tenant, "", "", "", ""); err == nil {
			err = contract.ID.Check("id", op.ID)
		}
	case *ExtendOp:
		if err = check(op.Tenant, "", "", "", ""); err == nil {
			err = contract.ID.Check("leaseId", op.LeaseID)
		}
	}
	if err != nil {
		return fmt.Errorf("consume: %w", err)
	}
	return nil
}

// check checks a tenant, and the queue, group, partition and lease id
// that are not "" (each op says which it needs; its decoder which are set).
func check(tenant, queue, group, partition, lease string) error {
	if err := contract.Tenant.Check("tenant", tenant); err != nil {
		return err
	}
	for _, n := range []struct {
		name *contract.Name
		s    string
	}{{contract.Queue, queue}, {contract.ConsumerGroup, group}, {contract.Partition, partition}, {contract.ID, lease}} {
		if n.s != "" {
			if err := n.name.Check("", n.s); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkAcks checks the tenant and each ack item's names.
func checkAcks(tenant string, items []AckItem) error {
	if err := contract.Tenant.Check("tenant", tenant); err != nil {
		return err
	}
	for i := range items {
		it := &items[i]
		err := contract.TransactionID.Check("", it.TransactionID)
		if err == nil {
			err = contract.ConsumerGroup.Check("", it.Group)
		}
		if err == nil && it.LeaseID != "" {
			err = contract.ID.Check("", it.LeaseID)
		}
		if err != nil {
			return fmt.Errorf("ack %d: %w", i, err)
		}
	}
	return nil
}
