package raftlog

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// A strict reader of Pebble's logs, the WALs and the MANIFEST: the
// LevelDB log format, in 32 KiB blocks of chunks, each with a masked
// CRC-32C over its type and payload. Three chunk headers exist: legacy
// (7 bytes: crc, length, type 1..4; the MANIFEST), recyclable (11: and
// the log's number, types 5..8; old Pebble's WALs, so a recycled file's
// stale chunks of an earlier log are told apart) and walSync (19: and a
// synced offset, types 9..12; Pebble v2's WALs). The old Pebble that
// dragonboat's raft log store runs and Pebble v2 write the same format;
// this reader parses both.
//
// Pebble reads the last WAL leniently: the first chunk that does not
// check ends the log, as a write torn by a crash would. A bit flip in the
// middle of the last WAL reads the same way, and the fsynced entries
// after it vanish without a word (raft then sees a log, a term and a vote
// from the past). checkLog tells the two apart the only way the format
// allows: a torn write is the log's end, so a chunk of the same log that
// checks after the bad one means the bad one was corruption.
//
// What it cannot tell: a flip in the very last chunk of a log reads as a
// torn write (nothing valid follows it). The loss is then what a torn
// write would lose, the last write.

const (
	logBlockSize     = 32 << 10
	legacyHeader     = 7
	recyclableHeader = legacyHeader + 4
	walSyncHeader    = recyclableHeader + 8
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// maskedCRC is Pebble's chunk checksum (internal/crc: LevelDB's mask).
func maskedCRC(b []byte) uint32 {
	c := crc32.Checksum(b, crcTable)
	return (c>>15 | c<<17) + 0xa282ead8
}

// chunk kinds by type byte: 0 none, 1 legacy, 2 recyclable, 3 walSync.
func chunkFormat(typ byte) (format, header int) {
	switch {
	case typ >= 1 && typ <= 4:
		return 1, legacyHeader
	case typ >= 5 && typ <= 8:
		return 2, recyclableHeader
	case typ >= 9 && typ <= 12:
		return 3, walSyncHeader
	}
	return 0, 0
}

// chunkAt parses the chunk at off: its payload's end and its position
// (1 full, 2 first, 3 middle, 4 last). ok is false when no chunk of log
// logNum that checks starts there; eof is true for the trailer a closed
// log ends with (a recyclable chunk of log logNum+1).
func chunkAt(b []byte, off int, logNum uint32, wantFormat int) (end, pos int, eof, ok bool) {
	blockEnd := min((off/logBlockSize+1)*logBlockSize, len(b))
	if blockEnd-off < legacyHeader {
		return 0, 0, false, false
	}
	crc := binary.LittleEndian.Uint32(b[off:])
	length := int(binary.LittleEndian.Uint16(b[off+4:]))
	typ := b[off+6]
	format, header := chunkFormat(typ)
	if format == 0 || (wantFormat != 0 && format != wantFormat) || off+header > blockEnd {
		return 0, 0, false, false
	}
	if format >= 2 {
		if n := binary.LittleEndian.Uint32(b[off+7:]); n != logNum {
			return 0, 0, n == logNum+1, false
		}
	}
	end = off + header + length
	if end > blockEnd || maskedCRC(b[off+6:end]) != crc {
		return 0, 0, false, false
	}
	return end, int(typ-1)%4 + 1, false, true
}

// logCheck is what checkLog found: the records, where the log ends, and
// whether a torn tail was cut there.
type logCheck struct {
	Records int
	End     int  // the offset past the last good chunk
	Torn    bool // a chunk that does not check ends the log there
}

// checkLog reads log logNum (the file number; 0 for a MANIFEST) from b,
// handing each whole record to each (nil: records are only counted). A
// chunk that does not check is the log's end when nothing of the log
// checks after it; otherwise it is corruption, and the error says where.
func checkLog(b []byte, logNum uint32, each func(rec []byte) error) (logCheck, error) {
	var c logCheck
	var rec []byte
	format := 0 // the log's chunk format, from its first chunk
	off := 0
	for off < len(b) {
		blockEnd := min((off/logBlockSize+1)*logBlockSize, len(b))
		if blockEnd-off < recyclableHeader && allZero(b[off:blockEnd]) {
			off = blockEnd // a block's padding
			continue
		}
		end, pos, eof, ok := chunkAt(b, off, logNum, format)
		if eof {
			c.End = off
			return c, nil
		}
		if !ok {
			break
		}
		if format == 0 {
			format, _ = chunkFormat(b[off+6])
		}
		payload := b[off+headerOf(b[off+6]) : end]
		switch pos {
		case 1:
			rec = append(rec[:0], payload...)
			if err := c.record(rec, each); err != nil {
				return c, err
			}
			rec = rec[:0]
		case 2:
			rec = append(rec[:0], payload...)
		case 3:
			rec = append(rec, payload...)
		case 4:
			rec = append(rec, payload...)
			if err := c.record(rec, each); err != nil {
				return c, err
			}
			rec = rec[:0]
		}
		off = end
		c.End = off
	}
	if off >= len(b) {
		return c, nil
	}
	// The chunk at off does not check: the log's torn end, unless the
	// log goes on after it.
	for o := off + 1; o+legacyHeader <= len(b); o++ {
		if _, _, _, ok := chunkAt(b, o, logNum, format); ok {
			if unwrittenBetween(b, off, o, logNum) {
				break // a power loss's tail, written out of page order
			}
			return c, fmt.Errorf("the chunk at offset %d does not check, and a chunk of the same log at offset %d does: not a torn write", off, o)
		}
	}
	c.Torn = !allZero(b[off:])
	return c, nil
}

// pageSize is the file system's page: what a power loss keeps or drops
// whole, and not necessarily in order.
const pageSize = 4096

// unwrittenBetween says whether b[from:to) holds a page the log's writer
// never got to disk: an aligned page of zeros (a preallocated file's), or
// a chunk of another log that checks (a recycled file's old content). A
// power loss leaves such a page between the last synced chunk and later
// pages the kernel happened to write first, and those pages hold chunks
// of the same log that check: a torn tail, not a flip, which changes a
// bit and makes neither.
func unwrittenBetween(b []byte, from, to int, logNum uint32) bool {
	for p := (from + pageSize - 1) / pageSize * pageSize; p+pageSize <= to; p += pageSize {
		if allZero(b[p : p+pageSize]) {
			return true
		}
	}
	for p := from; p+recyclableHeader <= to; p++ {
		if format, _ := chunkFormat(b[p+6]); format >= 2 {
			if n := binary.LittleEndian.Uint32(b[p+7:]); n != logNum {
				if _, _, _, ok := chunkAt(b, p, n, format); ok {
					return true
				}
			}
		}
	}
	return false
}

func (c *logCheck) record(rec []byte, each func([]byte) error) error {
	c.Records++
	if each == nil {
		return nil
	}
	return each(rec)
}

func headerOf(typ byte) int { _, h := chunkFormat(typ); return h }

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}
