package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// requestTimeout bounds a call that does not wait on purpose (a pop with
// --wait adds its own wait).
const requestTimeout = 30 * time.Second

// apiError is a non-2xx answer: the broker's {"error","code"} body (or
// the KV routes' {"error","reason","detail"}), or its text when it has no
// JSON body.
type apiError struct {
	Method, Path  string
	Status        int
	Code, Message string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%s %s: %d %s: %s", e.Method, e.Path, e.Status, e.Code, e.Message)
}

// newAPIError reads the error of an answer with status and body.
func newAPIError(method, path string, status int, body []byte) *apiError {
	e := &apiError{Method: method, Path: path, Status: status}
	var b struct {
		Error  string `json:"error"`
		Code   string `json:"code"`
		Reason string `json:"reason"`
		Detail string `json:"detail"`
	}
	if json.Unmarshal(body, &b) == nil && (b.Error != "" || b.Code != "") {
		e.Code, e.Message = b.Code, b.Error
		if e.Code == "" { // a KV error: its reason is the code
			e.Code = b.Reason
		}
		if b.Detail != "" {
			e.Message += ": " + b.Detail
		}
	} else {
		e.Message = strings.TrimSpace(string(body))
	}
	if e.Code == "" {
		e.Code = strings.ToLower(strings.ReplaceAll(http.StatusText(status), " ", "_"))
	}
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	return e
}

// connError is a broker that could not be reached.
type connError struct {
	Method, Path, URL string
	Err               error
}

func (e *connError) Error() string {
	return fmt.Sprintf("%s %s: cannot reach the broker at %s: %v", e.Method, e.Path, e.URL, e.Err)
}

func (e *connError) Unwrap() error { return e.Err }

// answer is a 2xx answer.
type answer struct {
	Status int
	Body   []byte
}

// call sends method path?query with body (nil: none; []byte: as is; else
// JSON) and returns a 2xx answer; a non-2xx one is an *apiError unless
// its status is in ok. wait extends the timeout (a long poll).
func (c *cli) call(method, path string, query url.Values, body any, wait time.Duration, ok ...int) (answer, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return answer{}, err
		}
		rd = bytes.NewReader(j)
	}
	target := c.base() + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	ctx, cancel := context.WithTimeout(c.ctx, requestTimeout+wait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return answer{}, usagef("--url %q: %v", c.url, err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.tenant != "" {
		req.Header.Set("x-queen-tenant", c.tenant)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return answer{}, &connError{Method: method, Path: path, URL: c.base(), Err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, &connError{Method: method, Path: path, URL: c.base(), Err: err}
	}
	if resp.StatusCode/100 != 2 {
		isOK := false
		for _, s := range ok {
			isOK = isOK || s == resp.StatusCode
		}
		if !isOK {
			return answer{}, newAPIError(method, path, resp.StatusCode, b)
		}
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
