package lake

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"

	"github.com/queen-mq/queen-go/s3sink/objstore"
	"github.com/queen-mq/queen-go/s3sink/s3store"
)

// ErrNotFound is wrapped by Store.Get's error for a key that does not
// exist. It is objstore.ErrNotFound (the sink's s3sink.ErrNotFound), so
// s3store's errors carry it.
var ErrNotFound = objstore.ErrNotFound

// Store is what the lake is read through: listing and whole-object reads.
type Store interface {
	// List returns every key under prefix, with its size, in key order.
	// An empty listing is no error.
	List(ctx context.Context, prefix string) ([]ObjectInfo, error)
	// Get returns the bytes under key; an error wrapping ErrNotFound when
	// there is no such key. Any other error is the bucket's.
	Get(ctx context.Context, key string) ([]byte, error)
}

// ObjectInfo is one key of a listing.
type ObjectInfo struct {
	Key  string
	Size int64
}

// S3Store reads a bucket: Get through s3store (the sink's own client,
// with its error classes), List through the SDK's ListObjectsV2, which
// s3store does not have (the sink never lists).
type S3Store struct {
	objects *s3store.Store
	client  *s3.Client
	bucket  string
}

var _ Store = (*S3Store)(nil)

// NewS3Store returns a Store over the bucket s describes (Endpoint,
// Region, Bucket, AccessKey, SecretKey, PathStyle). It sends no request.
func NewS3Store(s s3store.Config) (*S3Store, error) {
	st, err := s3store.New(context.Background(), s, s3store.Options{})
	if err != nil {
		return nil, err
	}
	client := s3.New(s3.Options{
		Region:                     s.Region,
		BaseEndpoint:               aws.String(strings.TrimRight(s.Endpoint, "/")),
		UsePathStyle:               s.PathStyle,
		Credentials:                credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, ""),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
		Logger:                     logging.Nop{},
	})
	return &S3Store{objects: st, client: client, bucket: s.Bucket}, nil
}

// List pages through ListObjectsV2 under prefix.
func (s *S3Store) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	var out []ObjectInfo
	p := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: aws.String(s.bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("lake: list %s: %w", prefix, err)
		}
		for _, o := range page.Contents {
			out = append(out, ObjectInfo{Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size)})
		}
	}
	return out, nil
}

// Get reads the object under key.
func (s *S3Store) Get(ctx context.Context, key string) ([]byte, error) {
	return s.objects.Get(ctx, key)
}

// isNotFound reports whether err says the key does not exist.
func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
