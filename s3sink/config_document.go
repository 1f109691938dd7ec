package s3sink

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ParseDocument reads a control-plane tenant's sink settings (SINK-CONFIG.md
// §2b, the Doc field column): a JSON object of camelCase fields with the
// environment's defaults and ranges. queues is "*", names separated by
// commas, or a JSON array of names; targetMb is an integer or a string of
// one; pathStyle and enabled are JSON booleans; null or a blank string is
// unset.
//
// SecretKey is left empty: the secret travels beside the settings and the
// control plane fills it in from its sealed copy. enabled is the row's
// switch, kept by the control plane beside the settings; ParseDocument only
// checks that it is a boolean.
//
// Refused, with a *ConfigError naming the field: a document over
// MaxDocumentBytes, one that is not a JSON object, a field given twice, an
// unknown field, secretKey or any field named like a secret, partitions, a
// node-wide field (the sentence names its variable), and every value the
// environment would refuse. No sentence repeats an unknown field's value.
func ParseDocument(doc []byte) (*Settings, error) {
	if len(doc) > MaxDocumentBytes {
		return nil, &ConfigError{Msg: fmt.Sprintf("the settings are %d bytes: they fit in 32 KiB (%d bytes)", len(doc), MaxDocumentBytes)}
	}
	fields, err := confReadObject(doc)
	if err != nil {
		return nil, err
	}
	vals := make(map[string]confRaw, len(fields))
	for _, fv := range fields {
		key, refuse := fv.key, ""
		switch {
		case confDocField(key) != nil:
			vals[key] = fv.raw
		case key == "enabled":
			if fv.raw.set && fv.raw.kind != 'b' {
				refuse = fmt.Sprintf("enabled=%s is not a boolean. It is `true` or `false`", (&confParser{doc: true}).showTyped(fv.raw))
			}
		case key == cfSecretKey.doc:
			refuse = "secretKey is not a settings field: the secret key goes beside the settings, never inside them"
		case key == "partitions":
			refuse = "partitions is not supported: a window can only close below the safeTime that discovery reports " +
				"for the partitions it finds, so the sink discovers every partition of its queues itself"
		case confNodeField(key) != nil:
			refuse = fmt.Sprintf("%s is node-wide: set %s on every node", key, confNodeField(key).env)
		case confSecretLike(key):
			refuse = fmt.Sprintf("%s is not a settings field, and is named like a secret: the secret key goes beside the settings, "+
				"as secretKey, never inside them", confShow(key, true))
		default:
			refuse = fmt.Sprintf("%s is not a settings field. The fields are %s and enabled", confShow(key, true), confDocFieldNames())
		}
		if refuse != "" {
			return nil, &ConfigError{Var: key, Msg: refuse}
		}
	}
	p := &confParser{doc: true, get: func(f *confField) confRaw { return vals[f.doc] }}
	s := confSink(p, false)
	if p.err != nil {
		return nil, p.err
	}
	return s, nil
}

func confDocField(name string) *confField {
	for _, f := range confSinkFields {
		if f.doc == name && f != cfSecretKey {
			return f
		}
	}
	return nil
}

func confNodeField(name string) *confField {
	for _, f := range confNodeFields {
		if f.doc == name {
			return f
		}
	}
	return nil
}

func confDocFieldNames() string {
	var names []string
	for _, f := range confSinkFields {
		if f != cfSecretKey {
			names = append(names, f.doc)
		}
	}
	return strings.Join(names, ", ")
}

// confSecretLike reports a field name that looks like it carries a secret.
func confSecretLike(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "secret") || strings.Contains(n, "password")
}

type confDocValue struct {
	key string
	raw confRaw
}

// confReadObject reads doc as one JSON object, in order, refusing a field
// given twice.
func confReadObject(doc []byte) ([]confDocValue, error) {
	notObject := func(why string) error {
		return &ConfigError{Msg: "the settings are not a JSON object: " + why}
	}
	broken := func(err error) error {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return notObject("it ends before its closing }")
		}
		return notObject(err.Error())
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, notObject("the document is empty")
		}
		return nil, notObject(err.Error())
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, notObject("it does not start with {")
	}
	var out []confDocValue
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, broken(err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, broken(err)
		}
		if seen[key] {
			return nil, &ConfigError{Var: key, Msg: confShow(key, true) + " is given twice in the settings"}
		}
		seen[key] = true
		out = append(out, confDocValue{key, confClassify(raw)})
	}
	if _, err := dec.Token(); err != nil {
		return nil, broken(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, notObject("there is more after it")
	}
	return out, nil
}

// confClassify reads one field's JSON value; null and a blank string are
// unset.
func confClassify(raw json.RawMessage) confRaw {
	raw = bytes.TrimSpace(raw)
	switch raw[0] {
	case '"':
		var s string
		_ = json.Unmarshal(raw, &s) // the decoder checked the syntax
		s = strings.TrimSpace(s)
		return confRaw{set: s != "", text: s, kind: 's'}
	case 'n':
		return confRaw{}
	case 't', 'f':
		return confRaw{set: true, text: string(raw), kind: 'b'}
	case '[', '{':
		var b bytes.Buffer
		_ = json.Compact(&b, raw)
		kind := byte('o')
		if raw[0] == '[' {
			kind = 'a'
		}
		return confRaw{set: true, text: b.String(), kind: kind}
	}
	return confRaw{set: true, text: string(raw), kind: 'n'}
}

// confQueueArray reads a JSON array of queue names: strings, none empty,
// none *; a name listed twice counts once.
func confQueueArray(text string) ([]string, bool) {
	var items []json.RawMessage
	if json.Unmarshal([]byte(text), &items) != nil || len(items) == 0 {
		return nil, false
	}
	var queues []string
	for _, it := range items {
		var q string
		if json.Unmarshal(it, &q) != nil {
			return nil, false
		}
		if q = strings.TrimSpace(q); !confCheckQueueName(q) {
			return nil, false
		}
		queues = confAppendNew(queues, q)
	}
	return queues, true
}
