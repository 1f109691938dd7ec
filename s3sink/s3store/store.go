package s3store

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"

	"github.com/queen-mq/queen-go/s3sink/objstore"
)

// maxAttempts is how many times the SDK sends one request before it gives
// up; the engine backs off and tries again above that.
const maxAttempts = 3

// Options are the optional parts of a Store.
type Options struct {
	// HTTPClient sends the requests; nil means the SDK's default client.
	HTTPClient *http.Client
	// Metrics, when set, is called once per HTTP request (every attempt of
	// a retried call counts) with the S3 operation name (PutObject,
	// UploadPart, ...) and the HTTP status, or 0 when no answer came
	// (transport error, cut connection). It must be cheap and safe for
	// concurrent use: it runs on the request's goroutine.
	Metrics func(operation string, status int)
}

// Config says which bucket a Store writes and how it signs: the part of
// the sink's settings (s3sink.Settings) a store takes, so that a tool
// builds a store without the sink's engine.
type Config struct {
	Endpoint  string // http:// or https:// + host[:port], no path (a trailing / is dropped)
	Region    string // what SigV4 signs with
	Bucket    string
	AccessKey string
	SecretKey string // never logged
	PathStyle bool   // the bucket in the URL path, not in the host name
	// SSE is "", "AES256" or "aws:kms"; SSEKMSKeyID only with aws:kms.
	SSE         string
	SSEKMSKeyID string
}

// Store is an objstore.Store (the sink's ObjectStore) on one bucket. It is
// safe for concurrent use.
type Store struct {
	client *s3.Client
	bucket string
	// sse and kmsKeyID go on every PutObject and CreateMultipartUpload;
	// sse is empty when the bucket's own default encryption applies.
	sse      types.ServerSideEncryption
	kmsKeyID *string
}

var _ objstore.Store = (*Store)(nil)

// New returns a Store for the bucket that s describes. It sends no
// request: call Probe to learn whether the bucket answers.
func New(ctx context.Context, s Config, o Options) (*Store, error) {
	_ = ctx // nothing to load: the store reads no environment or shared config
	endpoint := strings.TrimRight(s.Endpoint, "/")
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
		return nil, fmt.Errorf("s3store: endpoint %q is not http(s)://host[:port]", s.Endpoint)
	}
	if s.Bucket == "" || strings.ContainsAny(s.Bucket, "/ ") {
		return nil, fmt.Errorf("s3store: bucket %q is empty or holds '/' or a space", s.Bucket)
	}
	if s.Region == "" {
		return nil, errors.New("s3store: region is empty (SigV4 signs with it)")
	}
	st := &Store{bucket: s.Bucket}
	switch s.SSE {
	case "":
	case string(types.ServerSideEncryptionAes256):
		st.sse = types.ServerSideEncryptionAes256
	case string(types.ServerSideEncryptionAwsKms):
		st.sse = types.ServerSideEncryptionAwsKms
		if s.SSEKMSKeyID != "" {
			st.kmsKeyID = aws.String(s.SSEKMSKeyID)
		}
	default:
		return nil, fmt.Errorf("s3store: SSE %q is not AES256 or aws:kms", s.SSE)
	}
	if s.SSEKMSKeyID != "" && st.sse != types.ServerSideEncryptionAwsKms {
		return nil, errors.New("s3store: an SSE KMS key id needs SSE aws:kms")
	}

	var hc s3.HTTPClient = awshttp.NewBuildableClient()
	if o.HTTPClient != nil {
		hc = o.HTTPClient
	}
	if o.Metrics != nil {
		hc = meteredClient{next: hc, report: o.Metrics}
	}
	st.client = s3.New(s3.Options{
		Region:       s.Region,
		BaseEndpoint: aws.String(endpoint),
		UsePathStyle: s.PathStyle,
		Credentials:  credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, ""),
		HTTPClient:   hc,
		Retryer: retry.NewStandard(func(ro *retry.StandardOptions) {
			ro.MaxAttempts = maxAttempts
			// No client-wide retry quota: under a long outage it would turn
			// every call's retries into instant failures of its own kind.
			ro.RateLimiter = ratelimit.None
		}),
		// Checksums only where the operation requires one: Put sends its
		// own Content-MD5, and the flexible checksums (CRC32 headers or
		// aws-chunked trailers) are not understood by every S3 service.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
		Logger:                     logging.Nop{},
		ClientLogMode:              0,
		DisableLogOutputChecksumValidationSkipped: true,
	})
	return st, nil
}

// Put writes body under key in one PutObject with its Content-MD5, so the
// server refuses a body damaged on the way (400 BadDigest).
func (s *Store) Put(ctx context.Context, key string, body []byte) error {
	in := &s3.PutObjectInput{
		Bucket:               aws.String(s.bucket),
		Key:                  aws.String(key),
		Body:                 bytes.NewReader(body),
		ContentLength:        aws.Int64(int64(len(body))),
		ContentMD5:           aws.String(contentMD5(body)),
		ServerSideEncryption: s.sse,
		SSEKMSKeyId:          s.kmsKeyID,
	}
	if _, err := s.client.PutObject(ctx, in); err != nil {
		return classify("put", key, err)
	}
	return nil
}

// Get reads the whole object under key.
func (s *Store) Get(ctx context.Context, key string) ([]byte, error) {
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{
		Bucket: aws.String(s.bucket),
		Key:    aws.String(key),
	})
	if err != nil {
		return nil, classify("get", key, err)
	}
	defer out.Body.Close()
	var buf bytes.Buffer
	want := aws.ToInt64(out.ContentLength)
	if want > 0 {
		buf.Grow(int(want))
	}
	if _, err := buf.ReadFrom(out.Body); err != nil {
		return nil, fmt.Errorf("s3store: get %s: read body: %w", key, err)
	}
	if out.ContentLength != nil && int64(buf.Len()) != want {
		return nil, fmt.Errorf("s3store: get %s: read %d bytes of %d", key, buf.Len(), want)
	}
	return buf.Bytes(), nil
}

// Head reports the size of the object under key.
func (s *Store) Head(ctx context.Context, key string) (int64, error) {
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{
		Bucket: aws.String(s.bucket),
		Key:    aws.String(key),
	})
	if err != nil {
		return 0, classify("head", key, err)
	}
	return aws.ToInt64(out.ContentLength), nil
}

// Probe tells whether the bucket answers, as the sink asks before it
// starts any queue: HEAD <prefix>/, where a missing key (404) counts as
// reachable (nil). An empty prefix probes the bucket itself (HEAD bucket).
//
// A HEAD answer has no body, so its 404 does not say what is missing:
// the key, the bucket, or (on versitygw) the user of the access key. On a
// 404, Probe reads the same key once with a GET, whose error code does
// say: NoSuchKey is nil, NoSuchBucket is objstore.ErrNotFound, an unknown
// user is objstore.ErrAccessDenied. ErrAccessDenied means the bucket
// answered and refuses these credentials; any other error means it did
// not answer.
func (s *Store) Probe(ctx context.Context, prefix string) error {
	prefix = strings.Trim(prefix, "/")
	if prefix == "" {
		_, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(s.bucket)})
		if err != nil {
			return classify("probe bucket", s.bucket, err)
		}
		return nil
	}
	key := prefix + "/"
	_, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err == nil {
		return nil
	}
	if err = classify("probe", key, err); !errors.Is(err, objstore.ErrNotFound) {
		return err
	}
	out, gerr := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if gerr == nil {
		out.Body.Close() // it appeared between the two requests
		return nil
	}
	var api smithy.APIError
	if errors.As(gerr, &api) && api.ErrorCode() == "NoSuchBucket" {
		return classify("probe", key, gerr)
	}
	if errorClass(gerr) == objstore.ErrAccessDenied {
		return classify("probe", key, gerr)
	}
	// NoSuchKey, or the GET said no more than the HEAD: the 404 stands.
	return nil
}

// contentMD5 is the Content-MD5 header value of body.
func contentMD5(body []byte) string {
	sum := md5.Sum(body)
	return base64.StdEncoding.EncodeToString(sum[:])
}
