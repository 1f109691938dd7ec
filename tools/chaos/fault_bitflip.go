package chaos

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The bit-flip fault (FaultBitFlip) and what the harness does after it,
// as the operator would: a node that refuses to start over the flip, or
// later stops itself over it (queen exits 3, exitCorrupt, with its FATAL
// line), is replaced from a healthy node (POST /api/v1/raft/members/replace
// with a fresh replica id), its data directory moved aside, and started
// again under the new id with QUEEN_RAFT_JOIN=true. A node that exits
// another way is started again, as a supervisor would.

// exitCorrupt is queen's exit status for a finding of corruption.
const exitCorrupt = 3

// The kinds of file a flip strikes, in the seed's order of choice.
var flipKinds = []struct {
	name  string
	match func(rel string) bool
}{
	{"sm-table", func(p string) bool { return strings.HasPrefix(p, "sm/") && strings.HasSuffix(p, ".sst") }},
	{"segment", func(p string) bool { return strings.HasSuffix(p, ".seg") }},
	{"raft-table", func(p string) bool { return strings.HasPrefix(p, "raft/") && strings.HasSuffix(p, ".sst") }},
	{"raft-wal", func(p string) bool { return strings.HasPrefix(p, "raft/") && strings.HasSuffix(p, ".log") }},
	{"manifest", func(p string) bool { return strings.Contains(filepath.Base(p), "MANIFEST-") }},
}

// flips is the bit-flip fault's state: the flips whose outcome is still
// open, by node slot, and the tally.
type flips struct {
	mu      sync.Mutex
	open    map[int]string // slot → the flip's description
	next    int            // the last replica id handed out
	sweeper bool
	// Refused counts flips a node refused at boot; Later those it
	// stopped itself over after it started; Other boot failures that
	// were no finding; Harmless those it ran on to the end.
	Refused, Later, Other, Harmless int
}

// bitFlip stops a node, flips one bit of one of its files, starts it
// again and waits for it to be ready or to refuse.
func (s *striker) bitFlip(ctx context.Context) (string, func(context.Context) error, error) {
	f := &s.flips
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.open == nil {
		f.open, f.next = map[int]string{}, len(s.c.Nodes)
	}
	if !f.sweeper {
		f.sweeper = true
		go s.sweepEvery(ctx, time.Second)
	}
	n := s.leader
	if s.r.IntN(2) == 0 {
		n = s.c.Nodes[s.r.IntN(len(s.c.Nodes))]
	}
	sig, how := syscall.SIGKILL, "killed"
	if s.r.IntN(2) == 0 {
		sig, how = syscall.SIGTERM, "stopped"
	}
	if err := n.Signal(sig); err != nil {
		return "", nil, err
	}
	what, err := s.flipOne(n)
	if err != nil {
		return "", nil, err
	}
	what = fmt.Sprintf("node %d (replica %d) %s, %s", n.ID, n.Replica, how, what)
	if err := n.Start(s.c.Bin()); err != nil {
		return "", nil, err
	}
	switch code := waitUp(ctx, n, 60*time.Second); code {
	case 0:
		f.open[n.ID] = what
		return what + ": started", nil, nil
	case exitCorrupt:
		f.Refused++
		what += ": refused at boot (exit 3)"
	default:
		f.Other++
		what += fmt.Sprintf(": failed at boot (exit %d), not as a finding", code)
	}
	r, err := s.replace(ctx, n)
	return what + r, nil, err
}

// flipOne flips a bit of one of n's files, chosen by the seed: the kind,
// then the file, then a byte before its trailing zeros, then the bit.
func (s *striker) flipOne(n *Node) (string, error) {
	var all []string
	filepath.WalkDir(n.DataDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			all = append(all, path)
		}
		return nil
	})
	slices.Sort(all)
	first := s.r.IntN(len(flipKinds))
	for k := range flipKinds {
		kind := flipKinds[(first+k)%len(flipKinds)]
		var files []string
		for _, p := range all {
			rel, _ := filepath.Rel(n.DataDir, p)
			if kind.match(filepath.ToSlash(rel)) {
				files = append(files, p)
			}
		}
		if len(files) == 0 {
			continue
		}
		path := files[s.r.IntN(len(files))]
		b, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		used := len(b)
		for used > 0 && b[used-1] == 0 {
			used-- // a WAL's preallocated tail: a flip there is a torn write's garbage
		}
		if used == 0 {
			continue
		}
		off, bit := s.r.IntN(used), s.r.IntN(8)
		b[off] ^= 1 << bit
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(n.DataDir, path)
		return fmt.Sprintf("bit %d of byte %d of %s (%s, %d bytes) flipped", bit, off, rel, kind.name, len(b)), nil
	}
	return "", fmt.Errorf("node %d has no data file to flip", n.ID)
}

// waitUp waits until n answers /health 200 (0) or exits (its status).
func waitUp(ctx context.Context, n *Node, timeout time.Duration) int {
	deadline := time.Now().Add(timeout)
	cmd, exited := n.proc()
	for time.Now().Before(deadline) {
		if code, _, _ := n.Health(ctx); code == http.StatusOK {
			return 0
		}
		select {
		case <-exited:
			n.mu.Lock()
			n.cmd = nil
			n.mu.Unlock()
			return cmd.ProcessState.ExitCode()
		case <-ctx.Done():
			return -1
		case <-time.After(50 * time.Millisecond):
		}
	}
	return -1
}

// replace does what the operator does for a node that found its data
// corrupted: a healthy node replaces its replica by a fresh id at the
// same address, its data directory is moved aside, and it starts under
// the new id, joining.
// REQUIRES: s.flips.mu held, n not running.
func (s *striker) replace(ctx context.Context, n *Node) (string, error) {
	f := &s.flips
	f.next++
	old, nu := n.Replica, f.next
	body := map[string]any{"nodeId": old, "newNodeId": nu}
	deadline := time.Now().Add(60 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		err = fmt.Errorf("no healthy node to replace replica %d", old)
		for _, h := range s.c.Nodes {
			if h == n || !h.Running() {
				continue
			}
			if code, _, _ := h.Health(ctx); code != http.StatusOK {
				continue
			}
			if _, err = h.Call(ctx, http.MethodPost, "/api/v1/raft/members/replace", body, nil); err == nil {
				break
			}
		}
		if err == nil || !sleep(ctx, 200*time.Millisecond) {
			break
		}
	}
	if err != nil {
		return "", err
	}
	aside := fmt.Sprintf("%s.replica-%d", n.DataDir, old)
	if err := os.Rename(n.DataDir, aside); err != nil {
		return "", err
	}
	n.mu.Lock()
	n.Replica = nu
	n.env = append(n.env, fmt.Sprintf("QUEEN_RAFT_NODE_ID=%d", nu), "QUEEN_RAFT_JOIN=true")
	n.mu.Unlock()
	if err := n.Start(s.c.Bin()); err != nil {
		return "", err
	}
	if code := waitUp(ctx, n, 60*time.Second); code != 0 {
		return "", fmt.Errorf("node %d, replica %d replacing %d, did not come up (exit %d; log %s)", n.ID, nu, old, code, n.LogPath)
	}
	return fmt.Sprintf("; replaced by replica %d, data moved to %s", nu, filepath.Base(aside)), nil
}

// sweep replaces every node that stopped itself over a finding since it
// last started, and starts again one that exited another way (a crash).
// It reports what it did.
func (s *striker) sweep(ctx context.Context) ([]string, error) {
	f := &s.flips
	f.mu.Lock()
	defer f.mu.Unlock()
	var did []string
	for _, n := range s.c.Nodes {
		cmd, exited := n.proc()
		if cmd == nil {
			continue
		}
		select {
		case <-exited:
		default:
			continue
		}
		code := cmd.ProcessState.ExitCode()
		n.mu.Lock()
		n.cmd = nil
		n.mu.Unlock()
		what, open := f.open[n.ID]
		delete(f.open, n.ID)
		if code != exitCorrupt {
			if err := n.Start(s.c.Bin()); err != nil {
				return did, err
			}
			did = append(did, fmt.Sprintf("node %d exited %d by itself: started again", n.ID, code))
			continue
		}
		if open {
			f.Later++
			what = " after " + what
		}
		r, err := s.replace(ctx, n)
		if err != nil {
			return did, err
		}
		did = append(did, fmt.Sprintf("node %d stopped itself over a finding (exit 3)%s%s", n.ID, what, r))
	}
	return did, nil
}

// sweepEvery sweeps until ctx ends.
func (s *striker) sweepEvery(ctx context.Context, every time.Duration) {
	for sleep(ctx, every) {
		s.sweep(ctx)
	}
}

// settle sweeps until every node runs and is ready, and closes the tally:
// the flips still open were harmless.
func (s *striker) settle(ctx context.Context, logf func(string, ...any)) error {
	deadline := time.Now().Add(90 * time.Second)
	for {
		did, err := s.sweep(ctx)
		for _, d := range did {
			logf("%s", d)
		}
		if err != nil {
			return err
		}
		up := true
		for _, n := range s.c.Nodes {
			if code, _, _ := n.Health(ctx); code != http.StatusOK {
				up = false
			}
		}
		if up || time.Now().After(deadline) {
			break
		}
		if !sleep(ctx, 200*time.Millisecond) {
			return ctx.Err()
		}
	}
	return nil
}

// tally closes the flips still open (harmless) and says what the flips did.
func (s *striker) tally() string {
	f := &s.flips
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Harmless += len(f.open)
	clear(f.open)
	return fmt.Sprintf("bit flips: %d refused at boot, %d stopped the node later, %d failed a boot otherwise, %d harmless",
		f.Refused, f.Later, f.Other, f.Harmless)
}
