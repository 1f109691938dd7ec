package lossyfs

import (
	"context"
	"math"
	"syscall"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// file is a loopback handle whose writes, size changes and syncs go
// through the FS's bookkeeping.
type file struct {
	*gofs.LoopbackFile
	lfs *FS
	fd  int     // the loopback's descriptor, open until Release
	key fileKey // fixed for the descriptor's life
}

var (
	_ gofs.FileWriter          = (*file)(nil)
	_ gofs.FileWritever        = (*file)(nil)
	_ gofs.FileSetattrer       = (*file)(nil)
	_ gofs.FileAllocater       = (*file)(nil)
	_ gofs.FileFsyncer         = (*file)(nil)
	_ gofs.FilePassthroughFder = (*file)(nil)
)

// PassthroughFd refuses: with passthrough the kernel would write to the
// backing file without asking the server.
func (f *file) PassthroughFd() (int, bool) { return -1, false }

// Write saves the synced bytes it overwrites, then writes.
func (f *file) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	f.lfs.writes.Add(1)
	f.lfs.bytes.Add(int64(len(data)))
	var n uint32
	errno := f.lfs.modify(f.fd, f.key, off, off+int64(len(data)), func() (errno syscall.Errno) {
		n, errno = f.LoopbackFile.Write(ctx, data, off)
		return errno
	})
	return n, errno
}

// Writev is Write for a vector.
func (f *file) Writev(ctx context.Context, data [][]byte, off int64) (uint32, syscall.Errno) {
	total := 0
	for _, b := range data {
		total += len(b)
	}
	f.lfs.writes.Add(1)
	f.lfs.bytes.Add(int64(total))
	var n uint32
	errno := f.lfs.modify(f.fd, f.key, off, off+int64(total), func() (errno syscall.Errno) {
		n, errno = f.LoopbackFile.Writev(ctx, data, off)
		return errno
	})
	return n, errno
}

// Setattr saves the synced bytes a size change cuts.
func (f *file) Setattr(ctx context.Context, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	sz, ok := in.GetSize()
	if !ok {
		return f.LoopbackFile.Setattr(ctx, in, out)
	}
	f.lfs.truncates.Add(1)
	return f.lfs.modify(f.fd, f.key, int64(sz), math.MaxInt64, func() syscall.Errno {
		return f.LoopbackFile.Setattr(ctx, in, out)
	})
}

// truncate is O_TRUNC's truncation, tracked like Setattr's.
func (f *file) truncate(size int64) syscall.Errno {
	f.lfs.truncates.Add(1)
	return f.lfs.modify(f.fd, f.key, size, math.MaxInt64, func() syscall.Errno {
		return gofs.ToErrno(unix.Ftruncate(f.fd, size))
	})
}

// Allocate saves what fallocate may change: nothing for a plain
// preallocation (it only fills holes, and a size it adds is cut at
// Crash), the range for a hole punch or zeroing, and everything from off
// on for the modes that move data.
func (f *file) Allocate(ctx context.Context, off, size uint64, mode uint32) syscall.Errno {
	f.lfs.allocates.Add(1)
	end := int64(off)
	switch mode &^ unix.FALLOC_FL_KEEP_SIZE {
	case 0:
	case unix.FALLOC_FL_PUNCH_HOLE, unix.FALLOC_FL_ZERO_RANGE:
		end = int64(off + size)
	default:
		end = math.MaxInt64
	}
	return f.lfs.modify(f.fd, f.key, int64(off), end, func() syscall.Errno {
		return f.LoopbackFile.Allocate(ctx, off, size, mode)
	})
}

// Fsync syncs the backing file and makes the file's current content its
// synced state. FUSE's FDATASYNC flag makes it an fdatasync.
func (f *file) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	f.lfs.syncs.Add(1)
	s, err := f.lfs.state(f.fd, f.key)
	if err != nil {
		return gofs.ToErrno(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if flags&fuseFsyncFdatasync != 0 {
		err = unix.Fdatasync(f.fd)
	} else {
		err = unix.Fsync(f.fd)
	}
	if err != nil {
		return gofs.ToErrno(err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(f.fd, &st); err != nil {
		return gofs.ToErrno(err)
	}
	s.synced, s.spans = st.Size, nil
	return 0
}

// fuseFsyncFdatasync is FUSE_FSYNC_FDATASYNC of the FUSE protocol.
const fuseFsyncFdatasync = 1
