package controlplane

import (
	"errors"
	"strconv"

	"github.com/queen-mq/queen-go/contract"
	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/kvstore"
)

// isCode reports whether err is an *httpd.Error of code.
func isCode(err error, code string) bool {
	var e *httpd.Error
	return errors.As(err, &e) && e.Code == code
}

// quote quotes s for a message, clipped as every refusal clips.
func quote(s string) string { return strconv.Quote(contract.Clip(s)) }

// checkOp requires key to be at version v (0: absent).
func checkOp(key string, v uint64) kvstore.Op {
	e := int64(v)
	return kvstore.Op{Op: kvstore.OpCheck, Key: key, Expect: &e}
}
