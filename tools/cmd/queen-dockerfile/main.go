// Command queen-dockerfile runs a Dockerfile's build stage without Docker,
// for machines with no daemon (deploy/dockerfile-check.sh):
//
//	queen-dockerfile build -f deploy/Dockerfile -context . -out DIR [-build-arg K=V]...
//	queen-dockerfile static BINARY
//
// build reads the Dockerfile, copies the context through .dockerignore's
// rules (moby/patternmatcher, Docker's own matcher) and then carries out
// the build stage's ARG, ENV, WORKDIR, COPY and RUN lines in order under
// DIR/root, RUN through sh -c in the stage's WORKDIR. An instruction it
// does not know in the build stage stops it, so that the Dockerfile cannot
// grow a step the check skips. It then reads the final stage and prints,
// as shell assignments, what running the image means: the binary its
// ENTRYPOINT names (the file the stage copies there from the build stage),
// its USER, ENV, VOLUME, EXPOSE, STOPSIGNAL and HEALTHCHECK.
//
// static exits 1 unless BINARY is an ELF file with no program interpreter
// (PT_INTERP) and no shared library needed (DT_NEEDED).
package main

import (
	"debug/elf"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

func main() {
	if len(os.Args) < 2 {
		fatal("usage: queen-dockerfile build|static …")
	}
	var err error
	switch os.Args[1] {
	case "build":
		err = build(os.Args[2:])
	case "static":
		if len(os.Args) != 3 {
			fatal("usage: queen-dockerfile static BINARY")
		}
		err = static(os.Args[2])
	default:
		fatal("unknown subcommand " + os.Args[1])
	}
	if err != nil {
		fatal(err.Error())
	}
}

func fatal(s string) {
	fmt.Fprintln(os.Stderr, "queen-dockerfile: "+s)
	os.Exit(1)
}

// instr is one Dockerfile instruction: its keyword, its flags (--x=y),
// its arguments as written, and its line.
type instr struct {
	cmd   string
	flags map[string]string
	args  string
	line  int
}

// parse splits a Dockerfile into instructions: comments and blank lines
// dropped, backslash continuations joined.
func parse(text string) ([]instr, error) {
	var out []instr
	var cur strings.Builder
	start := 0
	for i, raw := range strings.Split(text, "\n") {
		line := strings.TrimRight(raw, " \t\r")
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur.Len() == 0) {
			continue
		}
		if cur.Len() == 0 {
			start = i + 1
		}
		if strings.HasSuffix(line, "\\") {
			cur.WriteString(strings.TrimSuffix(line, "\\"))
			continue
		}
		cur.WriteString(line)
		full := strings.TrimSpace(cur.String())
		cur.Reset()
		if full == "" {
			continue
		}
		kw, rest, _ := strings.Cut(full, " ")
		in := instr{cmd: strings.ToUpper(kw), flags: map[string]string{}, line: start}
		rest = strings.TrimSpace(rest)
		for strings.HasPrefix(rest, "--") {
			f, r, _ := strings.Cut(rest, " ")
			k, v, _ := strings.Cut(strings.TrimPrefix(f, "--"), "=")
			in.flags[k] = v
			rest = strings.TrimSpace(r)
		}
		in.args = rest
		out = append(out, in)
	}
	if cur.Len() > 0 {
		return nil, errors.New("the Dockerfile ends in a continuation")
	}
	return out, nil
}

// stage is one FROM and what follows it.
type stage struct {
	name, image string
	instrs      []instr
}

var varRE = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// expand replaces $X and ${X} with vars' values, as Docker does in
// ENV, WORKDIR, COPY and FROM (no :- forms: refused by the caller's use).
func expand(s string, vars map[string]string) string {
	return varRE.ReplaceAllStringFunc(s, func(m string) string {
		name := strings.Trim(m, "${}")
		return vars[name]
	})
}

// words splits an instruction's arguments: a JSON array, or on spaces.
func words(args string) ([]string, error) {
	if strings.HasPrefix(args, "[") {
		var w []string
		if err := json.Unmarshal([]byte(args), &w); err != nil {
			return nil, fmt.Errorf("%s: %v", args, err)
		}
		return w, nil
	}
	return strings.Fields(args), nil
}

// pairs reads ENV's k=v k2="v 2" forms (and the old `ENV k v`).
func pairs(args string) ([][2]string, error) {
	if !strings.Contains(strings.SplitN(args, " ", 2)[0], "=") {
		k, v, _ := strings.Cut(args, " ")
		return [][2]string{{k, strings.TrimSpace(v)}}, nil
	}
	var out [][2]string
	s := strings.TrimSpace(args)
	for s != "" {
		k, rest, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("%q is not k=v", s)
		}
		var v string
		if strings.HasPrefix(rest, `"`) {
			end := strings.Index(rest[1:], `"`)
			if end < 0 {
				return nil, fmt.Errorf("unclosed quote in %q", args)
			}
			v, rest = rest[1:1+end], rest[2+end:]
		} else {
			v, rest, _ = strings.Cut(rest, " ")
		}
		out = append(out, [2]string{k, v})
		s = strings.TrimSpace(rest)
	}
	return out, nil
}

type buildArgs []string

func (b *buildArgs) String() string     { return strings.Join(*b, ",") }
func (b *buildArgs) Set(s string) error { *b = append(*b, s); return nil }

func build(argv []string) error {
	fsys := flag.NewFlagSet("build", flag.ExitOnError)
	file := fsys.String("f", "Dockerfile", "the Dockerfile")
	ctxDir := fsys.String("context", ".", "the build context")
	outDir := fsys.String("out", "", "where the context copy and the build stage's file system go")
	var overrides buildArgs
	fsys.Var(&overrides, "build-arg", "K=V, as docker build --build-arg")
	fsys.Parse(argv)
	if *outDir == "" {
		return errors.New("-out is needed")
	}
	over := map[string]string{}
	for _, kv := range overrides {
		k, v, _ := strings.Cut(kv, "=")
		over[k] = v
	}
	text, err := os.ReadFile(*file)
	if err != nil {
		return err
	}
	instrs, err := parse(string(text))
	if err != nil {
		return err
	}
	// Global ARGs, then the stages.
	global := map[string]string{}
	var stages []*stage
	for _, in := range instrs {
		switch {
		case in.cmd == "FROM":
			w := strings.Fields(in.args)
			st := &stage{image: expand(w[0], global)}
			if len(w) == 3 && strings.EqualFold(w[1], "AS") {
				st.name = w[2]
			}
			stages = append(stages, st)
		case len(stages) == 0 && in.cmd == "ARG":
			k, v, _ := strings.Cut(in.args, "=")
			if o, ok := over[k]; ok {
				v = o
			}
			global[k] = v
		case len(stages) == 0:
			return fmt.Errorf("line %d: %s before FROM", in.line, in.cmd)
		default:
			stages[len(stages)-1].instrs = append(stages[len(stages)-1].instrs, in)
		}
	}
	if len(stages) != 2 || stages[0].name == "" {
		return fmt.Errorf("the check knows a named build stage and a final one; the Dockerfile has %d stages", len(stages))
	}
	bst, final := stages[0], stages[1]
	out, err := filepath.Abs(*outDir)
	if err != nil {
		return err
	}
	ctxCopy, root := filepath.Join(out, "context"), filepath.Join(out, "root")
	n, err := copyContext(*ctxDir, ctxCopy)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "context: %d files through .dockerignore into %s\n", n, ctxCopy)
	fmt.Fprintf(os.Stderr, "build stage %s: FROM %s (this machine's toolchain: %s)\n", bst.name, bst.image, goVersion())

	vars := map[string]string{} // ARG and ENV, as RUN sees them
	workdir := "/"
	for _, in := range bst.instrs {
		fmt.Fprintf(os.Stderr, "line %d: %s %s\n", in.line, in.cmd, in.args)
		switch in.cmd {
		case "ARG":
			k, v, hasDefault := strings.Cut(in.args, "=")
			if g, ok := global[k]; ok && !hasDefault {
				v = g
			}
			if o, ok := over[k]; ok {
				v = o
			}
			vars[k] = v
		case "ENV":
			ps, err := pairs(in.args)
			if err != nil {
				return fmt.Errorf("line %d: %v", in.line, err)
			}
			for _, p := range ps {
				vars[p[0]] = expand(p[1], vars)
			}
		case "WORKDIR":
			w := expand(in.args, vars)
			if !path.IsAbs(w) {
				w = path.Join(workdir, w)
			}
			workdir = w
			if err := os.MkdirAll(filepath.Join(root, workdir), 0o755); err != nil {
				return err
			}
		case "COPY":
			if len(in.flags) > 0 {
				return fmt.Errorf("line %d: the check does not know COPY's flags %v in the build stage", in.line, in.flags)
			}
			w, err := words(expand(in.args, vars))
			if err != nil || len(w) < 2 {
				return fmt.Errorf("line %d: COPY needs a source and a destination", in.line)
			}
			dest := w[len(w)-1]
			if !path.IsAbs(dest) {
				dest = path.Join(workdir, dest)
			}
			if strings.HasSuffix(w[len(w)-1], "/") || len(w) > 2 || w[len(w)-1] == "." {
				dest += "/"
			}
			for _, src := range w[:len(w)-1] {
				if err := copyFrom(ctxCopy, src, filepath.Join(root, dest), strings.HasSuffix(dest, "/")); err != nil {
					return fmt.Errorf("line %d: COPY %s: %v", in.line, src, err)
				}
			}
		case "RUN":
			if len(in.flags) > 0 {
				return fmt.Errorf("line %d: the check does not know RUN's flags %v", in.line, in.flags)
			}
			if m := absPath.FindString(in.args); m != "" {
				return fmt.Errorf("line %d: RUN names the absolute path %s: the check runs RUN lines in a copy, so keep them to paths under WORKDIR", in.line, strings.TrimSpace(m))
			}
			cmd := exec.Command("sh", "-c", in.args)
			if strings.HasPrefix(in.args, "[") {
				w, err := words(in.args)
				if err != nil {
					return err
				}
				cmd = exec.Command(w[0], w[1:]...)
			}
			cmd.Dir = filepath.Join(root, workdir)
			cmd.Env = runEnv()
			for k, v := range vars {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("line %d: RUN: %v", in.line, err)
			}
		default:
			return fmt.Errorf("line %d: the check does not know %s in the build stage: teach tools/cmd/queen-dockerfile, or keep the stage to ARG, ENV, WORKDIR, COPY and RUN", in.line, in.cmd)
		}
	}
	return describeFinal(final, bst.name, root, workdir, vars, global, over)
}

// runEnv is what a RUN line sees of this machine, as a container sees
// only its image's: the PATH to the toolchain, HOME, and where Go keeps
// its caches and finds modules (so that a check after the first reuses
// them); the stage's ARG and ENV values come after, and win.
func runEnv() []string {
	env := []string{}
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "GOCACHE", "GOMODCACHE", "GOPATH", "GOPROXY", "GOSUMDB",
		"GONOSUMDB", "GOPRIVATE", "GONOPROXY", "GOTOOLCHAIN", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
		"http_proxy", "https_proxy", "no_proxy"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	for _, k := range []string{"GOCACHE", "GOMODCACHE"} {
		if os.Getenv(k) == "" {
			if out, err := exec.Command("go", "env", k).Output(); err == nil {
				env = append(env, k+"="+strings.TrimSpace(string(out)))
			}
		}
	}
	return env
}

// absPath finds an absolute path in a RUN line (a word starting with /).
var absPath = regexp.MustCompile(`(^|[\s=:"'])/[A-Za-z0-9._-]`)

// describeFinal prints the final stage as shell assignments. The files it
// copies from the build stage must exist there, unless they come from the
// build image itself (outside what the stage made, such as the CA roots).
func describeFinal(st *stage, from, root, workdir string, buildVars, global, over map[string]string) error {
	vars := map[string]string{}
	for k, v := range global {
		vars[k] = v
	}
	files := map[string]string{} // image path -> file here
	entry := ""
	var env []string
	out := map[string]string{"IMAGE_BASE": st.image}
	for _, in := range st.instrs {
		switch in.cmd {
		case "COPY":
			w, err := words(expand(in.args, vars))
			if err != nil || len(w) != 2 {
				return fmt.Errorf("line %d: the check knows COPY --from=%s SRC DEST in the final stage", in.line, from)
			}
			if in.flags["from"] != from {
				return fmt.Errorf("line %d: the final stage copies from %q, not the build stage", in.line, in.flags["from"])
			}
			here := filepath.Join(root, w[0])
			if _, err := os.Stat(here); err != nil {
				if _, herr := os.Stat(w[0]); herr == nil && !strings.HasPrefix(w[0], strings.TrimSuffix(workdir, "/")+"/") {
					fmt.Fprintf(os.Stderr, "final stage line %d: %s comes from the build image, not the build stage's steps (here: this machine's)\n", in.line, w[0])
					here = w[0]
				} else {
					return fmt.Errorf("line %d: the final stage copies %s, which the build stage did not make", in.line, w[0])
				}
			}
			files[w[1]] = here
			if c := in.flags["chown"]; c != "" {
				out["CHOWN_"+sanitize(w[1])] = c
			}
		case "ENV":
			ps, err := pairs(in.args)
			if err != nil {
				return err
			}
			for _, p := range ps {
				env = append(env, p[0]+"="+expand(p[1], vars))
			}
		case "ARG":
			k, v, _ := strings.Cut(in.args, "=")
			if o, ok := over[k]; ok {
				v = o
			}
			vars[k] = v
		case "USER", "STOPSIGNAL", "WORKDIR":
			out[in.cmd] = expand(in.args, vars)
		case "EXPOSE":
			out["EXPOSE"] = strings.TrimSpace(out["EXPOSE"] + " " + in.args)
		case "VOLUME":
			w, err := words(in.args)
			if err != nil {
				return err
			}
			out["VOLUME"] = strings.Join(w, " ")
		case "HEALTHCHECK":
			cmdArgs, ok := strings.CutPrefix(in.args, "CMD ")
			w, err := words(strings.TrimSpace(cmdArgs))
			if !ok || err != nil || !strings.HasPrefix(strings.TrimSpace(cmdArgs), "[") {
				return fmt.Errorf("line %d: the check knows HEALTHCHECK [flags] CMD [\"exec\", …] (the image has no shell)", in.line)
			}
			out["HEALTHCHECK"] = shellWords(w)
			out["HEALTHCHECK_FLAGS"] = fmt.Sprint(in.flags)
		case "ENTRYPOINT":
			w, err := words(in.args)
			if err != nil || !strings.HasPrefix(in.args, "[") {
				return fmt.Errorf("line %d: the check knows ENTRYPOINT in its exec form (the image has no shell)", in.line)
			}
			out["ENTRYPOINT"] = shellWords(w)
			entry = w[0]
		default:
			return fmt.Errorf("line %d: the check does not know %s in the final stage", in.line, in.cmd)
		}
	}
	bin, ok := files[entry]
	if !ok {
		return fmt.Errorf("the ENTRYPOINT %s is no file the final stage copies from the build stage", entry)
	}
	out["BINARY"] = bin
	out["BINARY_IN_IMAGE"] = entry
	out["VERSION"] = buildVars["VERSION"]
	slices.Sort(env)
	out["ENV"] = shellWords(env)
	keys := make([]string, 0, len(out))
	for k := range out {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Printf("DF_%s=%s\n", k, quote(out[k]))
	}
	return nil
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func shellWords(w []string) string {
	q := make([]string, len(w))
	for i, s := range w {
		q[i] = quote(s)
	}
	return strings.Join(q, " ")
}

// copyContext copies ctx to dst, leaving out what .dockerignore excludes,
// as Docker's client does; it returns how many files it copied.
func copyContext(ctx, dst string) (int, error) {
	var patterns []string
	if f, err := os.Open(filepath.Join(ctx, ".dockerignore")); err == nil {
		patterns, err = ignorefile.ReadAll(f)
		f.Close()
		if err != nil {
			return 0, err
		}
	}
	pm, err := patternmatcher.New(patterns)
	if err != nil {
		return 0, err
	}
	n := 0
	absDst, err := filepath.Abs(dst)
	if err != nil {
		return 0, err
	}
	err = filepath.WalkDir(ctx, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if abs, _ := filepath.Abs(p); abs == absDst {
			return filepath.SkipDir // the copy itself, when -out is inside the context
		}
		rel, err := filepath.Rel(ctx, p)
		if err != nil || rel == "." {
			return err
		}
		skip, err := pm.MatchesOrParentMatches(rel)
		if err != nil {
			return err
		}
		if skip {
			// A directory left out may still hold an exception (!x/y):
			// walk on into it only then, as Docker's client does.
			if d.IsDir() && !pm.Exclusions() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			n++
			return copyFile(p, target)
		}
		return nil // sockets, links: the workspace has none it builds from
	})
	return n, err
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// copyFrom does COPY src dest from the context copy: a file, a glob or a
// directory (its contents, as Docker copies a directory).
func copyFrom(ctx, src, dest string, destIsDir bool) error {
	matches, err := filepath.Glob(filepath.Join(ctx, filepath.FromSlash(src)))
	if err != nil {
		return err
	}
	if len(matches) == 0 {
		return errors.New("no such file in the context (after .dockerignore)")
	}
	for _, m := range matches {
		st, err := os.Stat(m)
		if err != nil {
			return err
		}
		if st.IsDir() {
			if err := filepath.WalkDir(m, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, _ := filepath.Rel(m, p)
				return copyFile(p, filepath.Join(dest, rel))
			}); err != nil {
				return err
			}
			continue
		}
		target := dest
		if destIsDir {
			target = filepath.Join(dest, filepath.Base(m))
		}
		if err := copyFile(m, target); err != nil {
			return err
		}
	}
	return nil
}

func goVersion() string {
	out, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// static refuses a binary that a dynamic loader would have to start.
func static(bin string) error {
	f, err := elf.Open(bin)
	if err != nil {
		return err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s has a program interpreter (PT_INTERP): it is dynamically linked", bin)
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		return err
	}
	if len(libs) > 0 {
		return fmt.Errorf("%s needs shared libraries %v", bin, libs)
	}
	fmt.Printf("%s: static ELF (%s %s), no PT_INTERP, no DT_NEEDED\n", bin, f.Class, f.Machine)
	return nil
}
