package main

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// status is `queenctl status`: GET /health (200 healthy, 503 settling:
// both are answers) and GET /status. --json prints
// {"health":<the /health answer>,"status":<the /status answer>}. The
// exit status is 1 when the node is not healthy.
func (c *cli) status(args []string) error {
	fs := c.flags("status")
	if _, err := parse(fs, args, 0, 0, ""); err != nil {
		return err
	}
	h, err := c.call(http.MethodGet, "/health", nil, nil, 0, http.StatusServiceUnavailable)
	if err != nil {
		return err
	}
	s, err := c.get("/status", nil, nil)
	if err != nil {
		return err
	}
	var health struct {
		Status string `json:"status"`
	}
	if err := decode(h, "/health", &health); err != nil {
		return err
	}
	if c.json {
		if err := c.printValue(map[string]json.RawMessage{"health": h.Body, "status": s.Body}); err != nil {
			return err
		}
	} else if err := c.printStatus(h.Body, s.Body); err != nil {
		return err
	}
	if health.Status != "healthy" {
		return errFailed
	}
	return nil
}

// printStatus writes the node's health and status as one aligned list of
// keys and values: every member of both answers, /status's "health"
// (which repeats /health's raft and disk blocks) left out.
func (c *cli) printStatus(health, status []byte) error {
	var st map[string]json.RawMessage
	if err := json.Unmarshal(status, &st); err != nil {
		return fmt.Errorf("/status: the broker's answer is not a JSON object: %v", err)
	}
	delete(st, "health")
	rest, _ := json.Marshal(st)
	rows := flatten(nil, "", health)
	rows = flatten(rows, "", rest)
	seen := map[string]bool{}
	t := newTable(c.stdout)
	for _, r := range rows {
		if seen[r[0]] {
			continue // version is in both
		}
		seen[r[0]] = true
		t.row(r[0], r[1])
	}
	return t.flush()
}
