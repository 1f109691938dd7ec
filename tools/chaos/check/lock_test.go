package check

import (
	"testing"
	"time"
)

// goodLock is a history CheckLock passes: client 1 held token 3 and
// released it, client 2 then held token 7 until its TTL ran out, and
// client 2's retry got the permit it held (token 7 again); the guarded
// writes applied in token order.
func goodLock() ([]Hold, []GuardedWrite) {
	holds := []Hold{
		{Client: 1, Lock: "l", Token: 3, Call: 0, Return: 10, From: 10, To: 100},
		{Client: 2, Lock: "l", Token: 7, Call: 90, Return: 120, From: 120, To: 2090},
		{Client: 2, Lock: "l", Token: 7, Call: 200, Return: 210, From: 210, To: 2090},
	}
	writes := []GuardedWrite{{Lock: "l", Token: 3, Version: 4}, {Lock: "l", Token: 7, Version: 8}, {Lock: "l", Token: 7, Version: 9}}
	return holds, writes
}

func TestCheckLock(t *testing.T) {
	t.Run("good", func(t *testing.T) {
		h, w := goodLock()
		assertKinds(t, CheckLock(h, w, 50*time.Nanosecond), nil)
	})
	for _, tt := range []struct {
		kind  string
		spoil func(h []Hold, w []GuardedWrite) ([]Hold, []GuardedWrite)
	}{
		{KindLockOverlap, func(h []Hold, w []GuardedWrite) ([]Hold, []GuardedWrite) {
			return append(h, Hold{Client: 3, Lock: "l", Token: 9, Call: 150, Return: 160, From: 160, To: 300}), w
		}},
		{KindTokenOrder, func(h []Hold, w []GuardedWrite) ([]Hold, []GuardedWrite) {
			return append(h, Hold{Client: 3, Lock: "l", Token: 5, Call: 3000, Return: 3010, From: 3010, To: 3100}), w
		}},
		{KindGuard, func(h []Hold, w []GuardedWrite) ([]Hold, []GuardedWrite) {
			return h, append(w, GuardedWrite{Lock: "l", Token: 3, Version: 10})
		}},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			h, w := tt.spoil(goodLock())
			got := CheckLock(h, w, 50*time.Nanosecond)
			assertKinds(t, got, []string{tt.kind})
			for _, a := range got {
				t.Log(a)
			}
		})
	}
}
