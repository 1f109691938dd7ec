package contract

import (
	"errors"
	"strings"
	"testing"
)

func TestNameCheck(t *testing.T) {
	cases := []struct {
		name    *Name
		in      string
		problem Problem // 0: valid
	}{
		{Queue, "orders", 0},
		{Queue, "zürich orders", 0},
		{Queue, "", ProblemEmpty},
		{Queue, strings.Repeat("q", 256), 0},
		{Queue, strings.Repeat("q", 257), ProblemTooLong},
		{Queue, strings.Repeat("q", 2<<20), ProblemTooLong},
		{Queue, "a/b", ProblemChar},
		{Queue, ".", ProblemDots},
		{Queue, "..", ProblemDots},
		{Queue, "...", 0},
		{Queue, "a\x00b", ProblemControl},
		{Queue, "a\nb", ProblemControl},
		{Queue, "a\u0085b", ProblemControl}, // C1
		{Queue, "a\x7fb", ProblemControl},   // DEL
		{Queue, "x\xff", ProblemInvalidUTF8},
		{Queue, "x\xed\xa0\x80", ProblemInvalidUTF8}, // a surrogate's UTF-8
		{Partition, "eu west/1", 0},
		{Partition, "..", ProblemDots},
		{Partition, strings.Repeat("p", 1024), 0},
		{Partition, strings.Repeat("p", 1025), ProblemTooLong},
		{ConsumerGroup, "__QUEUE_MODE__", 0},
		{ConsumerGroup, "g/1", ProblemChar},
		{TransactionID, "", 0},
		{TransactionID, "x\uFFFD", 0},
		{TransactionID, "x\xfe", ProblemInvalidUTF8},
		{TransactionID, "a\tb", ProblemControl},
		{TransactionID, strings.Repeat("t", 65536), ProblemTooLong},
		{KVNamespace, "app.v1_x-y", 0},
		{KVNamespace, "App", ProblemChar},
		{KVNamespace, ".app", ProblemChar},
		{KVNamespace, strings.Repeat("n", 65), ProblemTooLong},
		{KVKey, "a\tb/..", 0},
		{KVKey, "a\x00", ProblemControl},
		{KVKey, "\xc3", ProblemInvalidUTF8},
		{LockName, "job#1", ProblemChar},
		{SinkHold, "s3-main.v2", 0},
		{SinkHold, "s3 main", ProblemChar},
		{ID, "0195f3a2-7b4c-7d1e-9c2b-3f4a5b6c7d8e", 0},
		{ID, "a b", ProblemChar},
		{Tenant, "00000000-0000-0000-0000-000000000001", 0},
		{Tenant, "00000000-0000-0000-0000-00000000000g", ProblemNotUUID},
		{Tenant, "short", ProblemNotUUID},
	}
	for _, c := range cases {
		err := c.name.Check("", c.in)
		if c.problem == 0 {
			if err != nil {
				t.Errorf("%s %q: %v", c.name.Field, Clip(c.in), err)
			}
			continue
		}
		var ne *NameError
		if !errors.As(err, &ne) || ne.Problem != c.problem {
			t.Errorf("%s %q: %v, want problem %d", c.name.Field, Clip(c.in), err, c.problem)
			continue
		}
		if len(err.Error()) > 200 {
			t.Errorf("%s %q: message of %d bytes: %s", c.name.Field, Clip(c.in), len(err.Error()), err)
		}
	}
}

func TestNameErrorSaysWhere(t *testing.T) {
	err := Queue.Check("items[3].queue", strings.Repeat("q", 1<<20))
	want := `items[3].queue of 1048576 bytes is over 256 ("` + strings.Repeat("q", ClipBytes) + `"…)`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	if !err.(*NameError).TooLong() {
		t.Fatal("TooLong is false")
	}
}

func TestClipKeepsCharacters(t *testing.T) {
	s := strings.Repeat("a", ClipBytes-1) + "é" // é straddles the cut
	if got := Clip(s); got != strings.Repeat("a", ClipBytes-1) {
		t.Fatalf("Clip cut inside a character: %q", got)
	}
}

// FuzzNameCheck: a name Check accepts is valid UTF-8 within its bounds,
// and Check never panics.
func FuzzNameCheck(f *testing.F) {
	f.Add(0, "orders")
	f.Add(2, "eu west/1")
	f.Add(8, "a\x00")
	f.Fuzz(func(t *testing.T, kind int, s string) {
		if kind < 0 {
			kind = -kind
		}
		n := Names[kind%len(Names)]
		if err := n.Check("", s); err == nil {
			if len(s) < n.MinBytes || len(s) > n.MaxBytes {
				t.Fatalf("%s %q accepted", n.Field, s)
			}
			if strings.ToValidUTF8(s, "\uFFFD") != s {
				t.Fatalf("%s %q accepted, not valid UTF-8", n.Field, s)
			}
		}
	})
}
