package check

import "testing"

func TestCheckLosersSaw(t *testing.T) {
	assertKinds(t, CheckLosersSaw(nil, ""), nil)
	assertKinds(t, CheckLosersSaw([]string{"a", "a"}, "a"), nil)
	t.Run(KindLoserSaw, func(t *testing.T) {
		assertKinds(t, CheckLosersSaw([]string{"a", "b"}, "a"), []string{KindLoserSaw})
	})
}
