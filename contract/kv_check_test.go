package contract

import "testing"

func TestIsJSONNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "-0": true, "12": true, "1.5": true, "-0.25": true, "1e5": true, "1E+5": true, "2.5e-3": true,
		"": false, "-": false, "01": false, "1.": false, ".5": false, "+1": false, "1e": false, "1e+": false,
		"NaN": false, "Infinity": false, "0x10": false, " 1": false, "1 ": false, `"1"`: false, "null": false,
	} {
		if got := IsJSONNumber(s); got != want {
			t.Errorf("IsJSONNumber(%q) = %v", s, got)
		}
	}
}
