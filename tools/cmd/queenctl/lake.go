package main

import (
	"fmt"

	"github.com/queen-mq/queen-go/tools/internal/progress"
	"github.com/queen-mq/queen-go/tools/lake"
)

// lake is `queenctl lake ls|verify [flags]`: queen-lake's commands, with
// its flags (lake.Command), -tenant defaulting to the global --tenant and
// -broker-token to --token. verify shows its progress on a terminal.
func (c *cli) lake(args []string) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprint(c.stdout, lakeUsage)
		return 0
	}
	cmd := lake.Command{Name: "queenctl lake", Usage: lakeUsage,
		Base: lake.Config{Tenant: c.tenant, BrokerToken: c.token, HTTPClient: c.http}}
	return cmd.WithProgress(c.progress()).Run(c.ctx, args, c.stdout, c.stderr, c.getenv)
}

// progress is the status line for long work: on stderr when it is a
// terminal (and stderr is the process's), else one that writes nothing.
func (c *cli) progress() *progress.Line {
	if c.line != nil {
		return c.line
	}
	return progress.Stderr()
}
