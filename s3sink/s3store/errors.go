package s3store

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"

	"github.com/queen-mq/queen-go/s3sink/objstore"
)

// classify wraps an SDK error with the operation and the key, adding the
// class the sink branches on (objstore.ErrNotFound, objstore.ErrAccessDenied)
// in front of it when there is one.
func classify(op, key string, err error) error {
	switch errorClass(err) {
	case objstore.ErrNotFound:
		return fmt.Errorf("s3store: %s %s: %w: %w", op, key, objstore.ErrNotFound, err)
	case objstore.ErrAccessDenied:
		return fmt.Errorf("s3store: %s %s: %w: %w", op, key, objstore.ErrAccessDenied, err)
	}
	return fmt.Errorf("s3store: %s %s: %w", op, key, err)
}

// errorClass is objstore.ErrNotFound, objstore.ErrAccessDenied or nil (not a
// class: transient from the sink's view).
func errorClass(err error) error {
	var api smithy.APIError
	code := ""
	if errors.As(err, &api) {
		code = api.ErrorCode()
	}
	switch code {
	case "NoSuchUpload":
		// The upload went away under us (aborted, or expired by a
		// lifecycle rule): a new PutMultipart starts over, so it is
		// transient, not a missing key or bucket.
		return nil
	case "RequestTimeTooSkewed":
		// A 403 about this node's clock, not about the credentials.
		return nil
	case "NoSuchKey", "NoSuchBucket", "NotFound":
		return objstore.ErrNotFound
	case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch":
		return objstore.ErrAccessDenied
	case "XAdminUserNotFound":
		// versitygw's answer to an unknown access key: a 404 that is about
		// the credentials, not the key. (To a HEAD it is a bare 404.)
		return objstore.ErrAccessDenied
	}
	// A HEAD answer has no body, hence no code: the status says it.
	var status interface{ HTTPStatusCode() int }
	if errors.As(err, &status) {
		switch status.HTTPStatusCode() {
		case http.StatusNotFound:
			return objstore.ErrNotFound
		case http.StatusForbidden:
			return objstore.ErrAccessDenied
		}
	}
	return nil
}

// meteredClient reports every HTTP request the SDK sends: every attempt,
// with its status, or 0 when no answer came.
type meteredClient struct {
	next   s3.HTTPClient
	report func(operation string, status int)
}

func (c meteredClient) Do(req *http.Request) (*http.Response, error) {
	resp, err := c.next.Do(req)
	status := 0
	if err == nil {
		status = resp.StatusCode
	}
	// The SDK builds the request with the operation's stack context.
	c.report(middleware.GetOperationName(req.Context()), status)
	return resp, err
}
