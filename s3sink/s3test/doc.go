// Package s3test runs S3 servers for tests, in this module and in the
// others of the workspace (queen's end-to-end tests, tools): a real
// versitygw process (Versitygw), an in-process gofakes3 (Fake), and a
// fault proxy to put in front of either (FaultProxy).
//
// Every server and proxy belongs to the test that made it and stops at
// its cleanup: processes by their pid, listeners by closing them. They
// listen on free ports of 127.0.0.1 only.
//
// Usage:
//
//	srv := s3test.Versitygw(t)        // fails the test when versitygw is not installed: make tools
//	settings := srv.Bucket(t, "lake") // s3sink.Settings pointing at a new bucket
//	p := s3test.FaultProxy(t, srv.URL)
//	settings.Endpoint = p.URL
//	p.Errors(2) // the next two requests answer 500
//
// The two servers differ where the sink can notice: versitygw checks SigV4
// signatures (payload hash included), refuses multipart parts under 5 MiB
// but the last, and accepts but ignores SSE headers; gofakes3 checks no
// credentials, no part size and no SSE, but does check Content-MD5.
package s3test
