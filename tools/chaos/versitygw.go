package chaos

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"

	"github.com/queen-mq/queen-go/s3sink/s3test/versitygw"
)

// EnvVersitygw names the versitygw binary the lake workload runs, ahead
// of <repo>/.cache/bin/versitygw (where `make tools` puts it) and PATH.
const EnvVersitygw = "QUEEN_CHAOS_VERSITYGW"

// s3Server is a versitygw process (posix backend, one account) on a port
// of 127.0.0.1, started by the harness and stopped by its pid
// (s3test/versitygw, the one launcher).
type s3Server struct {
	URL, Access, Secret, Region string
	p                           *versitygw.Process
}

// findVersitygw looks at $QUEEN_CHAOS_VERSITYGW, <repo>/.cache/bin and
// PATH, in that order; its error names what it tried and how to install it.
func findVersitygw() (string, error) {
	bin, err := versitygw.Find(EnvVersitygw)
	if err != nil {
		return "", fmt.Errorf("the lake workload needs versitygw, the S3 server: %w", err)
	}
	return bin, nil
}

// startS3 starts versitygw with its buckets under dir/s3 and its output
// in dir/versitygw.log, and waits until its port takes connections.
func startS3(dir string) (*s3Server, error) {
	bin, err := findVersitygw()
	if err != nil {
		return nil, err
	}
	root := filepath.Join(dir, "s3")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "versitygw.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	s := &s3Server{Access: "queen-chaos-access", Secret: "queen-chaos-secret-key", Region: "us-east-1"}
	p, err := versitygw.Start(versitygw.Options{Bin: bin, Root: root, Access: s.Access, Secret: s.Secret, Region: s.Region, Log: logf})
	// The log file stays open for the process's life: closed with it.
	if err != nil {
		logf.Close()
		return nil, fmt.Errorf("%w (log %s)", err, logPath)
	}
	go func() { p.Wait(); logf.Close() }()
	s.p, s.URL = p, p.URL
	return s, nil
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
	if s.p != nil {
		s.p.Stop()
	}
}
