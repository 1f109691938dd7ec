package e2e

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// child is a process a test started (a queen node, a pipelines worker):
// its output goes to a log file, and it is stopped by its pid. cmd is nil
// while it does not run.
type child struct {
	cmd    *exec.Cmd
	exited chan struct{}
	state  *os.ProcessState
}

// spawn starts cmd with its stdout and stderr on logf, which is closed
// once the process exited; exited is closed then, after state is set.
func (c *child) spawn(cmd *exec.Cmd, logf *os.File) error {
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return err
	}
	c.cmd = cmd
	c.exited = make(chan struct{})
	go func(cmd *exec.Cmd, exited chan struct{}) {
		cmd.Wait()
		c.state = cmd.ProcessState
		logf.Close()
		close(exited)
	}(cmd, c.exited)
	return nil
}

// signalWait sends sig to the running process by its pid (a failed kill
// fails t) and waits up to within for it to exit. It answers false when
// the process still runs then.
func (c *child) signalWait(t testing.TB, sig syscall.Signal, within time.Duration) bool {
	t.Helper()
	if err := syscall.Kill(c.cmd.Process.Pid, sig); err != nil {
		t.Fatalf("kill -%d %d: %v", sig, c.cmd.Process.Pid, err)
	}
	select {
	case <-c.exited:
		c.cmd = nil
		return true
	case <-time.After(within):
		return false
	}
}

// kill stops the process with SIGKILL if it runs (test cleanup).
func (c *child) kill() {
	if c.cmd != nil {
		syscall.Kill(c.cmd.Process.Pid, syscall.SIGKILL)
		<-c.exited
		c.cmd = nil
	}
}
