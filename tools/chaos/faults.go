package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"syscall"
	"time"

	"github.com/queen-mq/queen-go/tools/chaos/lossyfs"
)

// The faults a run injects (Config.Fault).
const (
	FaultNone = "none"
	// FaultPartition cuts the cluster in two, both ways, then heals: the
	// leader alone, or (by the seed) a random minority from a majority,
	// the leader on either side.
	FaultPartition = "partition"
	// FaultOneWay cuts what the leader sends to the others, not what it
	// hears.
	FaultOneWay = "one-way"
	// FaultClock SIGKILLs a node (the leader or another, by the seed) and
	// starts it again with its proposer clock jumped: 0 to 5 s ahead of
	// the others' (QUEEN_RAFT_CLOCK_OFFSET_MS), or back to true time from
	// an earlier jump.
	FaultClock = "clock"
	// FaultKill SIGKILLs the leader, a random node, a minority or a
	// majority (by the seed), and starts them again after a while.
	FaultKill = "kill"
	// FaultPause SIGSTOPs the leader, a random node, a minority or a
	// majority (by the seed), and SIGCONTs them after a while: a paused
	// leader wakes up believing it still leads.
	FaultPause = "pause"
	// FaultPowerLoss cuts the power of the leader, a random node, a
	// minority, a majority or every node (by the seed): each is SIGKILLed
	// and what it had not fsynced is lost (lossyfs), then it starts again
	// after a while.
	FaultPowerLoss = "power-loss"
	// FaultDiskFull fills the data directory (each node's own tmpfs in
	// this run) of the leader, a random node or a majority past the high
	// mark with ballast, and removes it after a while: the cluster answers
	// growing writes 507 storage_full meanwhile (diskfull.go).
	FaultDiskFull = "disk-full"
	// FaultBitFlip stops a node (SIGKILL or SIGTERM), flips one bit of
	// one of its data files and starts it again; a node that refuses or
	// later stops itself over it is replaced under a fresh id, as an
	// operator would (fault_bitflip.go).
	FaultBitFlip = "bit-flip"
)

// maxClockJump is the furthest FaultClock sets a node's clock ahead.
const maxClockJump = 5 * time.Second

// Faults lists the faults Run knows, in the campaign's order.
var Faults = []string{FaultNone, FaultPartition, FaultOneWay, FaultClock, FaultKill, FaultPause, FaultPowerLoss, FaultDiskFull, FaultBitFlip}

// striker strikes one fault at a time on a cluster, its choices drawn
// from r (the seed's).
type striker struct {
	c      *Cluster
	r      *rand.Rand
	leader *Node
	flips  flips // FaultBitFlip's state
}

// strike strikes the named fault and returns what it did and how to
// heal it (nil: nothing to heal, the fault was over when it returned).
func (s *striker) strike(ctx context.Context, fault string) (what string, heal func(context.Context) error, err error) {
	switch fault {
	case FaultPartition:
		a, b := s.split()
		s.c.Mesh.Partition(ids(a), ids(b))
		return fmt.Sprintf("nodes %v cut off from %v", ids(a), ids(b)), s.healMesh, nil
	case FaultOneWay:
		for _, n := range s.c.Nodes {
			if n != s.leader {
				s.c.Mesh.Cut(s.leader.ID, n.ID)
			}
		}
		return fmt.Sprintf("what node %d (leader) sends dropped", s.leader.ID), s.healMesh, nil
	case FaultClock:
		n := s.leader
		if s.r.IntN(2) == 0 {
			n = s.c.Nodes[s.r.IntN(len(s.c.Nodes))]
		}
		offset := 0
		if s.r.IntN(3) > 0 {
			offset = s.r.IntN(int(maxClockJump.Milliseconds()) + 1)
		}
		if err := n.Signal(syscall.SIGKILL); err != nil {
			return "", nil, err
		}
		if err := n.Start(s.c.Bin(), fmt.Sprintf("QUEEN_RAFT_CLOCK_OFFSET_MS=%d", offset)); err != nil {
			return "", nil, err
		}
		return fmt.Sprintf("node %d killed and started again with its clock %d ms ahead", n.ID, offset), nil, n.WaitReady(ctx, 60*time.Second)
	case FaultKill:
		who, nodes := s.targets()
		for _, n := range nodes {
			if err := n.Signal(syscall.SIGKILL); err != nil {
				return "", nil, err
			}
		}
		return fmt.Sprintf("%s %v killed", who, ids(nodes)), func(ctx context.Context) error { return s.c.startAgain(ctx, nodes) }, nil
	case FaultPowerLoss:
		who, nodes := s.targets()
		if s.r.IntN(4) == 0 {
			who, nodes = "every node", s.c.Nodes
		}
		var lost lossyfs.CrashReport
		for _, n := range nodes {
			rep, err := n.PowerLoss()
			if err != nil {
				return "", nil, err
			}
			lost.Files, lost.BytesDropped, lost.RangesRestored = lost.Files+rep.Files, lost.BytesDropped+rep.BytesDropped, lost.RangesRestored+rep.RangesRestored
		}
		return fmt.Sprintf("power lost on %s %v: %d files reverted, %d unsynced bytes dropped, %d ranges restored", who, ids(nodes),
			lost.Files, lost.BytesDropped, lost.RangesRestored), func(ctx context.Context) error { return s.c.startAgain(ctx, nodes) }, nil
	case FaultPause:
		who, nodes := s.targets()
		for _, n := range nodes {
			if err := n.Signal(syscall.SIGSTOP); err != nil {
				return "", nil, err
			}
		}
		return fmt.Sprintf("%s %v paused", who, ids(nodes)), func(context.Context) error {
			for _, n := range nodes {
				if err := n.Signal(syscall.SIGCONT); err != nil {
					return err
				}
			}
			return nil
		}, nil
	case FaultDiskFull:
		return s.strikeDiskFull()
	}
	if fault == FaultBitFlip {
		return s.bitFlip(ctx)
	}
	return "", nil, fmt.Errorf("unknown fault %q (one of %v)", fault, Faults)
}

func (s *striker) healMesh(context.Context) error { s.c.Mesh.Heal(); return nil }

// split is a partition's two sides: the leader alone against the rest,
// or a random minority against a majority.
func (s *striker) split() (a, b []*Node) {
	if s.r.IntN(2) == 0 {
		for _, n := range s.c.Nodes {
			if n != s.leader {
				b = append(b, n)
			}
		}
		return []*Node{s.leader}, b
	}
	nodes := s.shuffled()
	k := 1 + s.r.IntN((len(nodes)-1)/2)
	return nodes[:k], nodes[k:]
}

// targets is whom a kill or a pause strikes: the leader, one random
// node, a random minority or a random majority.
func (s *striker) targets() (who string, nodes []*Node) {
	n := len(s.c.Nodes)
	switch s.r.IntN(4) {
	case 0:
		return "leader", []*Node{s.leader}
	case 1:
		return "node", []*Node{s.c.Nodes[s.r.IntN(n)]}
	case 2:
		return "minority", s.shuffled()[:(n-1)/2]
	default:
		return "majority", s.shuffled()[:n/2+1]
	}
}

// shuffled is the cluster's nodes in the seed's random order.
func (s *striker) shuffled() []*Node {
	nodes := slices.Clone(s.c.Nodes)
	s.r.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
	return nodes
}

// startAgain starts killed nodes and waits until each is ready.
func (c *Cluster) startAgain(ctx context.Context, nodes []*Node) error {
	for _, n := range nodes {
		if err := n.Start(c.Bin()); err != nil {
			return err
		}
	}
	for _, n := range nodes {
		if err := n.WaitReady(ctx, 60*time.Second); err != nil {
			return err
		}
	}
	return nil
}

func ids(nodes []*Node) []int {
	out := make([]int, len(nodes))
	for i, n := range nodes {
		out[i] = n.ID
	}
	return out
}
