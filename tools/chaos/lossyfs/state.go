package lossyfs

import (
	"errors"
	"os"
	"sort"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// fileKey names a backing file by what survives a rename: its device and
// inode number.
type fileKey struct{ dev, ino uint64 }

func keyOf(st *unix.Stat_t) fileKey { return fileKey{uint64(st.Dev), st.Ino} }

// span is a range of a file's synced bytes, saved before the first
// modification since the last sync overwrote (or cut) them.
type span struct {
	off  int64
	data []byte
}

func (s span) end() int64 { return s.off + int64(len(s.data)) }

// fileState is what a power loss would leave of one file: the size it
// had at its last sync and the synced bytes modified since.
//
// Invariant: spans are sorted, disjoint and inside [0, synced); a byte of
// [0, synced) that no span covers still holds its synced value in the
// backing file.
type fileState struct {
	mu     sync.Mutex // held across a save and the modification it is for
	synced int64
	spans  []span
}

// save keeps the synced bytes of [off, end) that no span keeps yet,
// reading them from fd. Bytes past the synced size are not saved: Crash
// drops them by truncating.
func (s *fileState) save(fd int, off, end int64) error {
	end = min(end, s.synced)
	if off < 0 {
		off = 0
	}
	// First span that ends after off.
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].end() > off })
	for off < end {
		gapEnd := end
		if i < len(s.spans) && s.spans[i].off <= off {
			off = s.spans[i].end() // covered: skip past it
			i++
			continue
		}
		if i < len(s.spans) {
			gapEnd = min(gapEnd, s.spans[i].off)
		}
		buf := make([]byte, gapEnd-off)
		if err := preadFull(fd, buf, off); err != nil {
			return err
		}
		if i > 0 && s.spans[i-1].end() == off { // grow the left neighbour (sequential overwrites)
			s.spans[i-1].data = append(s.spans[i-1].data, buf...)
		} else {
			s.spans = append(s.spans, span{})
			copy(s.spans[i+1:], s.spans[i:])
			s.spans[i] = span{off: off, data: buf}
			i++
		}
		off = gapEnd
	}
	return nil
}

// preadFull fills buf from fd at off. Bytes past the end of the file
// read as zeros: by the invariant there are none inside the synced size,
// but a file changed behind the mount's back must not fail a write.
func preadFull(fd int, buf []byte, off int64) error {
	for len(buf) > 0 {
		n, err := unix.Pread(fd, buf, off)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			clear(buf)
			return nil
		}
		buf, off = buf[n:], off+int64(n)
	}
	return nil
}

// revert puts the file at path back to its synced state and says how
// many bytes past the synced size it dropped and how many spans it wrote
// back.
func (s *fileState) revert(path string, size int64) (dropped int64, ranges int, err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	for _, sp := range s.spans {
		if _, err := f.WriteAt(sp.data, sp.off); err != nil {
			return 0, 0, err
		}
	}
	if err := f.Truncate(s.synced); err != nil {
		return 0, 0, err
	}
	return max(0, size-s.synced), len(s.spans), nil
}
