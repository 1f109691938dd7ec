package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmeBlock is the README's code block of lang between the markers
// <!-- name:start --> and <!-- name:end -->.
func readmeBlock(t *testing.T, name, lang string) string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "<!-- "+name+":start -->\n```"+lang+"\n")
	block, _, ok2 := strings.Cut(block, "```\n<!-- "+name+":end -->")
	if !ok || !ok2 {
		t.Fatalf("README.md has no %s block between the %s markers", lang, name)
	}
	return block
}

// checkWalkthrough checks what the README's curl walk-through printed:
// seven answers, one per line, each what it should be.
func checkWalkthrough(t *testing.T, out []byte) {
	t.Helper()
	// Every answer ends with a line break: as written, with nothing
	// between the commands, they print one per line.
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 7 || !strings.HasSuffix(string(out), "\n") {
		t.Fatalf("walk-through printed %d lines, want 7 answers of a line each:\n%s", len(lines), out)
	}
	var push []map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &push); err != nil || len(push) != 3 || push[2]["offset"] != 1.0 {
		t.Errorf("push answered %s", lines[0])
	}
	for _, want := range []string{`"payload":{"order":1,"status":"new","total":42.00}`, `"payload":{"order":1,"status":"paid","total":42.00}`,
		`"payload":{"order":2,"status":"new","total":17.50}`, `"highWatermark":2`} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("fetch answer lacks %s:\n%s", want, lines[1])
		}
	}
	var put, get map[string]any
	if err := json.Unmarshal([]byte(lines[2]), &put); err != nil || put["applied"] != true {
		t.Errorf("KV put answered %s", lines[2])
	}
	if err := json.Unmarshal([]byte(lines[3]), &get); err != nil || get["found"] != true || get["version"] != put["version"] {
		t.Errorf("KV get answered %s", lines[3])
	}
	if !strings.Contains(lines[3], `"value":{"text":"hello"}`) {
		t.Errorf("KV get lost the value: %s", lines[3])
	}
	var pop struct {
		LeaseID           string `json:"leaseId"`
		PartitionsClaimed int    `json:"partitionsClaimed"`
		Messages          []struct {
			Data json.RawMessage `json:"data"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(lines[4]), &pop); err != nil || pop.LeaseID == "" || pop.PartitionsClaimed != 2 || len(pop.Messages) != 3 {
		t.Errorf("pop answered %s", lines[4])
	}
	if !strings.Contains(lines[4], `"data":{"order":1,"status":"new","total":42.00}`) {
		t.Errorf("pop changed a payload: %s", lines[4])
	}
	var lock, timer struct{ Results []map[string]any }
	if err := json.Unmarshal([]byte(lines[5]), &lock); err != nil || len(lock.Results) != 1 || lock.Results[0]["acquired"] != true ||
		lock.Results[0]["guard"] == nil {
		t.Errorf("lock acquire answered %s", lines[5])
	}
	if err := json.Unmarshal([]byte(lines[6]), &timer); err != nil || len(timer.Results) != 1 || timer.Results[0]["status"] != "scheduled" ||
		timer.Results[0]["deliverAt"] == nil {
		t.Errorf("timer schedule answered %s", lines[6])
	}
}

// TestREADMEPython runs the README's Python example, as written but for
// the port, with the official client (the client lane's venv) against a
// started binary, and checks what it prints.
func TestREADMEPython(t *testing.T) {
	python := clientPython(t)
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "<!-- python-example:start -->\n```python\n")
	block, _, ok2 := strings.Cut(block, "```\n<!-- python-example:end -->")
	if !ok || !ok2 {
		t.Fatal("README.md has no Python example between the python-example markers")
	}
	n := single(t)
	script := strings.ReplaceAll(block, "http://localhost:6632", n.url)
	if script == block {
		t.Fatal("the README's Python example does not name http://localhost:6632")
	}
	cmd := exec.Command(python, "-c", script)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the Python example failed: %v\n%s", err, out)
	}
	// The client prints its own lines when it closes, after the example's.
	want := "{'invoice': 1, 'total': 42.0}\n{'invoice': 2, 'total': 17.5}\nacked: True\n"
	if !strings.HasPrefix(string(out), want) {
		t.Fatalf("the Python example printed\n%s\nwant\n%s", out, want)
	}
}

// TestREADMEStreams runs the README's streams example, as written but for
// the URL, with the official client's streaming SDK (the client lane's
// venv) against a started binary, and checks its exit code and the sums it
// prints.
func TestREADMEStreams(t *testing.T) {
	python := clientPython(t)
	block := readmeBlock(t, "streams", "python")
	n := single(t)
	script := strings.ReplaceAll(block, "http://localhost:6632", n.url)
	if script == block {
		t.Fatal("the README's streams example does not name http://localhost:6632")
	}
	path := filepath.Join(t.TempDir(), "streams_example.py")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runClientScript(t, python, path)
	if code != 0 {
		t.Fatalf("the streams example exited %d:\n%s", code, out)
	}
	want := "alice window 0-10 s: 12 clicks\nbob window 0-10 s: 2 clicks\n" +
		"alice window 10-20 s: 6 clicks\nbob window 10-20 s: 4 clicks\n"
	if !strings.Contains(out, want) {
		t.Fatalf("the streams example printed\n%s\nwant the lines\n%s", out, want)
	}
	if strings.Count(out, " clicks\n") != 4 {
		t.Fatalf("the streams example printed other sums as well:\n%s", out)
	}
}
