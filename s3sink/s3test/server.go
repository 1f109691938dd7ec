package s3test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/queen-mq/queen-go/s3sink"
	"github.com/queen-mq/queen-go/s3sink/s3store"
)

// Region is the region every test server answers to.
const Region = "us-east-1"

// Server is an S3 server a test started. It stops at the test's cleanup.
type Server struct {
	URL    string // http://127.0.0.1:<port>, no trailing slash
	Access string // access key id the server accepts
	Secret string // its secret key
	Region string // the SigV4 region
	Dir    string // versitygw's root: bucket <name> is the directory Dir/<name>; "" for Fake
}

// Bucket creates the bucket name (through the S3 API) and returns the
// Settings that point at it, path style. Only the bucket's fields are set
// (Endpoint, Region, Bucket, AccessKey, SecretKey, PathStyle); the caller
// fills in the rest.
func (s *Server) Bucket(t testing.TB, name string) s3sink.Settings {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("s3test: create bucket %s at %s: %v", name, s.URL, err)
	}
	return s3sink.Settings{
		Endpoint:  s.URL,
		Region:    s.Region,
		Bucket:    name,
		AccessKey: s.Access,
		SecretKey: s.Secret,
		PathStyle: true,
	}
}

// StoreConfig is the bucket part of a sink's settings, as s3store takes it.
func StoreConfig(s s3sink.Settings) s3store.Config {
	return s3store.Config{Endpoint: s.Endpoint, Region: s.Region, Bucket: s.Bucket, AccessKey: s.AccessKey,
		SecretKey: s.SecretKey, PathStyle: s.PathStyle, SSE: s.SSE, SSEKMSKeyID: s.SSEKMSKeyID}
}

// Client returns a plain SDK client of the server (path style, root
// credentials), for tests that look at the bucket behind the store's
// back: list objects, list multipart uploads left behind.
func (s *Server) Client() *s3.Client {
	return s3.New(s3.Options{
		Region:                     s.Region,
		BaseEndpoint:               aws.String(s.URL),
		UsePathStyle:               true,
		Credentials:                credentials.NewStaticCredentialsProvider(s.Access, s.Secret, ""),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
		Logger:                     logging.Nop{},
	})
}

// Fake starts gofakes3 with its memory backend behind an httptest server.
// It checks no credentials and ignores SSE headers; it checks Content-MD5.
func Fake(t testing.TB) *Server {
	t.Helper()
	faker := gofakes3.New(s3mem.New())
	hs := httptest.NewServer(faker.Server())
	t.Cleanup(hs.Close)
	return &Server{
		URL:    hs.URL,
		Access: "fake-access-key",
		Secret: "fake-secret-key",
		Region: Region,
	}
}
