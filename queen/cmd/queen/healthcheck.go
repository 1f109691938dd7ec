package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/queen-mq/queen-go/queen/config"
)

// healthTimeout bounds `queen healthcheck`'s one request: a container
// runtime's HEALTHCHECK gives it a few seconds at most.
const healthTimeout = 3 * time.Second

// healthcheck is `queen healthcheck`, for images with no shell or curl
// (deploy/Dockerfile's HEALTHCHECK): it asks this node's /health on
// 127.0.0.1:$PORT (or QUEEN_BIND_ADDR:$PORT when the node listens on one
// address only) and exits 0 on 200, 1 otherwise with one line on stderr
// saying why. It reads only PORT (default 6632) and QUEEN_BIND_ADDR,
// through the broker's own rules (config.Listen).
func healthcheck(getenv func(string) string, stderr io.Writer) int {
	port, bind, err := config.Listen(getenv)
	if err != nil {
		var be *config.BootError
		if errors.As(err, &be) && be.Var == "PORT" {
			fmt.Fprintf(stderr, "healthcheck: PORT=%s is not a port in 1..=65535\n", strings.TrimSpace(getenv("PORT")))
		} else {
			fmt.Fprintf(stderr, "healthcheck: %v\n", err)
		}
		return 1
	}
	// The node listens on QUEEN_BIND_ADDR (all addresses by default):
	// ask it there, or on the loopback when it listens on every address.
	host := "127.0.0.1"
	if ip := net.ParseIP(bind); !ip.IsUnspecified() {
		host = bind
	}
	url := "http://" + net.JoinHostPort(host, strconv.Itoa(port)) + "/health"
	if err := checkHealth(url, healthTimeout); err != nil {
		fmt.Fprintf(stderr, "healthcheck: %s: %v\n", url, err)
		return 1
	}
	return 0
}

// checkHealth GETs url within timeout: nil on 200, an error naming the
// status (and the start of the body) or the failure otherwise.
func checkHealth(url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", resp.Status, strings.Join(strings.Fields(string(body)), " "))
	}
	return nil
}

// runSubcommand runs `queen healthcheck` and exits; any other arguments
// fall through to the broker.
func runSubcommand(args []string) {
	if len(args) > 1 && args[1] == "healthcheck" {
		os.Exit(healthcheck(os.Getenv, os.Stderr))
	}
}
