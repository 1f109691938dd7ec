package lossyfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// FS is a mounted lossy file system: a loopback of a backing directory
// that remembers, for every file, what a power loss would leave of it.
type FS struct {
	backing, mountpoint string
	server              *fuse.Server

	mu    sync.Mutex // guards files; Crash holds it throughout
	files map[fileKey]*fileState

	writes, bytes, syncs, truncates, allocates atomic.Int64
}

// Stats counts the operations the server has seen since Mount.
type Stats struct {
	// Writes counts write, writev and copy_file_range calls; Bytes is
	// what they asked to write.
	Writes, Bytes int64
	// Syncs counts fsync and fdatasync calls on files.
	Syncs int64
	// Truncates counts size changes by truncate, ftruncate and O_TRUNC;
	// Allocates counts fallocate calls.
	Truncates, Allocates int64
}

// CrashReport is what a Crash reverted.
type CrashReport struct {
	// Files is how many files it changed.
	Files int
	// BytesDropped is how many bytes past their synced sizes it cut.
	BytesDropped int64
	// RangesRestored is how many saved ranges of synced bytes it wrote
	// back.
	RangesRestored int
}

// Available says why this machine cannot mount lossyfs (nil: it can):
// it needs root (mount(2) itself, no fusermount), /dev/fuse and the
// kernel's fuse file system.
func Available() error {
	if os.Geteuid() != 0 {
		return errors.New("lossyfs needs root to mount FUSE with mount(2) (no fusermount)")
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		return fmt.Errorf("lossyfs needs /dev/fuse: %w", err)
	}
	if fss, err := os.ReadFile("/proc/filesystems"); err != nil || !strings.Contains(string(fss), "\tfuse\n") {
		return errors.New("lossyfs needs the kernel's fuse file system (not in /proc/filesystems)")
	}
	return nil
}

// Mount serves backing (an existing directory) at mountpoint (an existing
// empty directory). It mounts with mount(2) itself (root, /dev/fuse), so
// it needs no fusermount.
func Mount(backing, mountpoint string) (*FS, error) {
	backing, err := filepath.Abs(backing)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		return nil, fmt.Errorf("lossyfs: %w", err)
	}
	root, err := gofs.NewLoopbackRoot(backing)
	if err != nil {
		return nil, fmt.Errorf("lossyfs: backing %s: %w", backing, err)
	}
	l := &FS{backing: backing, mountpoint: mountpoint, files: map[fileKey]*fileState{}}
	zero := time.Duration(0)
	opts := &gofs.Options{
		// No caching of names or attributes: after a Crash the kernel
		// must see the reverted sizes at once.
		EntryTimeout: &zero, AttrTimeout: &zero, NegativeTimeout: &zero,
		MountOptions: fuse.MountOptions{
			DirectMountStrict: true,
			FsName:            backing,
			Name:              "lossyfs",
			MaxBackground:     64,
			// go-fuse logs each unmount's aborted read of the connection
			// ("software caused connection abort") to stderr, which is
			// the campaign's table: its notes go nowhere.
			Logger: log.New(io.Discard, "", 0),
			// Every write must reach the server: no passthrough of
			// reads and writes to the backing file by the kernel, and no
			// writeback cache (which go-fuse does not ask for; this says
			// it stays so).
			DisabledCapabilities: fuse.CAP_PASSTHROUGH | fuse.CAP_WRITEBACK_CACHE,
		},
	}
	server, err := gofs.Mount(mountpoint, &node{LoopbackNode: root.(*gofs.LoopbackNode), lfs: l}, opts)
	if err != nil {
		return nil, fmt.Errorf("lossyfs: mount %s: %w", mountpoint, err)
	}
	l.server = server
	return l, nil
}

// Unmount unmounts and waits for the server to end. It fails while a
// process has files open on the mount.
func (l *FS) Unmount() error {
	if err := l.server.Unmount(); err != nil {
		return fmt.Errorf("lossyfs: unmount %s: %w", l.mountpoint, err)
	}
	l.server.Wait()
	return nil
}

// Stats returns the counts of operations seen so far.
func (l *FS) Stats() Stats {
	return Stats{Writes: l.writes.Load(), Bytes: l.bytes.Load(), Syncs: l.syncs.Load(),
		Truncates: l.truncates.Load(), Allocates: l.allocates.Load()}
}

// Crash reverts every file under backing to its content at its last
// fsync (or fdatasync): files written since are truncated back to their
// synced size and overwritten ranges get their old bytes back. Call it
// only while no process has files open on the mount (after the process
// using it was SIGKILLed and has exited). Directory entries are kept as
// they are. The reverted state is the new synced state.
func (l *FS) Crash() (CrashReport, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var rep CrashReport
	done := map[fileKey]bool{}
	err := filepath.WalkDir(l.backing, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // gone while we walked: nothing to revert
		}
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		var st unix.Stat_t
		if err := unix.Lstat(path, &st); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		k := keyOf(&st)
		s := l.files[k]
		if s == nil || done[k] {
			return nil
		}
		done[k] = true
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.spans) == 0 && st.Size == s.synced {
			return nil
		}
		dropped, ranges, err := s.revert(path, st.Size)
		if err != nil {
			return fmt.Errorf("lossyfs: revert %s: %w", path, err)
		}
		rep.Files++
		rep.BytesDropped += dropped
		rep.RangesRestored += ranges
		return nil
	})
	if err != nil {
		return rep, err
	}
	clear(l.files)
	return rep, nil
}

// state returns the state of the file open at fd, made from its current
// size on the first modification since Mount or the last Crash.
func (l *FS) state(fd int, k fileKey) (*fileState, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.files[k]; s != nil {
		return s, nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	s := &fileState{synced: st.Size}
	l.files[k] = s
	return s, nil
}

// created says k names a file just made through the mount (empty, never
// synced): any state left by an unlinked file whose inode number it
// reuses is dropped.
func (l *FS) created(k fileKey) {
	l.mu.Lock()
	l.files[k] = &fileState{}
	l.mu.Unlock()
}

// forget drops the state of a file whose last name is gone.
func (l *FS) forget(k fileKey) {
	l.mu.Lock()
	delete(l.files, k)
	l.mu.Unlock()
}
