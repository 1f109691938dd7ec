package queuelog_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The script files of testdata/scripts, in the format of the other
// families' scripts (cockroachdb/datadriven's, which queuelog does not
// require): '#' comments and blank lines between cases; a case is a
// command line "<cmd> key=value…", its input lines, a "----" line and the
// expected output, which ends at a blank line or the end of the file.
// -rewrite writes the outputs the run got back into the files: read the
// diff before committing it.

var rewrite = flag.Bool("rewrite", false, "write the scripts' outputs back into testdata/scripts")

// scriptCase is one case of a script file.
type scriptCase struct {
	line  int // of the command, from 1
	cmd   string
	args  map[string]string // "key=value" fields; a bare word maps to ""
	input []string
	want  string // the expected output, each line ended by '\n'
	// text is the file's lines of the case up to its ---- line; when
	// isCmd is false the entry is no case but one comment or blank line,
	// which text holds.
	text  string
	isCmd bool
}

// parseScript cuts a script file into its cases and the comment and
// blank lines between them.
func parseScript(t *testing.T, path string, data string) []scriptCase {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	var out []scriptCase
	for i := 0; i < len(lines); {
		if l := lines[i]; l == "" || strings.HasPrefix(l, "#") {
			out = append(out, scriptCase{text: l + "\n"})
			i++
			continue
		}
		c := scriptCase{line: i + 1, isCmd: true, args: map[string]string{}}
		f := strings.Fields(lines[i])
		c.cmd = f[0]
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			c.args[k] = v
		}
		start := i
		for i++; i < len(lines) && lines[i] != "----"; i++ {
			c.input = append(c.input, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("%s:%d: %s has no ---- line", path, c.line, c.cmd)
		}
		c.text = strings.Join(lines[start:i+1], "\n") + "\n"
		var want strings.Builder
		for i++; i < len(lines) && lines[i] != ""; i++ {
			want.WriteString(lines[i] + "\n")
		}
		c.want = want.String()
		out = append(out, c)
	}
	return out
}

// runScripts runs every testdata/scripts/*.txt as a subtest: setup makes
// the script's world, and the function it returns answers each case with
// its output.
func runScripts(t *testing.T, setup func(t *testing.T) func(t *testing.T, c *scriptCase) string) {
	paths, err := filepath.Glob("testdata/scripts/*.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scripts in testdata/scripts (%v)", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cases := parseScript(t, path, string(data))
			run := setup(t)
			var file strings.Builder
			for i := range cases {
				c := &cases[i]
				file.WriteString(c.text)
				if !c.isCmd {
					continue
				}
				got := run(t, c)
				if strings.Contains(got, "\n\n") || got != "" && !strings.HasSuffix(got, "\n") {
					t.Fatalf("%s:%d: %s: an output must be whole lines, none blank: %q", path, c.line, c.cmd, got)
				}
				file.WriteString(got)
				if got != c.want && !*rewrite {
					t.Errorf("%s:%d: %s\n got:\n%s\nwant:\n%s", path, c.line, c.text, got, c.want)
				}
			}
			if *rewrite {
				if err := os.WriteFile(path, []byte(file.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
