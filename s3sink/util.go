package s3sink

import "strconv"

func itoa(n int) string { return strconv.Itoa(n) }
