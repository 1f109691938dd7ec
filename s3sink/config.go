package s3sink

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ConfigError is a setting the sink refuses (SINK-CONFIG.md §2e): from
// ParseEnv, a variable that stops the boot (queen/config prints it as
// "ERROR boot: FATAL: QUEEN_S3_EMBEDDED=true: <Msg>"); from ParseDocument,
// a field of a control-plane document; from Validate, a setting built by
// hand. Msg is one sentence naming the variable (or field), the value and
// what is allowed; a document's never mentions QUEEN_S3_ except to name
// the variable a node-wide field belongs to.
type ConfigError struct {
	Var string // the variable or document field; "" for a document that is not a JSON object
	Msg string // the sentence
}

// Error returns the sentence alone, fit for a control-plane answer.
func (e *ConfigError) Error() string { return e.Msg }

// MaxDocumentBytes is the largest control-plane settings document.
const MaxDocumentBytes = 32 << 10

const mib = 1 << 20

// confField is one setting: its variable, its document field, the words
// of its sentences, and a number's range.
type confField struct {
	env, doc string
	kind     string // completes "is not …": "a format", "an S3 endpoint"
	accepted string // an enumeration's values, aliases in parentheses; "" for others
	what     string // completes "It is …"
	docWhat  string // what, when it differs in a document
	// A number's range lo..=hi, in the unit the variable counts: unit of
	// the setting's Go value (time.Millisecond, MiB; 0 reads as 1). One
	// range serves ParseEnv, ParseDocument and Validate.
	lo, hi, unit int64
}

// per is how many of the Go value's units one of the variable's is.
func (f *confField) per() int64 { return max(f.unit, 1) }

// inRange checks v, in the Go value's units, against the field's range.
func (f *confField) inRange(v int64) error {
	return confRange(f.env, v, f.lo*f.per(), f.hi*f.per(), f.per(), f.what)
}

// confRaw is one setting's value as read: an environment variable (trimmed)
// or a document field.
type confRaw struct {
	set  bool
	text string // the variable; a JSON string's content (trimmed); a JSON literal's text
	kind byte   // 'e' environment; in a document 's' string, 'n' number, 'b' bool, 'a' array, 'o' object
}

// confParser reads settings one by one; the first refusal sticks and the
// rest read as their defaults.
type confParser struct {
	doc bool // names are document fields
	get func(f *confField) confRaw
	err *ConfigError
}

func (p *confParser) name(f *confField) string {
	if p.doc {
		return f.doc
	}
	return f.env
}

func (p *confParser) what(f *confField) string {
	if p.doc && f.docWhat != "" {
		return f.docWhat
	}
	return f.what
}

func (p *confParser) fail(f *confField, format string, args ...any) {
	if p.err == nil {
		p.err = &ConfigError{Var: p.name(f), Msg: fmt.Sprintf(format, args...)}
	}
}

// show returns a value as a sentence prints it: a variable or a JSON
// string as it is, anything else as its JSON text. A document's value is
// cut at 64 characters; a value with a control character is quoted, so the
// sentence stays one line.
func (p *confParser) show(r confRaw) string { return confShow(r.text, p.doc) }

// showTyped is show, but a JSON string shows with its quotes: for a value
// refused for its JSON type, such as "true" for a boolean.
func (p *confParser) showTyped(r confRaw) string {
	if r.kind == 's' {
		return confShow(strconv.Quote(r.text), true)
	}
	return p.show(r)
}

func confShow(s string, cut bool) string {
	if cut && utf8.RuneCountInString(s) > 64 {
		s = string([]rune(s)[:64]) + "…"
	}
	if strings.IndexFunc(s, func(r rune) bool { return r == utf8.RuneError || unicode.IsControl(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// str reads a string setting; ok is false when it is unset or refused.
func (p *confParser) str(f *confField) (string, bool) {
	r := p.get(f)
	if !r.set {
		return "", false
	}
	if r.kind != 'e' && r.kind != 's' {
		p.fail(f, "%s=%s is not a string. It is %s", p.name(f), p.show(r), p.what(f))
		return "", false
	}
	return r.text, true
}

// required reads a string setting that must be set.
func (p *confParser) required(f *confField) string {
	if !p.get(f).set {
		p.fail(f, "%s is not set: it is %s", p.name(f), p.what(f))
		return ""
	}
	s, _ := p.str(f)
	return s
}

// requiredChecked reads a string setting that must be set and that check
// accepts.
func (p *confParser) requiredChecked(f *confField, check func(string) (string, bool)) string {
	if p.required(f) == "" {
		return ""
	}
	return p.checked(f, "", check)
}

// checked reads a string setting that check (nil: anything) accepts and
// returns in its normal form.
func (p *confParser) checked(f *confField, def string, check func(string) (string, bool)) string {
	s, ok := p.str(f)
	if !ok {
		return def
	}
	v, good := check(s)
	if !good {
		p.fail(f, "%s=%s is not %s. It is %s", p.name(f), p.show(p.get(f)), f.kind, p.what(f))
		return def
	}
	return v
}

// num reads a number setting in its field's range, def and the result in
// the Go value's units. In a document it is a JSON integer, or a string of
// one when numericString.
func (p *confParser) num(f *confField, def int64, numericString bool) int64 {
	return p.int(f, def/f.per(), f.lo, f.hi, numericString) * f.per()
}

// int reads a whole number in min..=max. In a document it is a JSON
// integer, or a string of one when numericString.
func (p *confParser) int(f *confField, def, min, max int64, numericString bool) int64 {
	r := p.get(f)
	if !r.set {
		return def
	}
	if r.kind != 'e' && r.kind != 'n' && !(r.kind == 's' && numericString) {
		p.fail(f, "%s=%s is not a whole number. It is %s, in %d..=%d", p.name(f), p.showTyped(r), p.what(f), min, max)
		return def
	}
	v, err := strconv.ParseInt(r.text, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		p.fail(f, "%s=%s is outside %d..=%d. It is %s", p.name(f), p.show(r), min, max, p.what(f))
	case err != nil:
		p.fail(f, "%s=%s is not a whole number. It is %s, in %d..=%d", p.name(f), p.show(r), p.what(f), min, max)
	case v < min || v > max:
		p.fail(f, "%s=%d is outside %d..=%d. It is %s", p.name(f), v, min, max, p.what(f))
	default:
		return v
	}
	return def
}

// bool reads true/1/yes/on or false/0/no/off in any case; in a document,
// a JSON boolean.
func (p *confParser) bool(f *confField, def bool) bool {
	r := p.get(f)
	if !r.set {
		return def
	}
	if r.kind == 'b' {
		return r.text == "true"
	}
	if v, ok := confParseBool(r.text); ok && r.kind == 'e' {
		return v
	}
	p.fail(f, "%s=%s is not a boolean. It is `true` or `false`", p.name(f), p.showTyped(r))
	return def
}

func confParseBool(s string) (v, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1", "yes", "on":
		return true, true
	case "false", "0", "no", "off":
		return false, true
	}
	return false, false
}

// confEnum reads one of an enumeration's values, in any case, through parse.
func confEnum[T any](p *confParser, f *confField, def T, parse func(string) (T, bool)) T {
	r := p.get(f)
	if !r.set {
		return def
	}
	if r.kind == 'e' || r.kind == 's' {
		if v, ok := parse(r.text); ok {
			return v
		}
	}
	p.fail(f, "%s=%s is not %s. It is one of %s: %s", p.name(f), p.show(r), f.kind, f.accepted, p.what(f))
	return def
}

// confLookup finds s, in any case, among names.
func confLookup[T any](names map[string]T) func(string) (T, bool) {
	return func(s string) (T, bool) {
		v, ok := names[strings.ToLower(strings.TrimSpace(s))]
		return v, ok
	}
}

// confCheckEndpoint accepts http:// or https:// and host[:port], with no
// path (a trailing / is dropped); it returns the endpoint with a lowercase
// scheme and no trailing /.
func confCheckEndpoint(s string) (string, bool) {
	scheme, rest, ok := strings.Cut(s, "://")
	scheme = strings.ToLower(scheme)
	if !ok || (scheme != "http" && scheme != "https") {
		return "", false
	}
	rest = strings.TrimSuffix(rest, "/")
	host, port := rest, ""
	if strings.HasPrefix(rest, "[") {
		end := strings.IndexByte(rest, ']')
		if end < 0 || !confIPv6(rest[1:end]) {
			return "", false
		}
		host, port = rest[:end+1], rest[end+1:]
		if port != "" && port[0] != ':' {
			return "", false
		}
		port = strings.TrimPrefix(port, ":")
		if port == "" && strings.HasSuffix(rest, ":") {
			return "", false
		}
	} else if h, pt, ok := strings.Cut(rest, ":"); ok {
		host, port = h, pt
		if port == "" {
			return "", false
		}
	}
	if host == "" {
		return "", false
	}
	if !strings.HasPrefix(host, "[") {
		for _, c := range []byte(host) {
			if !confHostByte(c) {
				return "", false
			}
		}
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || port[0] == '+' {
			return "", false
		}
	}
	return scheme + "://" + rest, true
}

func confHostByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_'
}

func confIPv6(s string) bool {
	if s == "" || !strings.Contains(s, ":") {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == ':' || c == '.') {
			return false
		}
	}
	return true
}

// confCheckBucket accepts a non-empty name with no / and no space.
func confCheckBucket(s string) (string, bool) {
	return s, s != "" && !strings.ContainsRune(s, '/') && strings.IndexFunc(s, confSpaceOrControl) < 0
}

// confCheckRegion accepts any label that can sit in a SigV4 credential
// scope: non-empty, with no / and no space.
func confCheckRegion(s string) (string, bool) { return confCheckBucket(s) }

func confSpaceOrControl(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }

// confCheckPrefix strips the prefix's outer slashes and accepts it when it
// holds no space (nor control character) and no segment is empty, . or ..
func confCheckPrefix(s string) (string, bool) {
	s = strings.Trim(s, "/")
	if s == "" || strings.IndexFunc(s, confSpaceOrControl) >= 0 {
		return "", false
	}
	for seg := range strings.SplitSeq(s, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", false
		}
	}
	return s, true
}

// confCheckSink accepts 1 to 64 characters of A-Z a-z 0-9 . _ -.
func confCheckSink(s string) (string, bool) {
	if s == "" || len(s) > 64 {
		return "", false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return "", false
		}
	}
	return s, true
}

// confCheckQueueName accepts a queue name of a list: trimmed, not empty,
// not *, no control character.
func confCheckQueueName(s string) bool {
	return s != "" && s != "*" && s == strings.TrimSpace(s) && strings.IndexFunc(s, unicode.IsControl) < 0
}

// confQueueList reads "*" or names separated by commas (spaces around them
// dropped, none empty); a name listed twice counts once.
func confQueueList(s string) (all bool, queues []string, ok bool) {
	if strings.TrimSpace(s) == "*" {
		return true, nil, true
	}
	for q := range strings.SplitSeq(s, ",") {
		if q = strings.TrimSpace(q); !confCheckQueueName(q) {
			return false, nil, false
		}
		queues = confAppendNew(queues, q)
	}
	return false, queues, true
}

func confAppendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
