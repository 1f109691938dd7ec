package lossyfs

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childEnv, when set, makes the test binary the child of
// TestKilledProcess: it appends synced records to the file it names,
// then unsynced ones, says so, and waits to be killed.
const childEnv = "LOSSYFS_CHILD_FILE"

func TestMain(m *testing.M) {
	if p := os.Getenv(childEnv); p != "" {
		os.Exit(child(p))
	}
	os.Exit(m.Run())
}

func child(path string) int {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	for i := range 20 {
		if _, err := fmt.Fprintf(f, "record %02d\n", i); err != nil {
			fmt.Println(err)
			return 1
		}
		if i < 10 {
			if err := f.Sync(); err != nil {
				fmt.Println(err)
				return 1
			}
		}
	}
	fmt.Println("written")
	time.Sleep(time.Minute) // the file stays open: SIGKILL closes it
	return 0
}

// TestKilledProcess is the campaign's shape: a process writes on the
// mount, is SIGKILLed, and Crash keeps only what it had synced.
func TestKilledProcess(t *testing.T) {
	l, _, mnt := mount(t)
	path := filepath.Join(mnt, "wal")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) // before Unmount, if the test failed early
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "written\n" {
		t.Fatalf("child said %q", line)
	}
	if b, _ := os.ReadFile(path); strings.Count(string(b), "\n") != 20 {
		t.Errorf("before the crash: %d records, want all 20 (a kill keeps the page cache)", strings.Count(string(b), "\n"))
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	rep := crash(t, l)
	var want strings.Builder
	for i := range 10 {
		fmt.Fprintf(&want, "record %02d\n", i)
	}
	expect(t, want.String(), path)
	if rep.Files != 1 || rep.BytesDropped != 100 {
		t.Errorf("report %+v", rep)
	}
}
