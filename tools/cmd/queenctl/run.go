package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/queen-mq/queen-go/tools/internal/progress"
)

// DefaultURL is the broker queenctl talks to without --url or $QUEEN_URL.
const DefaultURL = "http://localhost:6632"

// cli is one run of the command line: where it reads and writes, and the
// global settings.
type cli struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string

	url, token, tenant string
	json               bool
	http               *http.Client
	// line, when set, is the progress line (tests); nil: progress.Stderr.
	line *progress.Line
}

// usageError is a bad command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// errFailed is an error already reported on stdout or stderr (a check that
// failed, an ack not applied): exit status 1, nothing more to print.
var errFailed = errors.New("failed")

// commands are the subcommands by name.
var commands = map[string]func(c *cli, args []string) error{
	"status": (*cli).status,
	"queues": (*cli).queues,
	"push":   (*cli).push,
	"pop":    (*cli).pop,
	"ack":    (*cli).ack,
	"groups": (*cli).groups,
	"dlq":    (*cli).dlq,
	"kv":     (*cli).kv,
}

// run is the command line: args without the program name; it returns the
// exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	c := &cli{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv,
		url: DefaultURL, http: &http.Client{}}
	if v := getenv("QUEEN_URL"); v != "" {
		c.url = v
	}
	c.token, c.tenant = getenv("QUEEN_TOKEN"), getenv("QUEEN_TENANT")

	fs := c.flags("queenctl")
	if err := fs.Parse(args); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			err = &flagError{err}
		}
		return c.fail(err)
	}
	args = fs.Args()
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	name, rest := args[0], args[1:]
	if name == "help" || name == "-h" || name == "--help" {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if name == "lake" {
		return c.lake(rest)
	}
	cmd, ok := commands[name]
	if !ok {
		return c.fail(usagef("unknown command %q (queenctl help lists them)", name))
	}
	return c.fail(cmd(c, rest))
}

// fail reports err and returns the exit status it calls for.
func (c *cli) fail(err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(c.stdout, usage)
		return 0
	case errors.Is(err, errFailed):
		return 1
	case errors.As(err, &ue), isFlagError(err):
		fmt.Fprintf(c.stderr, "queenctl: %v\n", err)
		return 2
	default:
		fmt.Fprintf(c.stderr, "queenctl: %v\n", err)
		return 1
	}
}

// flagError is an error of a FlagSet's Parse.
type flagError struct{ err error }

func (e *flagError) Error() string { return e.err.Error() }
func (e *flagError) Unwrap() error { return e.err }

func isFlagError(err error) bool {
	var fe *flagError
	return errors.As(err, &fe)
}

// flags is a FlagSet with the global flags, for the command line before
// the command and for every command's own flags.
func (c *cli) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.url, "url", c.url, "broker URL")
	fs.StringVar(&c.token, "token", c.token, "bearer token")
	fs.StringVar(&c.tenant, "tenant", c.tenant, "tenant (x-queen-tenant)")
	fs.BoolVar(&c.json, "json", c.json, "print JSON")
	return fs
}

// parse parses args with fs, flags and positional arguments in any
// order (a "--" ends the flags), and returns the positional ones. want
// names them, for the usage error when their count is not between len of
// the required ones and max (-1: no limit).
func parse(fs *flag.FlagSet, args []string, min, max int, want string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, &flagError{fmt.Errorf("%s: %w", fs.Name(), err)}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	if len(pos) < min || (max >= 0 && len(pos) > max) {
		if max >= 0 && len(pos) > max {
			return nil, usagef("%s: unexpected argument %q (usage: %s %s)", fs.Name(), pos[max], fs.Name(), want)
		}
		return nil, usagef("%s: missing argument (usage: %s %s)", fs.Name(), fs.Name(), want)
	}
	return pos, nil
}

// sub splits a command with subcommands: the first argument when it is one
// of names, else "".
func sub(args []string, names ...string) (string, []string) {
	if len(args) > 0 {
		for _, n := range names {
			if args[0] == n {
				return n, args[1:]
			}
		}
	}
	return "", args
}

// base is the broker URL without a trailing slash.
func (c *cli) base() string { return strings.TrimRight(c.url, "/") }
