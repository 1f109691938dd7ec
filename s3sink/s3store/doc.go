// Package s3store is the sink's ObjectStore over the S3 API, with the AWS
// SDK for Go v2: any service that speaks S3 with SigV4 (AWS, MinIO,
// versitygw, Google Cloud Storage's XML API) can hold the lake.
//
// It does what objstore.Store (the sink's s3sink.ObjectStore) asks and
// no more: whole-object PUT with Content-MD5, multipart upload (aborted
// when a step fails), GET and HEAD, and the start-up probe (HEAD
// <prefix>/, where a missing key means the bucket answered). It never
// lists, never deletes an object and never sends a conditional header: the
// sink's exactly-once argument needs none of them.
//
// Errors: a 404 (NoSuchKey, NoSuchBucket, NotFound) is
// objstore.ErrNotFound and a 403 is objstore.ErrAccessDenied (the same
// values as s3sink's), each wrapped with the operation and the key and
// keeping the SDK's error beside it; anything else is returned wrapped and
// is transient from the sink's view. Exceptions: NoSuchUpload (an upload
// that went away) and RequestTimeTooSkewed (this node's clock) are
// transient; versitygw's 404 XAdminUserNotFound (unknown access key) is
// ErrAccessDenied, though to a HEAD it is a bare 404. The SDK's standard
// retryer makes at most three attempts of a request, with its short
// jittered backoff, and no client-wide retry quota: the engine has a
// backoff of its own above this.
//
// It takes a Config of its own (endpoint, region, bucket, keys, path
// style, SSE) and imports none of the sink's engine: a tool reading a
// lake builds a store with s3sink/s3store and s3sink/objstore alone.
//
// The store keeps no global state: no environment, no shared config
// files, no default logger. The SDK's own logging is off; Options.Metrics
// sees every HTTP request instead.
//
// Usage:
//
//	st, err := s3store.New(ctx, s3store.Config{Endpoint: …, Region: …, Bucket: …}, s3store.Options{
//		Metrics: func(op string, status int) { requests.WithLabelValues(op, strconv.Itoa(status)).Inc() },
//	})
//	if err != nil { ... }
//	if err := st.Probe(ctx, prefix); err != nil { ... } // bucket unreachable: back off
//	err = st.Put(ctx, key, body)
package s3store
