package chaos

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// The disk-full fault's sizes: each node's data directory is a tmpfs of
// diskBytes, and a strike fills it with ballast to ballastPct percent,
// past the nodes' high mark (QUEEN_RAFT_DISK_HIGH_PCT, 85) and short of
// full: the headroom takes what the cluster admitted before it heard.
const (
	diskBytes  = 128 << 20
	ballastPct = 90
)

// diskEnv is what every node of a disk-full run gets: its disk read five
// times a second.
var diskEnv = []string{"QUEEN_RAFT_DISK_POLL_MS=200"}

// mountTmpfs mounts a tmpfs of diskBytes at dir.
func mountTmpfs(dir string) error {
	if os.Geteuid() != 0 {
		return errors.New("the disk-full fault mounts a tmpfs per node: it needs root")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", diskBytes)); err != nil {
		return fmt.Errorf("mount a tmpfs at %s: %w", dir, err)
	}
	return nil
}

// unmountTmpfs undoes mountTmpfs, detaching it if it is still busy.
func unmountTmpfs(dir string) error {
	if err := syscall.Unmount(dir, 0); err != nil {
		if derr := syscall.Unmount(dir, syscall.MNT_DETACH); derr != nil {
			return fmt.Errorf("unmount %s: %w", dir, err)
		}
	}
	return nil
}

// usedPct is df's use of the file system holding dir.
func usedPct(dir string) (float64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	used := float64(st.Blocks - st.Bfree)
	return 100 * used / (used + float64(st.Bavail)), nil
}

// fillBallast writes dir/ballast until dir's file system is pct full.
func fillBallast(dir string, pct float64) (string, error) {
	path := filepath.Join(dir, "ballast")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for {
		used, err := usedPct(dir)
		if err != nil || used >= pct {
			return path, err
		}
		if _, err := f.Write(chunk); err != nil {
			return path, fmt.Errorf("ballast in %s: %w", dir, err)
		}
	}
}

// strikeDiskFull fills the data directories of the leader, a random node
// or a random majority (by the seed) with ballast; the heal removes it.
func (s *striker) strikeDiskFull() (string, func(context.Context) error, error) {
	who, nodes := s.leaderNodeOrMajority()
	var ballast []string
	remove := func(context.Context) error {
		var errs []error
		for _, p := range ballast {
			errs = append(errs, os.Remove(p))
		}
		return errors.Join(errs...)
	}
	for _, n := range nodes {
		p, err := fillBallast(s.c.DataDir(n), ballastPct)
		if p != "" {
			ballast = append(ballast, p)
		}
		if err != nil {
			return "", nil, errors.Join(err, remove(context.Background()))
		}
	}
	return fmt.Sprintf("%s %v filled to %d%% with ballast", who, ids(nodes), ballastPct), remove, nil
}

// leaderNodeOrMajority is the leader, one random node or a random
// majority.
func (s *striker) leaderNodeOrMajority() (string, []*Node) {
	switch s.r.IntN(3) {
	case 0:
		return "leader", []*Node{s.leader}
	case 1:
		return "node", []*Node{s.c.Nodes[s.r.IntN(len(s.c.Nodes))]}
	default:
		return "majority", s.shuffled()[:len(s.c.Nodes)/2+1]
	}
}
