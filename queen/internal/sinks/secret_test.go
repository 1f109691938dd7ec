package sinks

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/s3sink/s3test"
)

// No secret's bytes appear in anything the supervisor logs (every level),
// in its status or in its metrics: not the environment's, not a
// control-plane row's before or after a rotation, not one sealed under
// another key, stored unsealed, or beside a refused document. The run
// goes against versitygw, whose refusals of a wrong signature are logged.
func TestNoSecretInLogsStatusOrMetrics(t *testing.T) {
	w := newWorld(t, s3test.Versitygw(t))
	fresh := func() string { return "secret-" + rand.Text() }
	wrong, other, unsealed, refused := fresh(), fresh(), fresh(), fresh()
	secrets := []string{w.srv.Secret, wrong, other, unsealed, refused}
	src := &fakeSource{}
	r := w.startWithEnv(src)
	withSecret := func(u Unit, secret []byte) Unit { u.SecretSealed = secret; return u }
	refusedRow := withSecret(w.row("refused", "0d000000-0000-4000-8000-00000000000d", 1), sealed(t, w.key, refused))
	refusedRow.Config = doc(w.srv, "lake", "maxWindowMs", 1)
	rest := []Unit{
		withSecret(w.row("other-key", tenantB, 1), sealed(t, newSealer(t, 2), other)),
		withSecret(w.row("unsealed", "0c000000-0000-4000-8000-00000000000c", 1), []byte(unsealed)),
		refusedRow,
	}
	src.set(append([]Unit{withSecret(w.row("acme", tenantA, 1), sealed(t, w.key, wrong))}, rest...)...)
	r.waitUnit("acme", "the wrong secret refused", func(u map[string]any) bool {
		bucket, _ := u["bucket"].(map[string]any)
		return bucket != nil && bucket["reachable"] == false
	})
	src.set(append([]Unit{w.row("acme", tenantA, 2)}, rest...)...)
	r.waitCommitted("acme", "the rotated secret's window")
	r.waitCommitted("", "the environment's window")
	for _, c := range []string{"other-key", "unsealed", "refused"} {
		if u := r.unit(c); phase(u) != "error" {
			t.Fatalf("%s: %v", c, u)
		}
	}
	status, _ := json.Marshal(r.status())
	metrics := r.metrics()
	r.sup.Drain()
	logs := r.logs.String()
	if !strings.Contains(logs, "SignatureDoesNotMatch") && !strings.Contains(logs, "403") {
		t.Errorf("the log does not show the refused signature, so the run did not log the store's errors:\n%s", logs)
	}
	for _, s := range secrets {
		for _, form := range []string{s, base64.StdEncoding.EncodeToString([]byte(s)), hex.EncodeToString([]byte(s))} {
			for what, text := range map[string]string{"log": logs, "status": string(status), "metrics": metrics} {
				if strings.Contains(text, form) {
					t.Errorf("the %s holds a secret (%q)", what, form)
				}
			}
		}
	}
}
