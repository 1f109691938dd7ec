package check

import "testing"

func TestCheckSame(t *testing.T) {
	assertKinds(t, CheckSame("k", nil), nil)
	assertKinds(t, CheckSame("k", map[string]string{"n1": "3", "n2": "3", "n3": "3"}), nil)
	t.Run(KindDiverged, func(t *testing.T) {
		assertKinds(t, CheckSame("k", map[string]string{"n1": "3", "n2": "4", "n3": "3"}), []string{KindDiverged})
	})
}
