// Command queen-lake reads the S3 lake of a Queen queue: ls lists its
// committed windows from their manifests, verify checks the lake (and,
// with -broker, compares it with the broker's log) and exits 0 only when
// every check passes. The logic is package lake; this is its command line.
//
//	queen-lake ls -endpoint http://127.0.0.1:9000 -bucket lake -path-style -queue orders
//	queen-lake verify -endpoint http://127.0.0.1:9000 -bucket lake -path-style -queue orders -broker http://127.0.0.1:6632
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/queen-mq/queen-go/tools/internal/progress"
	"github.com/queen-mq/queen-go/tools/lake"
)

const usage = `usage: queen-lake <command> [flags]

Commands:
  ls       list the committed windows of a queue, from their manifests:
           k, tStart, tEnd, records, bytes, objects, lost ranges; then a total
  verify   check the queue's lake: manifests, objects (size, sha256, records,
           stamps, order), windows 1..n without overlap, no record twice,
           rising offsets, orphans; with -broker, compare it with the
           broker's log. Exits 0 only when every check passes, else prints
           each problem and exits 1

Bucket flags (both commands):
` + lake.BucketFlagsUsage + `
verify flags:
` + lake.VerifyFlagsUsage + `
Exit status: 0 ok, 1 a check failed or the lake could not be read, 2 bad usage.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// run is the command line: args without the program name; it returns the
// exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, usage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	return lake.Command{Name: "queen-lake", Usage: usage}.WithProgress(progress.Stderr()).Run(ctx, args, stdout, stderr, getenv)
}
