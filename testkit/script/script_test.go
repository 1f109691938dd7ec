package script

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	const file = "# a comment\n\nput k=1 bare\nline one\nline two\n----\nok\nv=1\n\nget k=1\n----\n"
	cs := Parse(t, "f.txt", file)
	if len(cs) != 5 || cs[0].isCmd || cs[1].isCmd || !cs[2].isCmd || cs[3].isCmd || !cs[4].isCmd {
		t.Fatalf("cases %+v: want a comment, a blank line, a case, a blank line, a case", cs)
	}
	put := cs[2]
	if put.Line != 3 || put.Cmd != "put" || !reflect.DeepEqual(put.Args, map[string]string{"k": "1", "bare": ""}) ||
		!reflect.DeepEqual(put.Input, []string{"line one", "line two"}) || put.Want != "ok\nv=1\n" {
		t.Fatalf("put case %+v", put)
	}
	if get := cs[4]; get.Line != 10 || get.Cmd != "get" || get.Input != nil || get.Want != "" {
		t.Fatalf("get case %+v", get)
	}
}

// A file Run rewrites reads back as it was when every output was as
// expected: the comments, blank lines and cases where they stood.
func TestRunRoundTrip(t *testing.T) {
	dir := t.TempDir()
	const file = "# c\nadd x=1\n----\n2\n\nadd x=4\n----\n5\n"
	path := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	var seen []string
	Run(t, dir, func(t *testing.T) func(*testing.T, *Case) string {
		return func(t *testing.T, c *Case) string {
			seen = append(seen, c.Args["x"])
			return c.Want
		}
	})
	if !reflect.DeepEqual(seen, []string{"1", "4"}) {
		t.Fatalf("ran %v, want the two cases in order", seen)
	}
	*rewrite = true
	defer func() { *rewrite = false }()
	Run(t, dir, func(t *testing.T) func(*testing.T, *Case) string {
		return func(t *testing.T, c *Case) string { return c.Want }
	})
	if got, _ := os.ReadFile(path); string(got) != file {
		t.Fatalf("rewritten as\n%s\nwant\n%s", got, file)
	}
}

func TestClock(t *testing.T) {
	var k Clock
	at := &Case{Line: 1, Args: map[string]string{"at": "10.5"}}
	if got := k.Next(t, at); got != Base+10_500_000 {
		t.Fatalf("at=10.5: %d, want Base+10.5 s", got)
	}
	k.Stamped(t, at, Base+10_500_000, Base+10_500_000)
	if got := k.Next(t, &Case{Args: map[string]string{}}); got != Base+10_500_001 {
		t.Fatalf("no at=: %d, want one µs after the last", got)
	}
	if s := Secs(Base + 9_999_999); s != "+9.999999s" {
		t.Fatalf("Secs = %q", s)
	}
}
