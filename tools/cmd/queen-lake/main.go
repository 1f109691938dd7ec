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
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

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
  -endpoint URL      S3 endpoint, http(s)://host[:port] (required)
  -region NAME       SigV4 region (default us-east-1)
  -bucket NAME       bucket (required)
  -prefix PREFIX     key prefix (default queen)
  -path-style        bucket in the URL path (MinIO, versitygw)
  -access-key KEY    access key id (default $QUEEN_S3_ACCESS_KEY)
  -secret-key KEY    secret key (default $QUEEN_S3_SECRET_KEY)
  -tenant UUID       tenant (default 00000000-0000-0000-0000-000000000001)
  -queue NAME        queue (required)

verify flags:
  -broker URL        compare with this broker's log (POST /api/v1/partitions/changed, /api/v1/fetch)
  -broker-token JWT  bearer token for the broker
  -concurrency N     windows read at once (default 8)
  -max-problems N    problems printed at most, the rest counted (default 1000)

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
	cmd := args[0]
	if cmd != "ls" && cmd != "verify" {
		fmt.Fprintf(stderr, "queen-lake: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	fs := flag.NewFlagSet("queen-lake "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var cfg lake.Config
	fs.StringVar(&cfg.Endpoint, "endpoint", "", "")
	fs.StringVar(&cfg.Region, "region", lake.DefaultRegion, "")
	fs.StringVar(&cfg.Bucket, "bucket", "", "")
	fs.StringVar(&cfg.Prefix, "prefix", lake.DefaultPrefix, "")
	fs.BoolVar(&cfg.PathStyle, "path-style", false, "")
	fs.StringVar(&cfg.AccessKey, "access-key", getenv("QUEEN_S3_ACCESS_KEY"), "")
	fs.StringVar(&cfg.SecretKey, "secret-key", getenv("QUEEN_S3_SECRET_KEY"), "")
	fs.StringVar(&cfg.Tenant, "tenant", lake.DefaultTenant, "")
	fs.StringVar(&cfg.Queue, "queue", "", "")
	if cmd == "verify" {
		fs.StringVar(&cfg.Broker, "broker", "", "")
		fs.StringVar(&cfg.BrokerToken, "broker-token", "", "")
		fs.IntVar(&cfg.Concurrency, "concurrency", lake.DefaultConcurrency, "")
		fs.IntVar(&cfg.MaxProblems, "max-problems", lake.DefaultMaxProblems, "")
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, usage)
			return 0
		}
		fmt.Fprintf(stderr, "queen-lake %s: %v\n\n%s", cmd, err, usage)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "queen-lake %s: unexpected argument %q\n\n%s", cmd, fs.Arg(0), usage)
		return 2
	}
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(stderr, "queen-lake %s: %v\n", cmd, err)
		return 2
	}
	if cmd == "ls" {
		return ls(ctx, cfg, stdout, stderr)
	}
	return verify(ctx, cfg, stdout, stderr)
}

func ls(ctx context.Context, cfg lake.Config, stdout, stderr io.Writer) int {
	ws, err := lake.List(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "queen-lake ls:", err)
		return 1
	}
	if err := lake.WriteList(stdout, ws); err != nil {
		fmt.Fprintln(stderr, "queen-lake ls:", err)
		return 1
	}
	for _, w := range ws {
		if w.Err != nil {
			return 1
		}
	}
	return 0
}

func verify(ctx context.Context, cfg lake.Config, stdout, stderr io.Writer) int {
	r, err := lake.Verify(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "queen-lake verify:", err)
		return 1
	}
	if _, err := r.WriteTo(stdout); err != nil {
		return 1
	}
	if !r.OK() {
		return 1
	}
	return 0
}
