package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/queen-mq/queen-go/httpd/client"
)

// requestTimeout bounds a call that does not wait on purpose (a pop with
// --wait adds its own wait).
const requestTimeout = 30 * time.Second

// apiError is a non-2xx answer, printed as queenctl's one line
// "<METHOD> <path>: <status> <code>: <message>".
type apiError struct{ e *client.Error }

func (a *apiError) Error() string {
	e := a.e
	return fmt.Sprintf("%s %s: %d %s: %s", e.Method, e.Path, e.Status, e.Code, e.Message)
}

// Unwrap is the answer's *client.Error.
func (a *apiError) Unwrap() error { return a.e }

// answer is a 2xx answer.
type answer struct {
	Status int
	Body   []byte
}

// call sends method path?query with body (nil: none; []byte: as is; else
// JSON) and returns a 2xx answer; a non-2xx one is an *apiError unless
// its status is in ok. wait extends the timeout (a long poll).
func (c *cli) call(method, path string, query url.Values, body any, wait time.Duration, ok ...int) (answer, error) {
	target := path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	if _, err := url.Parse(c.base() + target); err != nil {
		return answer{}, usagef("--url %q: %v", c.url, err)
	}
	ctx, cancel := context.WithTimeout(c.ctx, requestTimeout+wait)
	defer cancel()
	api := &client.Client{Base: c.base(), Token: c.token, Tenant: c.tenant, HTTP: c.http}
	resp, b, err := api.Do(ctx, method, target, body, nil)
	if err != nil {
		var ce *client.ConnError
		if errors.As(err, &ce) {
			ce.Path = path
		}
		return answer{}, err
	}
	if resp.StatusCode/100 != 2 && !slices.Contains(ok, resp.StatusCode) {
		return answer{}, &apiError{client.NewError(method, path, resp.StatusCode, b)}
	}
	return answer{Status: resp.StatusCode, Body: b}, nil
}

// get is call GET, decoding a JSON answer into out (nil: none).
func (c *cli) get(path string, query url.Values, out any) (answer, error) {
	a, err := c.call(http.MethodGet, path, query, nil, 0)
	if err != nil {
		return a, err
	}
	return a, decode(a, path, out)
}

// send is call with method and body (no query, no wait), decoding a
// JSON answer into out (nil: none).
func (c *cli) send(method, path string, body, out any) (answer, error) {
	a, err := c.call(method, path, nil, body, 0)
	if err != nil {
		return a, err
	}
	return a, decode(a, path, out)
}

// show sends method path?query with body, decodes the answer into out
// and prints it: with --json as the broker wrote it, otherwise with
// table, which reads out.
func (c *cli) show(method, path string, query url.Values, body, out any, table func() error) error {
	a, err := c.call(method, path, query, body, 0)
	if err == nil {
		err = decode(a, path, out)
	}
	if err != nil {
		return err
	}
	if c.json {
		return c.printJSON(a.Body)
	}
	return table()
}

// decode decodes a's JSON body into out (nil: no decoding).
func decode(a answer, path string, out any) error {
	if out == nil || len(bytes.TrimSpace(a.Body)) == 0 {
		return nil
	}
	if err := json.Unmarshal(a.Body, out); err != nil {
		return fmt.Errorf("%s: the broker's answer is not what queenctl reads: %v", path, err)
	}
	return nil
}

// printJSON writes b, a JSON document, on stdout with one final newline.
func (c *cli) printJSON(b []byte) error {
	b = bytes.TrimRight(b, "\n")
	_, err := fmt.Fprintf(c.stdout, "%s\n", b)
	return err
}

// printValue writes v as one JSON document on stdout.
func (c *cli) printValue(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.printJSON(b)
}

// seg escapes one path segment.
func seg(s string) string { return url.PathEscape(s) }

// keyPath escapes a KV key for the …/kv/:ns/*key routes: each of its
// '/'-separated parts on its own.
func keyPath(key string) string {
	parts := strings.Split(key, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
