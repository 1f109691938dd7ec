package httpd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// optionKind is the JSON type of a queue option.
type optionKind uint8

const (
	optInt optionKind = iota
	optBool
	optString
)

// queueOption is one option of POST /api/v1/configure with its default
// on the configure path (API.md §8).
type queueOption struct {
	name string
	kind optionKind
	def  string // the default's JSON text
}

// queueOptions are the known options, in the order answers list them.
var queueOptions = []queueOption{
	{"priority", optInt, "0"},
	{"leaseTime", optInt, "300"},
	{"retryLimit", optInt, "3"},
	{"retryDelay", optInt, "1000"},
	{"maxSize", optInt, "0"},
	{"ttl", optInt, "3600"},
	{"deadLetterQueue", optBool, "true"},
	{"dlqAfterMaxRetries", optBool, "true"},
	{"delayedProcessing", optInt, "0"},
	{"windowBuffer", optInt, "0"},
	{"retentionSeconds", optInt, "0"},
	{"completedRetentionSeconds", optInt, "0"},
	{"retentionEnabled", optBool, "false"},
	{"encryptionEnabled", optBool, "false"},
	{"maxWaitTimeSeconds", optInt, "0"},
	{"minPopWaitTime", optInt, "0"},
	{"dedupWindowSeconds", optInt, "3600"},
	{"retentionSinkHold", optString, `""`},
	{"retentionSinkHoldMaxSeconds", optInt, "604800"},
	{"namespace", optString, `""`},
	{"task", optString, `""`},
}

// The bounds of the options API.md §8 bounds.
const (
	MaxMinPopWaitTime              = 60000    // minPopWaitTime is clamped to 0..this
	MinRetentionSinkHoldMaxSeconds = 60       // retentionSinkHoldMaxSeconds below: refused
	MaxRetentionSinkHoldMaxSeconds = 31536000 // retentionSinkHoldMaxSeconds above: refused
	maxRetentionSinkHoldBytes      = 64
)

// optionMaxQueueSize is the extra key of configure's answer: maxSize
// under the name 1.x answered it by.
const optionMaxQueueSize = "maxQueueSize"

func findOption(name string) *queueOption {
	for i := range queueOptions {
		if queueOptions[i].name == name {
			return &queueOptions[i]
		}
	}
	return nil
}

// normalizeOptions type-checks the known options of a configure call and
// renders the object the broker gets: keys sorted, integers as integers,
// minPopWaitTime clamped, null kept (it restores the default), unknown
// keys as sent. Errors are 400 bad_request "<k> must be an integer" and
// the like.
func normalizeOptions(o object) (json.RawMessage, error) {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		v, err := normalizeOption(o, k)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(appendString(nil, k))
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func normalizeOption(o object, k string) ([]byte, error) {
	raw := o[k]
	opt := findOption(k)
	if opt == nil || isNull(raw) {
		return bytes.TrimSpace(raw), nil
	}
	switch opt.kind {
	case optBool:
		v, _, err := o.boolean(k, k)
		return strconv.AppendBool(nil, v), err
	case optString:
		v, _, err := o.str(k, k)
		if err != nil {
			return nil, err
		}
		if k == "retentionSinkHold" && !validSinkHold(v) {
			return nil, badRequest("retentionSinkHold %q must match [A-Za-z0-9._-]{0,64}", v)
		}
		return appendString(nil, v), nil
	}
	n, _, err := o.integer(k, k)
	if err != nil {
		return nil, err
	}
	switch k {
	case "minPopWaitTime":
		n = clamp(n, 0, MaxMinPopWaitTime)
	case "retentionSinkHoldMaxSeconds":
		if n < MinRetentionSinkHoldMaxSeconds || n > MaxRetentionSinkHoldMaxSeconds {
			return nil, badRequest("retentionSinkHoldMaxSeconds %d is outside %d..%d",
				n, MinRetentionSinkHoldMaxSeconds, MaxRetentionSinkHoldMaxSeconds)
		}
	}
	return strconv.AppendInt(nil, n, 10), nil
}

// validSinkHold reports whether s matches [A-Za-z0-9._-]{0,64}.
func validSinkHold(s string) bool {
	if len(s) > maxRetentionSinkHoldBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}

// withDefaults renders stored options with every known key: the stored
// value, or the default where the key is absent or null; then the
// unknown keys the broker kept, sorted; then maxQueueSize (maxSize's
// value unless stored). stored must be a JSON object or empty.
func withDefaults(stored json.RawMessage) (json.RawMessage, error) {
	var o object
	if len(bytes.TrimSpace(stored)) > 0 && !isNull(stored) {
		var err error
		if o, err = asObject(stored, "the stored options"); err != nil {
			return nil, fmt.Errorf("httpd: broker options: %w", err)
		}
	}
	b := []byte{'{'}
	value := func(k, def string) []byte {
		if v := o[k]; !isNull(v) {
			return bytes.TrimSpace(v)
		}
		return []byte(def)
	}
	for i, opt := range queueOptions {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendKey(b, opt.name)
		b = append(b, value(opt.name, opt.def)...)
	}
	extra := make([]string, 0)
	for k := range o {
		if findOption(k) == nil && k != optionMaxQueueSize {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	for _, k := range extra {
		b = append(b, ',')
		b = appendString(b, k)
		b = append(b, ':')
		b = append(b, bytes.TrimSpace(o[k])...)
	}
	b = append(b, ',')
	b = appendKey(b, optionMaxQueueSize)
	b = append(b, value(optionMaxQueueSize, string(value("maxSize", "0")))...)
	return append(b, '}'), nil
}
