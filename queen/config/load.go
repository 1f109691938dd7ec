package config

import (
	"fmt"
	"strconv"
	"strings"
)

// BootError is a configuration the broker refuses to start with. Line is
// the one line the boot prints, as
//
//	ERROR boot: FATAL: <context>: <VAR>=<value> is outside <range>. <what it means>
type BootError struct {
	Context string // what was being read: "broker", or "QUEEN_S3_EMBEDDED=true"
	Var     string // the variable refused, when one is; "" for a refusal of several together
	Msg     string // the sentence naming the variable, its value and what is allowed
}

func (e *BootError) Error() string { return e.Context + ": " + e.Msg }

// Line returns the line the boot prints before it exits.
func (e *BootError) Line() string { return "ERROR boot: FATAL: " + e.Error() }

// loader reads variables one by one; the first refusal sticks and the rest
// read as their defaults.
type loader struct {
	get     func(string) string
	context string
	err     *BootError
}

// raw returns the variable's value, or "" when it is unset or blank.
func (l *loader) raw(name string) string { return strings.TrimSpace(l.get(name)) }

func (l *loader) fail(format string, args ...any) { l.failVar("", format, args...) }

// failVar is fail for a refusal of the variable name.
func (l *loader) failVar(name, format string, args ...any) {
	if l.err == nil {
		l.err = &BootError{Context: l.context, Var: name, Msg: fmt.Sprintf(format, args...)}
	}
}

// int reads a whole number in min..=max; what completes "It is …".
func (l *loader) int(name string, def, min, max int64, what string) int64 {
	s := l.raw(name)
	if s == "" {
		return def
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		l.failVar(name, "%s=%s is not a whole number. It is %s, in %d..=%d", name, s, what, min, max)
		return def
	}
	if v < min || v > max {
		l.failVar(name, "%s=%d is outside %d..=%d. It is %s", name, v, min, max, what)
		return def
	}
	return v
}

// bool reads true/1/yes/on or false/0/no/off, in any case.
func (l *loader) bool(name string, def bool, what string) bool {
	s := l.raw(name)
	if s == "" {
		return def
	}
	if v, ok := parseBool(s); ok {
		return v
	}
	l.failVar(name, "%s=%s is not a boolean. It is `true` or `false`: %s", name, s, what)
	return def
}

// parseBool reads true/1/yes/on or false/0/no/off, in any case.
func parseBool(s string) (v, ok bool) {
	switch strings.ToLower(s) {
	case "true", "1", "yes", "on":
		return true, true
	case "false", "0", "no", "off":
		return false, true
	}
	return false, false
}

// enum reads one of the names of values (lowercase keys; the value read
// ignores case) and returns the canonical value it maps to.
func (l *loader) enum(name, def, kind string, values map[string]string, accepted, what string) string {
	s := l.raw(name)
	if s == "" {
		return def
	}
	if v, ok := values[strings.ToLower(s)]; ok {
		return v
	}
	l.failVar(name, "%s=%s is not a %s. It is one of %s: %s", name, s, kind, accepted, what)
	return def
}

// str reads a string, with check (nil: anything) saying what is wrong.
func (l *loader) str(name, def string, check func(string) string) string {
	s := l.raw(name)
	if s == "" {
		return def
	}
	if check != nil {
		if why := check(s); why != "" {
			l.failVar(name, "%s=%s %s", name, s, why)
			return def
		}
	}
	return s
}
