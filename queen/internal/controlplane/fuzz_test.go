package controlplane

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzSplitSinkBody: taking secretKey and enabled out of a sink's PUT body
// never panics, and what it keeps is exactly the rest of the object.
func FuzzSplitSinkBody(f *testing.F) {
	for _, s := range []string{
		`{"bucket":"b","secretKey":"s","enabled":false}`,
		`{"secretKey":"a","secretKey":"b"}`,
		`{"queues":["a","b"],"targetMb":"12","enabled":true}`,
		`{"secretKey":12}`, `[]`, `{}`, `{"a":{"secretKey":"inner"}}`, `{"a":1} {}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		doc, secret, hasSecret, enabled, err := splitSinkBody(body)
		if err != nil {
			return
		}
		var in map[string]any
		if json.Unmarshal(body, &in) != nil {
			t.Fatalf("%q: split, but it is not a JSON object", body)
		}
		var out map[string]any
		if err := json.Unmarshal(doc, &out); err != nil {
			t.Fatalf("%q: the document %q is not an object: %v", body, doc, err)
		}
		s, _ := in["secretKey"].(string)
		if hasSecret != (in["secretKey"] != nil) || secret != s || (hasSecret && (secret == "" || len(secret) > MaxSecretBytes)) {
			t.Fatalf("%q: secret %q (%v)", body, secret, hasSecret)
		}
		if e, ok := in["enabled"].(bool); enabled != (!ok || e) {
			t.Fatalf("%q: enabled %v", body, enabled)
		}
		delete(in, "secretKey")
		delete(in, "enabled")
		if !reflect.DeepEqual(in, out) {
			t.Fatalf("%q: kept %q", body, doc)
		}
	})
}
