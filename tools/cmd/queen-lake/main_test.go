package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/s3sink/s3store"
	"github.com/queen-mq/queen-go/s3sink/s3test"
)

// cli runs the command line and returns its status, stdout and stderr.
func cli(env map[string]string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut, func(k string) string { return env[k] })
	return code, out.String(), errOut.String()
}

func TestUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "usage: queen-lake <command>"},
		{[]string{"-h"}, 0, "Commands:"},
		{[]string{"verify", "-h"}, 0, "verify flags:"},
		{[]string{"cat"}, 2, `unknown command "cat"`},
		{[]string{"ls", "-bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"ls", "-endpoint", "http://x", "-bucket", "b", "-access-key", "a", "-secret-key", "s"}, 2, `lake: queue "" is required`},
		{[]string{"ls", "-queue", "q", "-bucket", "b", "-access-key", "a", "-secret-key", "s"}, 2, "endpoint"},
		{[]string{"ls", "-queue", "q", "-endpoint", "http://x", "-bucket", "b"}, 2, "QUEEN_S3_ACCESS_KEY"},
		{[]string{"verify", "-queue", "q", "-endpoint", "http://x", "-bucket", "b", "-access-key", "a", "-secret-key", "s", "-broker", "x"}, 2, "broker"},
		{[]string{"ls", "-queue", "q", "extra"}, 2, `unexpected argument "extra"`},
	} {
		code, _, stderr := cli(nil, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: status %d, stderr %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

func TestLsAndVerify(t *testing.T) {
	srv := s3test.Versitygw(t)
	set := srv.Bucket(t, "lake")
	st, err := s3store.New(context.Background(), s3test.StoreConfig(set), s3store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := lakeformat.NewKeys("queen")
	const tenant = "00000000-0000-0000-0000-000000000001"
	w := lakeformat.Window{Tenant: tenant, Queue: "orders", K: 1, TStart: 1791007200000000, TEnd: 1791009458377855}
	recs := []lakeformat.Record{
		{Partition: "cust-1", Offset: 0, TransactionID: "a", Ts: 1791009457501942, Payload: []byte(`{"order":1,"status":"new","total":42.00}`)},
		{Partition: "cust-1", Offset: 1, TransactionID: "b", Ts: 1791009457501942, Payload: []byte(`{"order":1,"status":"paid","total":42.00}`)},
		{Partition: "cust-2", Offset: 0, TransactionID: "c", Ts: 1791009457501942, Payload: []byte(`{"order":2,"status":"new","total":17.50}`)},
	}
	o := lakeformat.Options{Format: lakeformat.JSONL, Codec: lakeformat.Zstd, Tenant: tenant, Queue: "orders"}
	objs, err := lakeformat.EncodeWindow(keys, w, lakeformat.AlignHour, lakeformat.Merged, o, recs)
	if err != nil {
		t.Fatal(err)
	}
	ts := recs[0].Ts
	m := lakeformat.Manifest{Sink: "default", Tenant: tenant, Queue: "orders", K: 1, TStart: w.TStart, TEnd: w.TEnd,
		Format: o.Format, Codec: o.Codec, Layout: lakeformat.Merged, Objects: []lakeformat.ManifestObject{objs[0].ManifestObject()},
		Records: 3, Bytes: int64(len(objs[0].Body)), Partitions: 2, MinTs: &ts, MaxTs: &ts,
		Writer: "queen-s3/2.0.0 jsonl+zstd", CommittedAt: 1791009464741000}
	body, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	mkey, _ := keys.Manifest(tenant, "orders", 1)
	ctx := context.Background()
	for key, b := range map[string][]byte{objs[0].Key: objs[0].Body, mkey: body} {
		if err := st.Put(ctx, key, b); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"QUEEN_S3_ACCESS_KEY": set.AccessKey, "QUEEN_S3_SECRET_KEY": set.SecretKey}
	flags := []string{"-endpoint", set.Endpoint, "-bucket", set.Bucket, "-path-style", "-queue", "orders"}

	code, out, stderr := cli(env, append([]string{"ls"}, flags...)...)
	size := fmt.Sprintf("%-7d", m.Bytes) // BYTES and two spaces, for an object under 100 kB
	want := "K      TSTART                       TEND                         RECORDS  BYTES  OBJECTS  LOST\n" +
		"1      2026-10-03T06:00:00.000000Z  2026-10-03T06:37:38.377855Z  3        " + size + "1        -\n" +
		"total  1 windows                                                 3        " + size + "1        0 lost\n"
	if code != 0 || out != want {
		t.Errorf("ls: status %d, stderr %q, stdout:\n%s\nwant:\n%s", code, stderr, out, want)
	}

	code, out, stderr = cli(env, append([]string{"verify"}, flags...)...)
	if code != 0 || !strings.HasSuffix(out, "\nOK\n") || !strings.Contains(out, "windows 1, objects 1, records 3") {
		t.Errorf("verify: status %d, stderr %q, stdout:\n%s", code, stderr, out)
	}

	// The flags beat the environment.
	code, _, stderr = cli(env, append([]string{"verify", "-secret-key", "wrong"}, flags...)...)
	if code != 1 || !strings.Contains(stderr, "queen-lake verify:") {
		t.Errorf("verify with a wrong secret: status %d, stderr %q", code, stderr)
	}

	// A broker that does not answer: the run cannot be made.
	code, _, stderr = cli(env, append([]string{"verify", "-broker", "http://127.0.0.1:1"}, flags...)...)
	if code != 1 || !strings.Contains(stderr, "partitions/changed") {
		t.Errorf("verify with a dead broker: status %d, stderr %q", code, stderr)
	}

	if _, err := srv.Client().DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(set.Bucket), Key: aws.String(objs[0].Key)}); err != nil {
		t.Fatal(err)
	}
	code, out, _ = cli(env, append([]string{"verify"}, flags...)...)
	if code != 1 || !strings.Contains(out, "FAIL object k=1 "+objs[0].Key+": missing") || !strings.HasSuffix(out, "FAILED: 1 problems\n") {
		t.Errorf("verify of a lake without its object: status %d, stdout:\n%s", code, out)
	}
}
