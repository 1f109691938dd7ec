package kvstore

import "time"

// FormatStamp renders a broker-clock stamp (µs since the epoch) as API.md
// §5 shows KV timestamps: UTC, the fraction's trailing zeros trimmed (and
// its dot with them), and an explicit +00:00, like
// 2026-09-22T10:15:30.1234+00:00.
func FormatStamp(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.999999") + "+00:00"
}
