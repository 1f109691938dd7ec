package raftlog

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// VerifyStats says what VerifyStore read, and how long it took.
type VerifyStats struct {
	Tables, Logs, Manifests int   // files of both Pebbles checked
	TableBytes, LogBytes    int64 // their sizes
	// Records is how many records of the active segments were read back
	// against their pointers' checksums; SegmentBytes their bytes.
	Records      int
	SegmentBytes int64
	Took         time.Duration
}

// VerifyStore reads a node's data directory strictly, before its host
// starts, and returns the first corruption it finds as a *CorruptError
// naming the file (recorded in the directory's marker, so every later
// start refuses at once). It opens nothing for writing.
//
//   - A marker an earlier run left is returned as it is.
//   - The raft log store (old Pebble, under raft/) and every shard's store
//     (Pebble v2, under sm/): every table's blocks against their checksums;
//     the MANIFEST and the live WALs strictly (checkLog): a chunk that does
//     not check is a torn end only when nothing of the same log checks
//     after it.
//   - The segments: every record of each shard's active segment against
//     its pointer's checksum (the records written since the last segment
//     started, those a crash or a lost write would hit first), and every
//     partition's last record in an older segment within its file. The
//     other records of older segments are checked when they are read (a
//     mismatch is a finding then): reading them all would make a start
//     as slow as reading the whole directory.
//
// An error that is not a finding (a file that cannot be read) is returned
// as it is.
func VerifyStore(dataDir string) (VerifyStats, error) {
	start := time.Now()
	var st VerifyStats
	if e, err := ReadMarker(dataDir); e != nil || err != nil {
		if e != nil {
			return st, e
		}
		return st, err
	}
	err := verifyAll(dataDir, &st)
	st.Took = time.Since(start)
	var e *CorruptError
	if errors.As(err, &e) {
		if merr := WriteMarker(dataDir, e); merr != nil {
			return st, errors.Join(e, merr)
		}
	}
	return st, err
}

func verifyAll(dataDir string, st *VerifyStats) error {
	for _, sub := range []struct {
		dir   string
		table func(path string) error
	}{{"raft", checkOldTable}, {"sm", checkTable}} {
		dbs, err := pebbleDirs(filepath.Join(dataDir, sub.dir))
		if err != nil {
			return err
		}
		for _, db := range dbs {
			if err := verifyPebble(db, sub.table, st); err != nil {
				return err
			}
		}
	}
	return verifySegments(filepath.Join(dataDir, "sm"), st)
}

// pebbleDirs lists the directories under root that hold a Pebble store
// (a CURRENT file or a MANIFEST marker); none when root does not exist.
func pebbleDirs(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path == root {
			return filepath.SkipDir
		}
		if err != nil {
			return err
		}
		if !d.IsDir() && (d.Name() == "CURRENT" || strings.HasPrefix(d.Name(), "marker.manifest.")) {
			if dir := filepath.Dir(path); !slices.Contains(dirs, dir) {
				dirs = append(dirs, dir)
			}
		}
		return nil
	})
	return dirs, err
}

// verifyPebble checks one Pebble store: its current MANIFEST, the WALs it
// would replay, and every table.
func verifyPebble(dir string, table func(string) error, st *VerifyStats) error {
	manifest, err := currentManifest(dir)
	if err != nil {
		return err
	}
	minLog := uint64(0)
	if manifest != "" {
		path := filepath.Join(dir, manifest)
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("raftlog: verify: %w", err)
		}
		st.Manifests++
		c, err := checkLog(b, 0, func(rec []byte) error {
			if n, ok := editLogNumber(rec); ok {
				minLog = n
			}
			return nil
		})
		if err == nil && c.Records == 0 {
			err = errors.New("no version edit reads")
		}
		if err != nil {
			return &CorruptError{Path: path, Detail: "MANIFEST: " + err.Error()}
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("raftlog: verify: %w", err)
	}
	for _, e := range ents {
		path := filepath.Join(dir, e.Name())
		num, kind := fileNum(e.Name())
		switch {
		case kind == "log" && num >= minLog:
			b, err := os.ReadFile(path)
			if err != nil {
				return fmt.Errorf("raftlog: verify: %w", err)
			}
			st.Logs++
			st.LogBytes += int64(len(b))
			if _, err := checkLog(b, uint32(num), nil); err != nil {
				return &CorruptError{Path: path, Detail: "WAL: " + err.Error()}
			}
		case kind == "sst":
			if fi, err := e.Info(); err == nil {
				st.TableBytes += fi.Size()
			}
			st.Tables++
			if err := table(path); err != nil {
				var ce *CorruptError
				if errors.As(err, &ce) {
					return ce
				}
				return tableFinding(path, err)
			}
		}
	}
	return nil
}

// fileNum parses a Pebble file name, 000123.sst or 000123.log.
func fileNum(name string) (uint64, string) {
	base, ext, ok := strings.Cut(name, ".")
	if !ok || (ext != "sst" && ext != "log") {
		return 0, ""
	}
	n, err := strconv.ParseUint(base, 10, 64)
	if err != nil {
		return 0, ""
	}
	return n, ext
}

// currentManifest names the MANIFEST a store opens: the one its newest
// manifest marker names (Pebble v2), or CURRENT's (old Pebble).
func currentManifest(dir string) (string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("raftlog: verify: %w", err)
	}
	best, bestIter := "", int64(-1)
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), "marker.manifest.")
		if !ok {
			continue
		}
		iter, name, _ := strings.Cut(rest, ".")
		if n, err := strconv.ParseInt(iter, 10, 64); err == nil && n > bestIter && name != "" {
			best, bestIter = name, n
		}
	}
	if best != "" {
		return best, nil
	}
	path := filepath.Join(dir, "CURRENT")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("raftlog: verify: %w", err)
	}
	name := strings.TrimSuffix(string(b), "\n")
	if !strings.HasPrefix(name, "MANIFEST-") || strings.ContainsAny(name, "/\n\x00") {
		return "", &CorruptError{Path: path, Detail: fmt.Sprintf("CURRENT names %q, not a MANIFEST", name)}
	}
	return name, nil
}

// editLogNumber reads a version edit's log number (the WALs below it are
// flushed), when it sets one. Pebble writes the fields with a fixed tag
// order: the comparer, the log number, the previous log number, the next
// file number, the last sequence, then the files; the log number is read
// before the first tag this does not parse.
func editLogNumber(rec []byte) (uint64, bool) {
	r := bufio.NewReader(bytes.NewReader(rec))
	for {
		tag, err := binary.ReadUvarint(r)
		if err != nil {
			return 0, false
		}
		switch tag {
		case 1: // comparer name
			n, err := binary.ReadUvarint(r)
			if err != nil || n > uint64(len(rec)) {
				return 0, false
			}
			if _, err := io.CopyN(io.Discard, r, int64(n)); err != nil {
				return 0, false
			}
		case 2: // log number
			n, err := binary.ReadUvarint(r)
			return n, err == nil
		case 3, 4, 9: // next file number, last sequence, previous log number
			if _, err := binary.ReadUvarint(r); err != nil {
				return 0, false
			}
		default:
			return 0, false
		}
	}
}
