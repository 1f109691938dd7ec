package lake

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/queen-mq/queen-go/tools/internal/progress"
)

// Command is the command line of ls and verify, shared by queen-lake and
// queenctl lake: the flags RegisterFlags adds, then the run.
type Command struct {
	// Name prefixes every message: "queen-lake", "queenctl lake".
	Name string
	// Usage is printed after a usage error, and for -h.
	Usage string
	// Base holds the defaults the flags start from: Tenant, Broker and
	// BrokerToken (zero: the package defaults).
	Base Config
	// Progress, when set, becomes verify's Config.Progress; Done, when
	// set, is called once the verify run returned (to clear a progress
	// line before the report is printed).
	Progress func(Progress)
	Done     func()
}

// WithProgress is c with verify's progress shown on l (progress.Stderr():
// on a terminal only): objects checked of the total, their bytes, the time
// elapsed; the line is cleared before the report.
func (c Command) WithProgress(l *progress.Line) Command {
	if !l.On() {
		return c
	}
	c.Progress = func(p Progress) {
		l.Printf("%s verify: objects %d/%d, %s of %s, %s", c.Name, p.Objects, p.TotalObjects,
			progress.Bytes(p.Bytes), progress.Bytes(p.TotalBytes), l.Elapsed().Round(100*time.Millisecond))
	}
	c.Done = l.Clear
	return c
}

// Run runs args, which start with the command ("ls" or "verify"), and
// returns the exit status: 0 ok, 1 a check failed or the lake could not
// be read, 2 bad usage. getenv gives the keys' defaults.
func (c Command) Run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "%s: a command is required (ls or verify)\n\n%s", c.Name, c.Usage)
		return 2
	}
	cmd := args[0]
	if cmd != "ls" && cmd != "verify" {
		fmt.Fprintf(stderr, "%s: unknown command %q\n\n%s", c.Name, cmd, c.Usage)
		return 2
	}
	fs := flag.NewFlagSet(c.Name+" "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg := c.Base
	cfg.RegisterFlags(fs, getenv, cmd == "verify")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, c.Usage)
			return 0
		}
		fmt.Fprintf(stderr, "%s %s: %v\n\n%s", c.Name, cmd, err, c.Usage)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s %s: unexpected argument %q\n\n%s", c.Name, cmd, fs.Arg(0), c.Usage)
		return 2
	}
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(stderr, "%s %s: %v\n", c.Name, cmd, err)
		return 2
	}
	if cmd == "ls" {
		return c.ls(ctx, cfg, stdout, stderr)
	}
	return c.verify(ctx, cfg, stdout, stderr)
}

func (c Command) ls(ctx context.Context, cfg Config, stdout, stderr io.Writer) int {
	ws, err := List(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "%s ls: %v\n", c.Name, err)
		return 1
	}
	if err := WriteList(stdout, ws); err != nil {
		fmt.Fprintf(stderr, "%s ls: %v\n", c.Name, err)
		return 1
	}
	for _, w := range ws {
		if w.Err != nil {
			return 1
		}
	}
	return 0
}

func (c Command) verify(ctx context.Context, cfg Config, stdout, stderr io.Writer) int {
	cfg.Progress = c.Progress
	r, err := Verify(ctx, cfg)
	if c.Done != nil {
		c.Done()
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s verify: %v\n", c.Name, err)
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
