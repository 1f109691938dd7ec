package contract

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Rule is the character rule of a kind of name.
type Rule uint8

const (
	// RuleLabel: valid UTF-8 without control characters (Unicode's C0, DEL
	// and C1) or '/', and not "." or "..". For names that travel as one
	// URL path segment (queues, consumer groups).
	RuleLabel Rule = iota + 1
	// RuleKey: valid UTF-8 without control characters, and not "." or
	// "..". '/' is allowed (percent-encode it as %2F in a path).
	RuleKey
	// RuleText: valid UTF-8 without control characters.
	RuleText
	// RuleKVKey: valid UTF-8 without NUL (API.md §5: other control
	// characters are a KV key's business).
	RuleKVKey
	// RuleKVNamespace: ^[a-z0-9][a-z0-9._-]*$ (API.md §5).
	RuleKVNamespace
	// RuleLockName: RuleText without '#' (API.md §6: '#' separates the
	// name from the slot in the lock's KV key).
	RuleLockName
	// RuleSinkName: [A-Za-z0-9._-] only (a retentionSinkHold).
	RuleSinkName
	// RuleID: printable ASCII without space or '/': ids the broker minted
	// (lease ids, dead letter ids, partition ids).
	RuleID
	// RuleUUID: a UUID in its canonical 36-character text.
	RuleUUID
)

// Name is one kind of name that enters the broker: its field, its bounds in
// bytes and its character rule. Names are compared as their exact bytes:
// nothing is folded, trimmed or replaced, so two names are the same name
// only when their bytes are.
type Name struct {
	// Field is how errors and docs call it ("queue", "partition", …).
	Field string
	// MinBytes and MaxBytes bound its length in bytes. MinBytes 0 means
	// the empty string is allowed (it reads as absent).
	MinBytes, MaxBytes int
	Rule               Rule
	// TooLong is how an answer over MaxBytes is coded: ErrNameTooLong
	// (413 name_too_long) unless the contract names another.
	TooLong TooLongCode
	// Doc says what the name is, for the table.
	Doc string
}

// TooLongCode is how a name over its MaxBytes is refused.
type TooLongCode uint8

const (
	// TooLongName: 413 name_too_long (API.md §0).
	TooLongName TooLongCode = iota
	// TooLongBadRequest: 400 bad_request (API.md §1 for transactionId).
	TooLongBadRequest
	// TooLongKVKey: 413 kv_key_too_large (API.md §5).
	TooLongKVKey
	// TooLongKVNamespace: 400 kv_bad_namespace (the namespace's pattern
	// bounds its length, API.md §5).
	TooLongKVNamespace
)

// The names that enter the broker. Every route and every applier checks a
// name against its entry here; nowhere else holds a bound of a name.
var (
	Tenant = &Name{Field: "tenant", MinBytes: 36, MaxBytes: 36, Rule: RuleUUID, TooLong: TooLongBadRequest,
		Doc: "x-queen-tenant; a UUID, stored in its lower-case form"}
	Queue = &Name{Field: "queue", MinBytes: 1, MaxBytes: 256, Rule: RuleLabel,
		Doc: "a queue"}
	Partition = &Name{Field: "partition", MinBytes: 1, MaxBytes: 1024, Rule: RuleKey,
		Doc: `a partition of a queue ("" reads as "Default"); '/' is allowed, as %2F in a path`}
	ConsumerGroup = &Name{Field: "consumerGroup", MinBytes: 1, MaxBytes: 256, Rule: RuleLabel,
		Doc: `a consumer group ("" reads as __QUEUE_MODE__)`}
	TransactionID = &Name{Field: "transactionId", MinBytes: 0, MaxBytes: 65535, Rule: RuleText, TooLong: TooLongBadRequest,
		Doc: `a producer's dedup id ("" reads as none); over the bound 400 bad_request (API.md §1)`}
	QueueNamespace = &Name{Field: "namespace", MinBytes: 0, MaxBytes: 256, Rule: RuleLabel,
		Doc: "a queue's namespace option, and pop's and messages' namespace filter"}
	QueueTask = &Name{Field: "task", MinBytes: 0, MaxBytes: 256, Rule: RuleLabel,
		Doc: "a queue's task option, and pop's and messages' task filter"}
	SinkHold = &Name{Field: "retentionSinkHold", MinBytes: 0, MaxBytes: 64, Rule: RuleSinkName, TooLong: TooLongBadRequest,
		Doc: "the S3 sink whose commit pointer holds retention back"}
	KVNamespace = &Name{Field: "ns", MinBytes: 1, MaxBytes: KVMaxNamespaceBytes, Rule: RuleKVNamespace, TooLong: TooLongKVNamespace,
		Doc: "a KV namespace: ^[a-z0-9][a-z0-9._-]{0,63}$"}
	KVKey = &Name{Field: "key", MinBytes: 1, MaxBytes: KVMaxKeyBytes, Rule: RuleKVKey, TooLong: TooLongKVKey,
		Doc: "a KV key, and a getPrefix prefix and after"}
	LockName = &Name{Field: "name", MinBytes: 1, MaxBytes: 256, Rule: RuleLockName,
		Doc: "a lock (API.md §6)"}
	LockOwner = &Name{Field: "owner", MinBytes: 0, MaxBytes: 256, Rule: RuleText,
		Doc: "a lock's owner (API.md §6)"}
	TimerKey = &Name{Field: "timerKey", MinBytes: 1, MaxBytes: 512, Rule: RuleKey,
		Doc: "a timer of a queue (API.md §7)"}
	TraceName = &Name{Field: "traceName", MinBytes: 1, MaxBytes: 256, Rule: RuleText, TooLong: TooLongBadRequest,
		Doc: "a trace's name (an element of traceNames, and by-name's path)"}
	TraceEventType = &Name{Field: "eventType", MinBytes: 0, MaxBytes: 64, Rule: RuleText, TooLong: TooLongBadRequest,
		Doc: `a trace event's type ("" reads as "info")`}
	ID = &Name{Field: "id", MinBytes: 1, MaxBytes: 128, Rule: RuleID, TooLong: TooLongBadRequest,
		Doc: "an id the broker minted: leaseId, a dead letter's id, partitionId"}
	StreamQuery = &Name{Field: "query", MinBytes: 1, MaxBytes: 248, Rule: RuleLabel, TooLong: TooLongBadRequest,
		Doc: `a stream query (its default consumer group is "streams.<name>", a consumerGroup)`}
	StreamConfigHash = &Name{Field: "config_hash", MinBytes: 1, MaxBytes: 128, Rule: RuleText, TooLong: TooLongBadRequest,
		Doc: "a stream query's operator-chain hash, compared as bytes"}
	StreamPartition = &Name{Field: "partition_id", MinBytes: 1, MaxBytes: 128, Rule: RuleID, TooLong: TooLongBadRequest,
		Doc: "the source partition a stream's state rows belong to (a popped message's partitionId)"}
	StreamStateKey = &Name{Field: "key", MinBytes: 1, MaxBytes: 1024, Rule: RuleKVKey, TooLong: TooLongBadRequest,
		Doc: "a stream state row's key (the SDK's keys hold U+001F)"}
)

// Names lists every kind of name, in the order the docs show them.
var Names = []*Name{Tenant, Queue, Partition, ConsumerGroup, TransactionID, QueueNamespace, QueueTask, SinkHold,
	KVNamespace, KVKey, LockName, LockOwner, TimerKey, TraceName, TraceEventType, ID,
	StreamQuery, StreamConfigHash, StreamPartition, StreamStateKey}

// Problem is what is wrong with a name.
type Problem uint8

const (
	ProblemEmpty Problem = iota + 1
	ProblemTooShort
	ProblemTooLong
	ProblemInvalidUTF8
	ProblemControl
	ProblemChar
	ProblemDots
	ProblemNotUUID
)

// NameError says why a name was refused. Field is where the caller found
// it ("items[3].queue"), Name its kind.
type NameError struct {
	Field   string
	Name    *Name
	Problem Problem
	// Len is the name's length in bytes.
	Len int
	// At is the byte offset of the bad character (ProblemInvalidUTF8,
	// ProblemControl, ProblemChar), and Char the character (RuneError for
	// invalid UTF-8).
	At   int
	Char rune
	// Value is the first ClipBytes of the name, for the message.
	Value string
}

// ClipBytes is the most of a refused value an error message quotes.
const ClipBytes = 64

// TooLong reports whether the name was refused for its length alone.
func (e *NameError) TooLong() bool { return e.Problem == ProblemTooLong }

func (e *NameError) Error() string {
	f := e.Field
	switch e.Problem {
	case ProblemEmpty:
		return f + " is empty"
	case ProblemTooShort:
		return fmt.Sprintf("%s %s is %d bytes, at least %d", f, Quote(e.Value), e.Len, e.Name.MinBytes)
	case ProblemTooLong:
		return fmt.Sprintf("%s of %d bytes is over %d (%s…)", f, e.Len, e.Name.MaxBytes, Quote(e.Value))
	case ProblemInvalidUTF8:
		return fmt.Sprintf("%s %s is not valid UTF-8 at byte %d", f, Quote(e.Value), e.At)
	case ProblemControl:
		return fmt.Sprintf("%s %s holds the control character %U at byte %d", f, Quote(e.Value), e.Char, e.At)
	case ProblemChar:
		return fmt.Sprintf("%s %s holds %q at byte %d, which %s names may not hold", f, Quote(e.Value), e.Char, e.At, e.Name.Field)
	case ProblemDots:
		return fmt.Sprintf("%s %s is not a name: \".\" and \"..\" are refused", f, Quote(e.Value))
	case ProblemNotUUID:
		return fmt.Sprintf("%s %s is not a UUID", f, Quote(e.Value))
	}
	return f + " is refused"
}

// Check reports whether s is a valid name of kind n; field is where the
// caller read it, for the error (n.Field when ""). The error is a
// *NameError.
func (n *Name) Check(field, s string) error {
	if field == "" {
		field = n.Field
	}
	fail := func(p Problem, at int, c rune) error {
		return &NameError{Field: field, Name: n, Problem: p, Len: len(s), At: at, Char: c, Value: Clip(s)}
	}
	switch {
	case s == "" && n.MinBytes > 0:
		return fail(ProblemEmpty, 0, 0)
	case len(s) > n.MaxBytes:
		// The length is checked before the characters: a 1 MiB name is
		// refused without reading it.
		if n.Rule == RuleUUID {
			return fail(ProblemNotUUID, 0, 0)
		}
		return fail(ProblemTooLong, 0, 0)
	case len(s) < n.MinBytes:
		if n.Rule == RuleUUID {
			return fail(ProblemNotUUID, 0, 0)
		}
		return fail(ProblemTooShort, 0, 0)
	}
	switch n.Rule {
	case RuleUUID:
		if !isUUID(s) {
			return fail(ProblemNotUUID, 0, 0)
		}
		return nil
	case RuleKVNamespace:
		for i := 0; i < len(s); i++ {
			c := s[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || i > 0 && (c == '.' || c == '_' || c == '-')) {
				return fail(ProblemChar, i, rune(c))
			}
		}
		return nil
	case RuleSinkName:
		for i := 0; i < len(s); i++ {
			c := s[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
				return fail(ProblemChar, i, rune(c))
			}
		}
		return nil
	case RuleID:
		for i := 0; i < len(s); i++ {
			if c := s[i]; c <= ' ' || c >= 0x7f || c == '/' {
				return fail(ProblemChar, i, rune(c))
			}
		}
		return nil
	}
	for i := 0; i < len(s); {
		c, size := rune(s[i]), 1
		if c >= utf8.RuneSelf {
			c, size = utf8.DecodeRuneInString(s[i:])
			if c == utf8.RuneError && size == 1 {
				return fail(ProblemInvalidUTF8, i, c)
			}
		}
		switch {
		case n.Rule == RuleKVKey:
			if c == 0 {
				return fail(ProblemControl, i, c)
			}
		case unicode.IsControl(c):
			return fail(ProblemControl, i, c)
		case c == '/' && n.Rule == RuleLabel, c == '#' && n.Rule == RuleLockName:
			return fail(ProblemChar, i, c)
		}
		i += size
	}
	if (n.Rule == RuleLabel || n.Rule == RuleKey) && (s == "." || s == "..") {
		return fail(ProblemDots, 0, 0)
	}
	return nil
}

// isUUID reports whether s is 8-4-4-4-12 hex digits (either case).
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// Clip returns s cut to at most ClipBytes bytes on a character boundary.
func Clip(s string) string {
	if len(s) <= ClipBytes {
		return s
	}
	cut := ClipBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// Quote renders a value for an error message: Go-quoted, at most
// ClipBytes of it, with "…" and its length when it was longer.
func Quote(s string) string {
	if len(s) <= ClipBytes {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q… (%d bytes)", Clip(s), len(s))
}

func (r Rule) doc() string {
	switch r {
	case RuleLabel:
		return "UTF-8; no control characters, no `/`; not `.` or `..`"
	case RuleKey:
		return "UTF-8; no control characters; not `.` or `..`"
	case RuleText:
		return "UTF-8; no control characters"
	case RuleKVKey:
		return "UTF-8; no NUL"
	case RuleKVNamespace:
		return "`[a-z0-9]` then `[a-z0-9._-]`"
	case RuleLockName:
		return "UTF-8; no control characters, no `#`"
	case RuleSinkName:
		return "`[A-Za-z0-9._-]`"
	case RuleID:
		return "printable ASCII; no space, no `/`"
	case RuleUUID:
		return "a UUID"
	}
	return "?"
}

func (c TooLongCode) doc() string {
	switch c {
	case TooLongBadRequest:
		return "400 `bad_request`"
	case TooLongKVKey:
		return "413 `kv_key_too_large`"
	case TooLongKVNamespace:
		return "400 `kv_bad_namespace`"
	}
	return "413 `name_too_long`"
}

// Clipped is a value quoted in an error message: as a %q it renders as
// Quote does, and as a %s or %v at most ClipBytes of it are shown, so no
// message echoes a large input.
type Clipped string

// Format implements fmt.Formatter.
func (c Clipped) Format(f fmt.State, verb rune) {
	s := string(c)
	switch {
	case verb == 'q':
		fmt.Fprint(f, Quote(s))
	case len(s) > ClipBytes:
		fmt.Fprint(f, Clip(s)+"…")
	default:
		fmt.Fprint(f, s)
	}
}

// ClipArgs returns args with every string and byte slice in it Clipped:
// the arguments of an error message made with fmt.
func ClipArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			out[i] = Clipped(v)
		case []byte:
			out[i] = Clipped(v)
		default:
			out[i] = a
		}
	}
	return out
}
