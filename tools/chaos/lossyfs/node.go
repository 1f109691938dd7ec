package lossyfs

import (
	"context"
	"math"
	"path/filepath"
	"syscall"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// node is a loopback node whose file handles and size changes go through
// the FS's bookkeeping. Directory operations are the loopback's.
type node struct {
	*gofs.LoopbackNode
	lfs *FS
}

var (
	_ gofs.NodeWrapChilder    = (*node)(nil)
	_ gofs.NodeCreater        = (*node)(nil)
	_ gofs.NodeOpener         = (*node)(nil)
	_ gofs.NodeSetattrer      = (*node)(nil)
	_ gofs.NodeCopyFileRanger = (*node)(nil)
	_ gofs.NodeTmpfiler       = (*node)(nil)
)

// WrapChild makes every node the loopback creates one of ours.
func (n *node) WrapChild(ctx context.Context, ops gofs.InodeEmbedder) gofs.InodeEmbedder {
	return &node{LoopbackNode: ops.(*gofs.LoopbackNode), lfs: n.lfs}
}

// path is the node's path in the backing directory.
func (n *node) path() string {
	return filepath.Join(n.RootData.Path, n.Path(n.Root()))
}

// wrap turns a loopback handle into one of ours.
func (n *node) wrap(fh gofs.FileHandle) (*file, syscall.Errno) {
	lf := fh.(*gofs.LoopbackFile)
	fd, _ := lf.PassthroughFd() // the handle's descriptor, open until Release
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		lf.Release(context.Background())
		return nil, gofs.ToErrno(err)
	}
	return &file{LoopbackFile: lf, lfs: n.lfs, fd: fd, key: keyOf(&st)}, 0
}

// readable turns a write-only open into a read-write one: a write must
// read the synced bytes it overwrites from the same descriptor. The kernel
// still holds the caller to the access it asked for.
func readable(flags uint32) uint32 {
	if flags&syscall.O_ACCMODE == syscall.O_WRONLY {
		return flags&^syscall.O_ACCMODE | syscall.O_RDWR
	}
	return flags
}

// Open opens the backing file; O_TRUNC is done as a tracked truncation.
func (n *node) Open(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	fh, fuseFlags, errno := n.LoopbackNode.Open(ctx, readable(flags)&^syscall.O_TRUNC)
	if errno != 0 {
		return nil, 0, errno
	}
	f, errno := n.wrap(fh)
	if errno != 0 {
		return nil, 0, errno
	}
	if flags&syscall.O_TRUNC != 0 {
		if errno := f.truncate(0); errno != 0 {
			f.Release(ctx)
			return nil, 0, errno
		}
	}
	return f, fuseFlags, 0
}

// Create makes a new file (its state starts empty: nothing of it is
// synced) or, without O_EXCL, opens the one already there.
func (n *node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*gofs.Inode, gofs.FileHandle, uint32, syscall.Errno) {
	ch, fh, fuseFlags, errno := n.LoopbackNode.Create(ctx, name, readable(flags|syscall.O_EXCL)&^syscall.O_TRUNC, mode, out)
	if errno == 0 {
		f, errno := n.wrap(fh)
		if errno != 0 {
			return nil, nil, 0, errno
		}
		n.lfs.created(f.key)
		return ch, f, fuseFlags, 0
	}
	if errno != syscall.EEXIST || flags&syscall.O_EXCL != 0 {
		return nil, nil, 0, errno
	}
	if ch, errno = n.LoopbackNode.Lookup(ctx, name, out); errno != 0 {
		return nil, nil, 0, errno
	}
	child, ok := ch.Operations().(*node)
	if !ok {
		return nil, nil, 0, syscall.EIO
	}
	fh, fuseFlags, errno = child.Open(ctx, flags&^(syscall.O_CREAT|syscall.O_EXCL))
	if errno != 0 {
		return nil, nil, 0, errno
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fh.(*file).fd, &st); err == nil {
		out.Attr.FromStat(&st)
	}
	return ch, fh, fuseFlags, 0
}

// Tmpfile makes an unnamed file; like Create, its state starts empty.
func (n *node) Tmpfile(ctx context.Context, flags, mode uint32, out *fuse.EntryOut) (*gofs.Inode, gofs.FileHandle, uint32, syscall.Errno) {
	ch, fh, fuseFlags, errno := n.LoopbackNode.Tmpfile(ctx, readable(flags), mode, out)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	f, errno := n.wrap(fh)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	n.lfs.created(f.key)
	return ch, f, fuseFlags, 0
}

// Mknod makes a file; a regular one starts empty like Create's.
func (n *node) Mknod(ctx context.Context, name string, mode, rdev uint32, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	ch, errno := n.LoopbackNode.Mknod(ctx, name, mode, rdev, out)
	var st unix.Stat_t
	if errno == 0 && unix.Lstat(filepath.Join(n.path(), name), &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
		n.lfs.created(keyOf(&st))
	}
	return ch, errno
}

// Unlink removes a name; when it was the file's last, its state goes.
func (n *node) Unlink(ctx context.Context, name string) syscall.Errno {
	k, last := lastLink(filepath.Join(n.path(), name))
	errno := n.LoopbackNode.Unlink(ctx, name)
	if errno == 0 && last {
		n.lfs.forget(k)
	}
	return errno
}

// Rename moves a name; a file it replaces loses its state like Unlink's.
func (n *node) Rename(ctx context.Context, name string, newParent gofs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	var k fileKey
	var last bool
	if p, ok := newParent.(*node); ok && flags&unix.RENAME_EXCHANGE == 0 {
		k, last = lastLink(filepath.Join(p.path(), newName))
	}
	errno := n.LoopbackNode.Rename(ctx, name, newParent, newName, flags)
	if errno == 0 && last {
		var st unix.Stat_t
		if unix.Lstat(filepath.Join(n.path(), name), &st) != nil || keyOf(&st) != k { // not a rename onto itself
			n.lfs.forget(k)
		}
	}
	return errno
}

// lastLink says whether path is a regular file's only name, and its key.
func lastLink(path string) (fileKey, bool) {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fileKey{}, false
	}
	return keyOf(&st), st.Nlink <= 1
}

// Setattr tracks a size change made by path (truncate(2)); one made
// through a handle goes to file.Setattr.
func (n *node) Setattr(ctx context.Context, fh gofs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	sz, ok := in.GetSize()
	if _, isFile := fh.(*file); !ok || isFile {
		return n.LoopbackNode.Setattr(ctx, fh, in, out)
	}
	fd, err := unix.Open(n.path(), unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return gofs.ToErrno(err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return gofs.ToErrno(err)
	}
	n.lfs.truncates.Add(1)
	return n.lfs.modify(fd, keyOf(&st), int64(sz), math.MaxInt64, func() syscall.Errno {
		return n.LoopbackNode.Setattr(ctx, fh, in, out)
	})
}

// CopyFileRange copies between two of our handles, saving the synced
// bytes it overwrites in the destination.
func (n *node) CopyFileRange(ctx context.Context, fhIn gofs.FileHandle, offIn uint64, out *gofs.Inode,
	fhOut gofs.FileHandle, offOut uint64, length uint64, flags uint64) (uint32, syscall.Errno) {
	in, ok1 := fhIn.(*file)
	dst, ok2 := fhOut.(*file)
	if !ok1 || !ok2 {
		return 0, syscall.ENOTSUP
	}
	n.lfs.writes.Add(1)
	n.lfs.bytes.Add(int64(length))
	var count int
	errno := n.lfs.modify(dst.fd, dst.key, int64(offOut), int64(offOut+length), func() syscall.Errno {
		oi, oo := int64(offIn), int64(offOut)
		var err error
		count, err = unix.CopyFileRange(in.fd, &oi, dst.fd, &oo, int(length), int(flags))
		return gofs.ToErrno(err)
	})
	return uint32(max(count, 0)), errno
}

// modify runs op, a change of the file open at fd, after saving the
// synced bytes of [off, end) it may change. The file's lock is held
// across both, so a sync sees the change whole or not at all.
func (l *FS) modify(fd int, k fileKey, off, end int64, op func() syscall.Errno) syscall.Errno {
	s, err := l.state(fd, k)
	if err != nil {
		return gofs.ToErrno(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.save(fd, off, end); err != nil {
		return gofs.ToErrno(err)
	}
	return op()
}
