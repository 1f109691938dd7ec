package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/queen-mq/queen-go/httpd/wire"
)

// TenantHeader names the tenant of a request to a broker that reads it
// (QUEEN_TENANCY_HEADER).
const TenantHeader = "x-queen-tenant"

// Client is one broker's API. The zero value with Base set works; its
// fields must not change while calls are in flight.
type Client struct {
	// Base is the broker's URL without a trailing slash, as
	// "http://127.0.0.1:6632"; a call's path is appended to it.
	Base string
	// Token is sent as "Authorization: Bearer <Token>" when not "".
	Token string
	// Tenant is sent in TenantHeader when not "".
	Tenant string
	// HTTP sends the requests; nil: http.DefaultClient.
	HTTP *http.Client
}

// Do sends method Base+path with body and header, and returns the answer
// with its body read, whatever its status. body is nil or a nil []byte
// (none), []byte (sent as it is: JSON, or the binary push when it starts
// with wire.PushMagic) or any other value, sent as its JSON. header's values
// are set after the client's own, so a caller may override them. resp is
// nil when no answer came; err is then a *ConnError.
func (c *Client) Do(ctx context.Context, method, path string, body any, header http.Header) (resp *http.Response, raw []byte, err error) {
	req, err := c.request(ctx, method, path, body)
	if err != nil {
		return nil, nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err = hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, nil, &ConnError{Method: method, Path: path, URL: c.where(req), Err: err}
	}
	defer resp.Body.Close()
	raw, err = io.ReadAll(resp.Body)
	if err != nil {
		return resp, raw, &ConnError{Method: method, Path: path, URL: c.where(req), Err: err}
	}
	return resp, raw, nil
}

// Call is Do without extra headers; it decodes a 2xx JSON answer into
// out (nil: not decoded) and makes any status of 300 or more an *Error.
// code is the answer's status, 0 when none came.
func (c *Client) Call(ctx context.Context, method, path string, body, out any) (code int, err error) {
	resp, raw, err := c.Do(ctx, method, path, body, nil)
	if resp == nil {
		return 0, err
	}
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode >= 300 {
		return resp.StatusCode, NewError(method, path, resp.StatusCode, raw)
	}
	if out != nil && len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			return resp.StatusCode, fmt.Errorf("%s %s: %w: %.300s", method, path, err, raw)
		}
	}
	return resp.StatusCode, nil
}

// where names the broker a request went to: the client's Base, or the
// scheme and host of a full URL given as the path (Base empty).
func (c *Client) where(req *http.Request) string {
	if c.Base != "" {
		return c.Base
	}
	return req.URL.Scheme + "://" + req.URL.Host
}

// request builds the request of one call with the client's headers.
func (c *Client) request(ctx context.Context, method, path string, body any) (*http.Request, error) {
	var rd io.Reader
	contentType := "application/json"
	switch b := body.(type) {
	case nil:
	case []byte:
		if b == nil {
			break
		}
		rd = bytes.NewReader(b)
		if bytes.HasPrefix(b, []byte(wire.PushMagic)) {
			contentType = wire.PushContentType
		}
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return nil, fmt.Errorf("%s %s: encode the body: %w", method, path, err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, rd)
	if err != nil {
		return nil, err
	}
	if rd != nil {
		req.Header.Set("Content-Type", contentType)
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	if c.Tenant != "" {
		req.Header.Set(TenantHeader, c.Tenant)
	}
	return req, nil
}
