//go:build unix

package raftlog

import (
	"fmt"
	"syscall"
)

// StatfsUsage returns the percent used of the file system holding dir, as
// df counts it: used blocks over those used and those available to an
// unprivileged writer (the blocks reserved for root count as neither).
func StatfsUsage(dir string) (float64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("raftlog: statfs %s: %w", dir, err)
	}
	used := float64(st.Blocks - st.Bfree)
	if total := used + float64(st.Bavail); total > 0 {
		return 100 * used / total, nil
	}
	return 0, nil
}
