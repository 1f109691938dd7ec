// Package lossyfs is a FUSE file system that simulates a power loss for
// the fault campaign (package chaos). A SIGKILL keeps the page cache, so
// everything a killed process wrote survives it; on a real power loss
// what was not fsynced is lost. lossyfs serves a backing directory at a
// mount point from the harness process, so its bookkeeping outlives the
// process that writes there, and Crash reverts every file to its content
// at its last fsync or fdatasync.
//
// # What it owns
//
//   - The mount: a loopback of the backing directory (go-fuse's
//     fs.LoopbackNode and LoopbackFile), mounted with mount(2) itself
//     (DirectMountStrict: root and /dev/fuse, no fusermount), and
//     unmounted by Unmount.
//   - Per file, keyed by the backing file's (device, inode), which a
//     rename keeps: the synced size (its size at the last sync) and the
//     synced bytes that were modified since, each byte saved once, the
//     first time a write, truncate, hole punch or copy_file_range touches
//     it.
//   - Crash, which walks the backing tree, writes the saved bytes back and
//     truncates each file to its synced size; the result is the new synced
//     state.
//
// # Invariants
//
//   - Every write reaches the server, in order, before write(2) returns:
//     no writeback cache and no FUSE passthrough (both refused at INIT, and
//     the handles offer no passthrough descriptor). fsync(2) and
//     fdatasync(2) reach it as FSYNC.
//   - A file's saved spans are disjoint and lie inside [0, synced size); a
//     byte of that range that no span covers holds its synced value in the
//     backing file. So a span is saved only for bytes not saved yet, and
//     the order of the overwrites does not matter: memory is bounded by
//     the synced sizes of the files modified since their syncs.
//   - A file's lock is held across the save and the change it is for, and
//     across a sync, so a sync sees a write whole or not at all.
//   - A file has state from its first modification or sync on: its synced
//     size is then its current size, so a file from before the mount keeps
//     what it had. A file made through the mount (create, mknod, O_TMPFILE)
//     starts at 0, which also drops the state of an unlinked file whose
//     inode number it reuses; a file's last unlink drops its state.
//   - Backing files are opened read-write when the caller asked write-only,
//     to read the bytes a write overwrites; the kernel still holds the
//     caller to its own access mode.
//   - Names and attributes are not cached by the kernel (timeouts 0) and no
//     open keeps the page cache, so after Crash the mount shows the
//     reverted files at once.
//
// # Limits
//
//   - Data only: directory operations (create, rename, unlink, mkdir,
//     link) pass through and are kept by Crash, as with LazyFS's default.
//     A file created and never synced stays, empty; a rename is never
//     undone, even when its directory was not fsynced.
//   - Crash drops all unsynced data of all files at once: no torn writes,
//     no partial loss of a page, no reordering of unsynced writes.
//   - Crash must run while no process has files open on the mount; after
//     a SIGKILL, wait for the process to exit (a killed thread waits for the
//     server's answer to a write already sent, so no write is in flight
//     once it is reaped).
//   - Dirty pages of a shared writable mmap reach the server at writeback,
//     possibly after the writer died; Pebble and dragonboat do not write
//     through mmap.
//   - Extended attributes, modes and times pass through and are kept.
//   - The serving process itself should not keep files open on its mount
//     when it exits: the kernel would wait for a server that is gone, and
//     the exit hangs.
//
// # Usage
//
//	l, err := lossyfs.Mount(backing, mnt) // both existing directories, mnt empty
//	// start queen with its data directory under mnt; later:
//	cmd.Process.Signal(syscall.SIGKILL)
//	cmd.Wait()
//	rep, err := l.Crash() // files are back at their last fsync
//	logf("power loss: %d files, %d bytes dropped, %d ranges restored (%+v)",
//		rep.Files, rep.BytesDropped, rep.RangesRestored, l.Stats())
//	// restart queen on mnt; at the end:
//	err = l.Unmount()
package lossyfs
