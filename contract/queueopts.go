package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
)

// OptionKind is the JSON type of a queue option.
type OptionKind uint8

const (
	OptionInt OptionKind = iota + 1
	OptionBool
	OptionString
)

// Option is one queue option of POST /api/v1/configure (API.md §8): its
// JSON type, its default on the configure path, and its bounds (the Range
// of an integer, the Name of a string).
type Option struct {
	Field   string
	Kind    OptionKind
	Default string // the default's JSON text
	Range   *Range // OptionInt
	Name    *Name  // OptionString
}

func intOption(field, def string, lo, hi int64, unit, doc string) *Option {
	return &Option{Field: field, Kind: OptionInt, Default: def, Range: &Range{Field: field, Min: lo, Max: hi, Unit: unit, Doc: doc}}
}

// tenYears bounds the options that are spans of time with no bound of
// their own: long enough for any retention, short enough that µs of it
// stay far inside int64.
const tenYears = 10 * 365 * 24 * 3600

// QueueOptionTable lists the known options, in the order answers show
// them. A configure refuses a known option of the wrong type or outside
// its range (400 bad_request naming it and the range); minPopWaitTime
// alone is clamped, as the contract says.
var QueueOptionTable = []*Option{
	intOption("priority", "0", -1<<31, 1<<31-1, "", "the queue's priority"),
	intOption("leaseTime", "300", 0, 604800, "s", "a pop's lease; 0: the default (300, or 60 on a queue a push created)"),
	intOption("retryLimit", "3", 0, 10000, "retries", "failed deliveries past the first before the DLQ"),
	intOption("retryDelay", "1000", 0, 604800000, "ms", "how long a failed message waits before it is delivered again"),
	intOption("maxSize", "0", 0, MaxSafeInteger, "records", "records the queue holds at most; 0: no bound"),
	intOption("ttl", "3600", 0, tenYears, "s", "kept for clients; this broker does not read it"),
	{Field: "deadLetterQueue", Kind: OptionBool, Default: "true"},
	{Field: "dlqAfterMaxRetries", Kind: OptionBool, Default: "true"},
	intOption("delayedProcessing", "0", 0, tenYears, "s", "a record is not delivered before it is this old"),
	intOption("windowBuffer", "0", 0, tenYears, "s", "a partition is not delivered until its last write is this old"),
	intOption("retentionSeconds", "0", 0, tenYears, "s", "with retentionEnabled, records older than this are deleted; 0: none"),
	intOption("completedRetentionSeconds", "0", 0, tenYears, "s", "records every group settled are deleted once this old; 0: never"),
	{Field: "retentionEnabled", Kind: OptionBool, Default: "false"},
	{Field: "encryptionEnabled", Kind: OptionBool, Default: "false"},
	intOption("maxWaitTimeSeconds", "0", 0, tenYears, "s", "records older than this are dropped unread; 0: never"),
	{Field: "minPopWaitTime", Kind: OptionInt, Default: "0", Range: &Range{Field: "minPopWaitTime", Min: 0, Max: 60000,
		Unit: "ms", Clamp: true, Doc: "kept for clients; clamped (API.md §8)"}},
	intOption("dedupWindowSeconds", "3600", 0, tenYears, "s", "how long a transactionId deduplicates; 0: off"),
	{Field: "retentionSinkHold", Kind: OptionString, Default: `""`, Name: SinkHold},
	intOption("retentionSinkHoldMaxSeconds", "604800", 60, 31536000, "s", "how far back the sink hold reaches at most"),
	{Field: "namespace", Kind: OptionString, Default: `""`, Name: QueueNamespace},
	{Field: "task", Kind: OptionString, Default: `""`, Name: QueueTask},
}

// OptionMaxQueueSize is the extra key of configure's answer: maxSize under
// the name 1.x answered it by.
const OptionMaxQueueSize = "maxQueueSize"

// FindOption returns the known option field, or nil.
func FindOption(field string) *Option {
	for _, o := range QueueOptionTable {
		if o.Field == field {
			return o
		}
	}
	return nil
}

// OptionError refuses an option of the wrong JSON type.
type OptionError struct {
	Field string
	Want  OptionKind
	Range *Range // OptionInt
}

func (e *OptionError) Error() string {
	switch e.Want {
	case OptionBool:
		return e.Field + " must be a boolean"
	case OptionString:
		return e.Field + " must be a string"
	}
	unit := ""
	if e.Range.Unit != "" {
		unit = " " + e.Range.Unit
	}
	return fmt.Sprintf("%s must be an integer in %d..%d%s", e.Field, e.Range.Min, e.Range.Max, unit)
}

// NormalizeOptions checks the options of a configure call, which are
// valid JSON, and renders the object to store: keys sorted, integers in
// their plain decimal form, minPopWaitTime clamped, null kept (it restores
// the default), unknown keys as sent. Errors are *OptionError,
// *RangeError or *NameError, naming the option.
func NormalizeOptions(patch map[string]json.RawMessage) ([]byte, error) {
	keys := make([]string, 0, len(patch))
	for k := range patch {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b := []byte{'{'}
	for i, k := range keys {
		v, err := normalizeOption(k, patch[k])
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(appendJSONString(b, k), ':'), v...)
	}
	return append(b, '}'), nil
}

func normalizeOption(k string, raw json.RawMessage) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	opt := FindOption(k)
	if opt == nil || string(raw) == "null" {
		return raw, nil
	}
	switch opt.Kind {
	case OptionBool:
		if string(raw) != "true" && string(raw) != "false" {
			return nil, &OptionError{Field: k, Want: OptionBool}
		}
		return raw, nil
	case OptionString:
		var s string
		if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
			return nil, &OptionError{Field: k, Want: OptionString}
		}
		if err := opt.Name.Check(k, s); err != nil {
			return nil, err
		}
		return appendJSONString(nil, s), nil
	}
	if len(raw) == 0 || raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return nil, &OptionError{Field: k, Want: OptionInt, Range: opt.Range}
	}
	n, err := opt.Range.Parse(k, raw)
	if err != nil {
		return nil, err
	}
	return strconv.AppendInt(nil, n, 10), nil
}

// QueueOptions are a queue's stored options, typed, with the defaults of
// the keys it lacks. Durations are in the unit their option counts.
type QueueOptions struct {
	Priority                    int64
	LeaseTime                   int64 // s, 0 resolved: 300, or 60 on a queue a push created
	RetryLimit                  int64
	RetryDelay                  int64 // ms
	MaxSize                     int64 // records; 0: no bound
	DeadLetterQueue             bool
	DLQAfterMaxRetries          bool
	DelayedProcessing           int64 // s
	WindowBuffer                int64 // s
	RetentionSeconds            int64
	CompletedRetentionSeconds   int64
	RetentionEnabled            bool
	EncryptionEnabled           bool
	MaxWaitTimeSeconds          int64
	DedupWindowSeconds          int64 // 0: off
	RetentionSinkHold           string
	RetentionSinkHoldMaxSeconds int64
	Namespace, Task             string
}

// The options' spans in µs, the unit of the broker clock (entry stamps)
// the state machine judges them on; every one is inside its range, so none
// overflows.

// LeaseMicros is leaseTime.
func (o QueueOptions) LeaseMicros() int64 { return Micros(o.LeaseTime) }

// RetryDelayMicros is retryDelay.
func (o QueueOptions) RetryDelayMicros() int64 { return MilliMicros(o.RetryDelay) }

// DelayMicros is delayedProcessing: a record is not delivered before its
// stamp plus this.
func (o QueueOptions) DelayMicros() int64 { return Micros(o.DelayedProcessing) }

// WindowBufferMicros is windowBuffer: a partition is not delivered until
// its last write is this old.
func (o QueueOptions) WindowBufferMicros() int64 { return Micros(o.WindowBuffer) }

// MaxWaitMicros is maxWaitTimeSeconds: older records are dropped unread;
// 0 off.
func (o QueueOptions) MaxWaitMicros() int64 { return Micros(o.MaxWaitTimeSeconds) }

// DeadLetters says a message out of retries is filed in the DLQ
// (deadLetterQueue and dlqAfterMaxRetries), not dropped.
func (o QueueOptions) DeadLetters() bool { return o.DeadLetterQueue && o.DLQAfterMaxRetries }

// PushCreatedLeaseTime is the lease of a queue a push created and no
// configure touched (stored options {}).
const PushCreatedLeaseTime = 60

// ParseQueueOptions reads a queue's stored options (a JSON object). It
// never refuses what a broker stored: a known option of the wrong type
// reads as its default, and an integer outside its range as the nearer
// bound, so arithmetic on the result cannot overflow. Stored options that
// are not a JSON object read as all defaults.
//
// It is the one decoding of queue options every reader uses (the queue
// log's push, consuming, timers, retention, the broker's reads), and each
// stored value is decoded once: the result is kept, by the stored bytes,
// for every later read of them (a pure function of the bytes, so the
// state machine's apply stays deterministic).
func ParseQueueOptions(stored []byte) QueueOptions {
	optionsCache.Lock()
	o, ok := optionsCache.m[string(stored)]
	optionsCache.Unlock()
	if ok {
		return o
	}
	o = parseQueueOptions(stored)
	optionsCache.Lock()
	if len(optionsCache.m) >= optionsCacheMax {
		optionsCache.m = nil // a new generation: the queues read now come back
	}
	if optionsCache.m == nil {
		optionsCache.m = make(map[string]QueueOptions, 256)
	}
	optionsCache.m[string(stored)] = o
	optionsCache.Unlock()
	return o
}

// optionsCacheMax bounds the stored option values ParseQueueOptions keeps
// decoded (a few hundred bytes each).
const optionsCacheMax = 4096

var optionsCache struct {
	sync.Mutex
	m map[string]QueueOptions
}

func parseQueueOptions(stored []byte) QueueOptions {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(stored, &m)
	o := QueueOptions{}
	get := func(k string) json.RawMessage {
		if v := bytes.TrimSpace(m[k]); len(v) > 0 && string(v) != "null" {
			return v
		}
		return json.RawMessage(FindOption(k).Default)
	}
	num := func(k string) int64 {
		opt := FindOption(k)
		n, err := ParseInteger(get(k))
		if err != nil {
			n, _ = ParseInteger([]byte(opt.Default))
		}
		return opt.Range.Bound(n)
	}
	flag := func(k string) bool {
		if v := get(k); string(v) == "true" || string(v) == "false" {
			return string(v) == "true"
		}
		return FindOption(k).Default == "true"
	}
	str := func(k string) string {
		var s string
		_ = json.Unmarshal(get(k), &s)
		return s
	}
	o.Priority = num("priority")
	o.LeaseTime = num("leaseTime")
	if o.LeaseTime == 0 {
		o.LeaseTime = 300
	}
	if len(m) == 0 && m != nil { // stored {}: a queue a push created
		o.LeaseTime = PushCreatedLeaseTime
	}
	o.RetryLimit, o.RetryDelay, o.MaxSize = num("retryLimit"), num("retryDelay"), num("maxSize")
	o.DeadLetterQueue, o.DLQAfterMaxRetries = flag("deadLetterQueue"), flag("dlqAfterMaxRetries")
	o.DelayedProcessing, o.WindowBuffer = num("delayedProcessing"), num("windowBuffer")
	o.RetentionSeconds, o.CompletedRetentionSeconds = num("retentionSeconds"), num("completedRetentionSeconds")
	o.RetentionEnabled, o.EncryptionEnabled = flag("retentionEnabled"), flag("encryptionEnabled")
	o.MaxWaitTimeSeconds, o.DedupWindowSeconds = num("maxWaitTimeSeconds"), num("dedupWindowSeconds")
	o.RetentionSinkHold = str("retentionSinkHold")
	o.RetentionSinkHoldMaxSeconds = num("retentionSinkHoldMaxSeconds")
	o.Namespace, o.Task = str("namespace"), str("task")
	return o
}

// WithDefaults renders stored options (a JSON object, or empty) with every
// known key: the stored value, or the default where the key is absent or
// null; then the unknown keys stored, sorted; then maxQueueSize (maxSize's
// value unless stored). It is configure's and the queue detail's answer.
func WithDefaults(stored []byte) ([]byte, error) {
	var m map[string]json.RawMessage
	if t := bytes.TrimSpace(stored); len(t) > 0 && string(t) != "null" {
		if err := json.Unmarshal(t, &m); err != nil || m == nil {
			return nil, fmt.Errorf("contract: stored options are not a JSON object")
		}
	}
	value := func(k, def string) []byte {
		if v := bytes.TrimSpace(m[k]); len(v) > 0 && string(v) != "null" {
			return v
		}
		return []byte(def)
	}
	b := []byte{'{'}
	for i, opt := range QueueOptionTable {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(append(b, '"'), opt.Field...), '"', ':'), value(opt.Field, opt.Default)...)
	}
	var extra []string
	for k := range m {
		if FindOption(k) == nil && k != OptionMaxQueueSize {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	for _, k := range extra {
		b = append(append(appendJSONString(append(b, ','), k), ':'), bytes.TrimSpace(m[k])...)
	}
	b = append(b, `,"`+OptionMaxQueueSize+`":`...)
	b = append(b, value(OptionMaxQueueSize, string(value("maxSize", "0")))...)
	return append(b, '}'), nil
}

// appendJSONString appends s as a JSON string as encoding/json writes it,
// but without escaping <, > and & (the broker's answers never do).
func appendJSONString(b []byte, s string) []byte {
	var w bytes.Buffer
	enc := json.NewEncoder(&w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(w.Bytes(), []byte{'\n'})...)
}
