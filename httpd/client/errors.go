package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Error is an answer of status 300 or more.
type Error struct {
	Method, Path string
	Status       int
	// Code is the broker's error code: the body's "code", or a KV
	// refusal's "reason"; without either, the status text in snake case
	// ("not_found").
	Code string
	// Message is the body's "error" (with a KV refusal's ": <detail>"),
	// else the body's text, else the status text.
	Message string
	// Body is the answer's body as it came.
	Body []byte
}

// Error reads "<METHOD> <path>: <status> <body>", the body trimmed and
// cut at 300 bytes: enough to tell the refusal, short enough for a log.
func (e *Error) Error() string {
	return fmt.Sprintf("%s %s: %d %.300s", e.Method, e.Path, e.Status, bytes.TrimSpace(e.Body))
}

// NewError reads the error of an answer with status and body: the
// broker's {"error","code"} body, or the KV routes' {"error","reason",
// "detail"}, or a body that is not JSON.
func NewError(method, path string, status int, body []byte) *Error {
	e := &Error{Method: method, Path: path, Status: status, Body: body}
	var b struct {
		Error  string `json:"error"`
		Code   string `json:"code"`
		Reason string `json:"reason"`
		Detail string `json:"detail"`
	}
	if json.Unmarshal(body, &b) == nil && (b.Error != "" || b.Code != "") {
		e.Code, e.Message = b.Code, b.Error
		if e.Code == "" {
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

// ConnError is a call that got no answer, or lost it while reading.
type ConnError struct {
	Method, Path, URL string
	Err               error
}

func (e *ConnError) Error() string {
	return fmt.Sprintf("%s %s: cannot reach the broker at %s: %v", e.Method, e.Path, e.URL, e.Err)
}

// Unwrap is the transport's error.
func (e *ConnError) Unwrap() error { return e.Err }
