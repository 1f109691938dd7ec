package s3store

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"golang.org/x/sync/errgroup"
)

// partConcurrency is how many parts of one upload are in flight at once.
const partConcurrency = 4

// abortTimeout bounds the abort of a failed upload, which runs even when
// the caller's context is done (it is what was cancelled, often).
const abortTimeout = 30 * time.Second

// PutMultipart writes body under key as one multipart upload: create (with
// the SSE headers), parts of partSize bytes (the last one shorter, each
// with its Content-MD5, up to four in flight), complete. When any step
// fails, the upload is aborted and the first error is returned. A node
// killed between two steps leaves the upload behind: the bucket needs a
// lifecycle rule that aborts incomplete uploads.
//
// S3 needs every part but the last to hold at least 5 MiB (the sink's are
// 16 MiB) and at most 10,000 parts; partSize must be positive. An empty
// body is sent as one empty part.
func (s *Store) PutMultipart(ctx context.Context, key string, body []byte, partSize int) error {
	if partSize <= 0 {
		return fmt.Errorf("s3store: multipart %s: part size %d is not positive", key, partSize)
	}
	nparts := max(1, (len(body)+partSize-1)/partSize)
	if nparts > 10000 {
		return fmt.Errorf("s3store: multipart %s: %d bytes in parts of %d make %d parts, more than 10000", key, len(body), partSize, nparts)
	}
	created, err := s.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{
		Bucket:               aws.String(s.bucket),
		Key:                  aws.String(key),
		ServerSideEncryption: s.sse,
		SSEKMSKeyId:          s.kmsKeyID,
	})
	if err != nil {
		return classify("create multipart", key, err)
	}
	uploadID := created.UploadId

	parts, err := s.uploadParts(ctx, key, uploadID, body, partSize, nparts)
	if err == nil {
		_, err = s.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{
			Bucket:          aws.String(s.bucket),
			Key:             aws.String(key),
			UploadId:        uploadID,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
		})
		if err == nil {
			return nil
		}
		err = classify("complete multipart", key, err)
	}

	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
	defer cancel()
	_, abortErr := s.client.AbortMultipartUpload(actx, &s3.AbortMultipartUploadInput{
		Bucket:   aws.String(s.bucket),
		Key:      aws.String(key),
		UploadId: uploadID,
	})
	if abortErr != nil {
		// Not %w: the abort's class (NoSuchUpload, say) must not become
		// the class of the upload's error.
		return fmt.Errorf("%w (abort failed too, the upload stays behind: %v)", err, abortErr)
	}
	return err
}

// uploadParts sends the parts, partConcurrency at a time, and returns
// them in order for the completion. The first failure cancels the rest.
func (s *Store) uploadParts(ctx context.Context, key string, uploadID *string, body []byte, partSize, nparts int) ([]types.CompletedPart, error) {
	parts := make([]types.CompletedPart, nparts)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(partConcurrency)
	for i := range nparts {
		chunk := body[i*partSize : min((i+1)*partSize, len(body))]
		num := int32(i + 1)
		g.Go(func() error {
			out, err := s.client.UploadPart(gctx, &s3.UploadPartInput{
				Bucket:        aws.String(s.bucket),
				Key:           aws.String(key),
				UploadId:      uploadID,
				PartNumber:    aws.Int32(num),
				Body:          bytes.NewReader(chunk),
				ContentLength: aws.Int64(int64(len(chunk))),
				ContentMD5:    aws.String(contentMD5(chunk)),
			})
			if err != nil {
				return classify(fmt.Sprintf("upload part %d", num), key, err)
			}
			if out.ETag == nil {
				return fmt.Errorf("s3store: upload part %d %s: no ETag in the answer", num, key)
			}
			parts[num-1] = types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(num)}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return parts, nil
}
