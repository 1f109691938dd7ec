package s3sink

import "testing"

// TestConfigLast4: a KMS key id shows by its last 4 characters only, and
// one of 4 or fewer not at all (queen/config's TestConfigLogLine checks
// the boot line and every way of printing the settings).
func TestConfigLast4(t *testing.T) {
	if got := confLast4("abcd"); got != "…" {
		t.Errorf("a 4-character KMS key id shows as %q", got)
	}
}
