package chaos

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"
)

// EnvVersitygw names the versitygw binary the lake workload runs, ahead
// of <repo>/.cache/bin/versitygw (where `make tools` puts it) and PATH.
const EnvVersitygw = "QUEEN_CHAOS_VERSITYGW"

// s3Server is a versitygw process (posix backend, one account) on a port
// of 127.0.0.1, started by the harness and stopped by its pid.
type s3Server struct {
	URL, Access, Secret, Region string
	cmd                         *exec.Cmd
	exited                      chan struct{}
}

// findVersitygw looks at $QUEEN_CHAOS_VERSITYGW, <repo>/.cache/bin and
// PATH, in that order; its error names what it tried and how to install it.
func findVersitygw() (string, error) {
	if p := os.Getenv(EnvVersitygw); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvVersitygw, p, err)
		}
		return p, nil
	}
	var tried []string
	if root := repoRoot(); root != "" {
		p := filepath.Join(root, ".cache", "bin", "versitygw")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		tried = append(tried, p)
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, nil
	}
	tried = append(tried, "PATH")
	return "", fmt.Errorf("the lake workload needs versitygw, the S3 server, and found none (%s unset; tried %s): "+
		"`make tools` at the repository root installs it into .cache/bin", EnvVersitygw, strings.Join(tried, ", "))
}

// repoRoot is the nearest directory at or above the working directory
// that holds go.work, or "".
func repoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// startS3 starts versitygw with its buckets under dir/s3 and its output
// in dir/versitygw.log, and waits until its port takes connections. A
// port taken between the probe and versitygw's bind is tried again.
func startS3(dir string) (*s3Server, error) {
	bin, err := findVersitygw()
	if err != nil {
		return nil, err
	}
	root := filepath.Join(dir, "s3")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	s := &s3Server{Access: "queen-chaos-access", Secret: "queen-chaos-secret-key", Region: "us-east-1"}
	for range 3 {
		addr, err := freeAddr()
		if err != nil {
			return nil, err
		}
		if err = s.start(bin, addr, root, filepath.Join(dir, "versitygw.log")); err == nil {
			s.URL = "http://" + addr
			return s, nil
		} else if !errors.Is(err, errAddrInUse) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("versitygw (%s): no free port in 3 tries (log %s)", bin, filepath.Join(dir, "versitygw.log"))
}

// errAddrInUse is start's error when versitygw exited because its port
// was taken.
var errAddrInUse = errors.New("address already in use")

// start runs one versitygw on addr and waits (20 s at most) until it
// accepts a connection.
func (s *s3Server) start(bin, addr, root, logPath string) error {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, "--port", addr, "--access", s.Access, "--secret", s.Secret, "--region", s.Region, "--quiet", "posix", root)
	// Only what it needs of our environment: versitygw reads many VGW_*
	// and ROOT_* variables, and a stray one must not change the server.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "TMPDIR=" + os.TempDir()}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start versitygw %s: %w", bin, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(exited) }()
	s.cmd, s.exited = cmd, exited
	// versitygw prints nothing when it is ready: its port taking a
	// connection is the only sign.
	deadline := time.Now().Add(20 * time.Second)
	for {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			out, _ := os.ReadFile(logPath)
			if strings.Contains(string(out), "address already in use") {
				return errAddrInUse
			}
			return fmt.Errorf("versitygw (%s) exited before it listened on %s: %s", bin, addr, strings.TrimSpace(string(out)))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop()
			return fmt.Errorf("versitygw (%s) did not listen on %s within 20 s (log %s)", bin, addr, logPath)
		}
	}
}

// Bucket creates the bucket name through the S3 API.
func (s *s3Server) Bucket(ctx context.Context, name string) error {
	c := s3.New(s3.Options{
		Region:       s.Region,
		BaseEndpoint: aws.String(s.URL),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(s.Access, s.Secret, ""),
		Logger:       logging.Nop{},
	})
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		return fmt.Errorf("create bucket %s at %s: %w", name, s.URL, err)
	}
	return nil
}

// Stop kills the process by its pid and waits for it to exit.
func (s *s3Server) Stop() {
	if s.cmd == nil {
		return
	}
	select {
	case <-s.exited:
	default:
		syscall.Kill(s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.exited
	}
}
