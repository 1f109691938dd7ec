package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// kvGetAnswer is the answer of GET /api/v1/kv/:ns/*key.
type kvGetAnswer struct {
	Found     bool            `json:"found"`
	Key       string          `json:"key"`
	Value     json.RawMessage `json:"value"`
	Version   json.Number     `json:"version"`
	ExpiresAt *string         `json:"expiresAt"`
	UpdatedAt *string         `json:"updatedAt"`
}

// kvPutAnswer is the answer of PUT /api/v1/kv/:ns/*key.
type kvPutAnswer struct {
	Applied bool            `json:"applied"`
	Reason  string          `json:"reason"`
	Key     string          `json:"key"`
	Value   json.RawMessage `json:"value"`
	Version json.Number     `json:"version"`
}

// kv is `queenctl kv get <ns> <key>` and `kv put <ns> <key> <json-value>
// --ttl SECONDS|forever`.
func (c *cli) kv(args []string) error {
	switch name, rest := sub(args, "get", "put"); name {
	case "get":
		return c.kvGet(rest)
	case "put":
		return c.kvPut(rest)
	}
	if len(args) == 0 {
		return usagef("kv: a command is required: get or put")
	}
	return usagef("kv: unknown command %q: get or put", args[0])
}

// kvGet is GET /api/v1/kv/:ns/*key. A key not found prints "not found" on
// stderr (and the answer with --json) and exits 1.
func (c *cli) kvGet(args []string) error {
	fs := c.flags("kv get")
	pos, err := parse(fs, args, 2, 2, "<ns> <key>")
	if err != nil {
		return err
	}
	path := "/api/v1/kv/" + seg(pos[0]) + "/" + keyPath(pos[1])
	var g kvGetAnswer
	a, err := c.get(path, nil, &g)
	if err != nil {
		return err
	}
	if c.json {
		if err := c.printJSON(a.Body); err != nil {
			return err
		}
	} else if g.Found {
		t := newTable(c.stdout)
		t.row("key", g.Key)
		t.row("value", string(g.Value))
		t.row("version", g.Version.String())
		t.row("expires", strp(g.ExpiresAt))
		t.row("updated", strp(g.UpdatedAt))
		if err := t.flush(); err != nil {
			return err
		}
	}
	if !g.Found {
		fmt.Fprintf(c.stderr, "queenctl: kv get %s %s: not found\n", pos[0], pos[1])
		return errFailed
	}
	return nil
}

// kvPut is PUT /api/v1/kv/:ns/*key with {"value", "ttlSeconds"} or
// {"value", "forever":true}: the broker wants exactly one expiry, so
// --ttl is required. A put not applied exits 1.
func (c *cli) kvPut(args []string) error {
	fs := c.flags("kv put")
	ttl := fs.String("ttl", "", "expiry: SECONDS, or forever")
	pos, err := parse(fs, args, 3, 3, "<ns> <key> <json-value> --ttl SECONDS|forever")
	if err != nil {
		return err
	}
	if !json.Valid([]byte(pos[2])) {
		return usagef("kv put: the value %q is not JSON", clip(pos[2], 40))
	}
	body := map[string]any{"value": json.RawMessage(pos[2])}
	switch n, err := strconv.ParseInt(*ttl, 10, 64); {
	case *ttl == "":
		return usagef("kv put: --ttl is required: SECONDS, or forever")
	case *ttl == "forever":
		body["forever"] = true
	case err != nil || n <= 0:
		return usagef("kv put: --ttl %q: must be a number of seconds above 0, or forever", *ttl)
	default:
		body["ttlSeconds"] = n
	}
	path := "/api/v1/kv/" + seg(pos[0]) + "/" + keyPath(pos[1])
	var p kvPutAnswer
	a, err := c.send(http.MethodPut, path, body, &p)
	if err != nil {
		return err
	}
	if c.json {
		if err := c.printJSON(a.Body); err != nil {
			return err
		}
	} else {
		t := newTable(c.stdout, "KEY", "APPLIED", "VERSION", "REASON")
		t.row(p.Key, strconv.FormatBool(p.Applied), p.Version.String(), orDash(p.Reason))
		if err := t.flush(); err != nil {
			return err
		}
	}
	if !p.Applied {
		return errFailed
	}
	return nil
}
