package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	in, err := parse("# syntax=docker/dockerfile:1\nFROM a AS b\n\n# a comment\nRUN --mount=type=cache,target=/x echo 1 \\\n    && echo 2\nCOPY --chown=1:2 x y\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(in) != 3 || in[0].cmd != "FROM" || in[1].cmd != "RUN" || in[1].line != 5 || in[1].flags["mount"] != "type=cache,target=/x" ||
		in[1].args != "echo 1     && echo 2" || in[2].flags["chown"] != "1:2" || in[2].args != "x y" {
		t.Errorf("parse: %+v", in)
	}
	if _, err := parse("FROM a\nRUN x \\"); err == nil {
		t.Error("a trailing continuation was accepted")
	}
}

func TestPairs(t *testing.T) {
	got, err := pairs(`A=1 B="two words" C=$A`)
	if err != nil || !slices.Equal(got, [][2]string{{"A", "1"}, {"B", "two words"}, {"C", "$A"}}) {
		t.Errorf("pairs: %v %v", got, err)
	}
	if got, _ := pairs("OLD value with spaces"); !slices.Equal(got, [][2]string{{"OLD", "value with spaces"}}) {
		t.Errorf("the old ENV form: %v", got)
	}
	if _, err := pairs(`A="open`); err == nil {
		t.Error("an unclosed quote was accepted")
	}
	if got := expand("${VERSION}-$X-$NONE", map[string]string{"VERSION": "1", "X": "y"}); got != "1-y-" {
		t.Errorf("expand: %q", got)
	}
}

// The context copy follows .dockerignore as Docker does: a later
// exception (!) brings back what an earlier pattern left out.
func TestCopyContext(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	for _, f := range []string{"go.work", "a/x.go", "a/x_test.go", "a/testdata/big", "b/y.go", "README.md", ".git/HEAD"} {
		if err := os.MkdirAll(filepath.Join(src, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(src, ".dockerignore"), []byte("# c\n*\n!go.work\n!a\n**/*_test.go\n**/testdata\n"), 0o644)
	dst = filepath.Join(src, "a", "copy") // inside the context: left out of its own copy
	n, err := copyContext(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dst, p)
			got = append(got, rel)
		}
		return err
	})
	slices.Sort(got)
	if want := []string{"a/x.go", "go.work"}; n != 2 || !slices.Equal(got, want) {
		t.Errorf("copied %d: %v, want %v", n, got, want)
	}
}

// A build stage step the check does not know stops it before any RUN.
func TestBuildRefusesWhatItDoesNotKnow(t *testing.T) {
	dir := t.TempDir()
	for name, df := range map[string]string{
		"ADD":       "FROM a AS build\nADD x y\nFROM scratch\n",
		"RUN flags": "FROM a AS build\nRUN --network=none true\nFROM scratch\n",
		"abs path":  "FROM a AS build\nWORKDIR /src\nRUN go build -o /out/q .\nFROM scratch\n",
		"1 stage":   "FROM a AS build\nRUN true\n",
	} {
		f := filepath.Join(dir, "Dockerfile")
		os.WriteFile(f, []byte(df), 0o644)
		err := build([]string{"-f", f, "-context", dir, "-out", filepath.Join(t.TempDir(), "out")})
		if err == nil || !(strings.Contains(err.Error(), "does not know") || strings.Contains(err.Error(), "absolute path") ||
			strings.Contains(err.Error(), "stages")) {
			t.Errorf("%s: %v, want a refusal", name, err)
		}
	}
}

func TestStaticRefusesADynamicBinary(t *testing.T) {
	sh, err := filepath.EvalSymlinks("/bin/sh")
	if err != nil {
		t.Skip("no /bin/sh")
	}
	if err := static(sh); err == nil || !strings.Contains(err.Error(), "PT_INTERP") {
		t.Errorf("static(%s): %v, want a PT_INTERP refusal", sh, err)
	}
}
