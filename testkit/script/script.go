package script

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "write the scripts' outputs back into testdata/scripts")

// Case is one case of a script file.
type Case struct {
	// Line is the line of the command, from 1.
	Line int
	// Cmd is the command's first word.
	Cmd string
	// Args are the command line's "key=value" fields; a bare word maps to "".
	Args map[string]string
	// Input are the lines between the command and its ---- line.
	Input []string
	// Want is the expected output, each line ended by '\n'.
	Want string
	// text is the file's lines of the case up to its ---- line; when
	// isCmd is false the entry is no case but one comment or blank line,
	// which text holds.
	text  string
	isCmd bool
}

// Parse cuts a script file's text into its cases and the comment and
// blank lines between them; path names the file in a failure.
func Parse(t testing.TB, path string, data string) []Case {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	var out []Case
	for i := 0; i < len(lines); {
		if l := lines[i]; l == "" || strings.HasPrefix(l, "#") {
			out = append(out, Case{text: l + "\n"})
			i++
			continue
		}
		c := Case{Line: i + 1, isCmd: true, Args: map[string]string{}}
		f := strings.Fields(lines[i])
		c.Cmd = f[0]
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			c.Args[k] = v
		}
		start := i
		for i++; i < len(lines) && lines[i] != "----"; i++ {
			c.Input = append(c.Input, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("%s:%d: %s has no ---- line", path, c.Line, c.Cmd)
		}
		c.text = strings.Join(lines[start:i+1], "\n") + "\n"
		var want strings.Builder
		for i++; i < len(lines) && lines[i] != ""; i++ {
			want.WriteString(lines[i] + "\n")
		}
		c.Want = want.String()
		out = append(out, c)
	}
	return out
}

// Run runs every *.txt of dir as a subtest: setup makes the script's
// world, and the function it returns answers each case with its output,
// which must equal the case's Want (or, with -rewrite, replaces it).
func Run(t *testing.T, dir string, setup func(t *testing.T) func(t *testing.T, c *Case) string) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scripts in %s (%v)", dir, err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cases := Parse(t, path, string(data))
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
					t.Fatalf("%s:%d: %s: an output must be whole lines, none blank: %q", path, c.Line, c.Cmd, got)
				}
				file.WriteString(got)
				if got != c.Want && !*rewrite {
					t.Errorf("%s:%d: %s\n got:\n%s\nwant:\n%s", path, c.Line, c.text, got, c.Want)
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
