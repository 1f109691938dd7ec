//go:build !unix

package raftlog

import (
	"errors"
	"runtime"
)

// StatfsUsage is not available on this system: set DiskConfig.Usage.
func StatfsUsage(string) (float64, error) {
	return 0, errors.New("raftlog: no statfs on " + runtime.GOOS + ": set DiskConfig.Usage")
}
