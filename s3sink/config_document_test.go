package s3sink

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/lakeformat"
)

// docOf writes a document from raw JSON values, in key order; a value ""
// leaves its field out.
func docOf(fields map[string]string) []byte {
	var b strings.Builder
	b.WriteByte('{')
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if fields[k] == "" {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + k + `":` + fields[k])
	}
	b.WriteByte('}')
	return []byte(b.String())
}

func docBase(over map[string]string) []byte {
	m := map[string]string{
		"queues": `"orders"`, "endpoint": `"http://minio:9000"`, "region": `"us-east-1"`,
		"bucket": `"lake"`, "accessKey": `"queen"`,
	}
	maps.Copy(m, over)
	return docOf(m)
}

func docWant() Settings {
	s, _ := confTestWant()
	s.SecretKey = ""
	return *s
}

func TestDocumentDefaults(t *testing.T) {
	s, err := ParseDocument(docBase(nil))
	if err != nil {
		t.Fatal(err)
	}
	if want := docWant(); !reflect.DeepEqual(*s, want) {
		t.Errorf("defaults:\n got %#v\nwant %#v", *s, want)
	}
	// The product's example, less the secret that travels beside it.
	s, err = ParseDocument([]byte(`{
  "endpoint": "https://s3.eu-central-1.amazonaws.com",
  "region": "eu-central-1",
  "bucket": "acme-lake",
  "accessKey": "<access key id>",
  "queues": "*",
  "format": "parquet"
}`))
	if err != nil {
		t.Fatal(err)
	}
	if !s.AllQueues || s.Queues != nil || s.Format != lakeformat.Parquet || s.Codec() != lakeformat.Zstd ||
		s.Endpoint != "https://s3.eu-central-1.amazonaws.com" || s.Bucket != "acme-lake" || s.SecretKey != "" {
		t.Errorf("the product's example: %#v", s)
	}
}

func TestDocumentValues(t *testing.T) {
	type S = Settings
	cases := []struct {
		doc  map[string]string
		edit func(*S)
	}{
		{map[string]string{"queues": `"*"`}, func(s *S) { s.AllQueues, s.Queues = true, nil }},
		{map[string]string{"queues": `" a , b ,a"`}, func(s *S) { s.Queues = []string{"a", "b"} }},
		{map[string]string{"queues": `["a", " b ", "a", "c,d"]`}, func(s *S) { s.Queues = []string{"a", "b", "c,d"} }},
		{map[string]string{"endpoint": `"HTTPS://s3.example.com:443/"`}, func(s *S) { s.Endpoint = "https://s3.example.com:443" }},
		{map[string]string{"region": `"auto"`, "bucket": `" b "`, "accessKey": `"AK"`}, func(s *S) { s.Region, s.Bucket, s.AccessKey = "auto", "b", "AK" }},
		{map[string]string{"prefix": `"/lake/q/"`}, func(s *S) { s.Prefix = "lake/q" }},
		{map[string]string{"prefix": `""`, "sink": `"  "`, "format": `null`}, func(s *S) {}},
		{map[string]string{"pathStyle": `true`}, func(s *S) { s.PathStyle = true }},
		{map[string]string{"pathStyle": `false`}, func(s *S) {}},
		{map[string]string{"sse": `"AES256"`}, func(s *S) { s.SSE = "AES256" }},
		{map[string]string{"sse": `"KMS"`, "sseKmsKeyId": `"key-1"`}, func(s *S) { s.SSE, s.SSEKMSKeyID = "aws:kms", "key-1" }},
		{map[string]string{"format": `"ndjson"`}, func(s *S) {}},
		{map[string]string{"format": `"PARQUET"`, "parquetCodec": `"snap"`}, func(s *S) { s.Format, s.ParquetCodec = lakeformat.Parquet, lakeformat.Snappy }},
		{map[string]string{"compression": `"gz"`}, func(s *S) { s.Compression = lakeformat.Gzip }},
		{map[string]string{"compression": `"off"`}, func(s *S) { s.Compression = lakeformat.None }},
		{map[string]string{"layout": `"per_partition"`}, func(s *S) { s.Layout = lakeformat.PerPartition }},
		{map[string]string{"align": `"daily"`}, func(s *S) { s.Align = lakeformat.AlignDay }},
		{map[string]string{"align": `"None"`}, func(s *S) { s.Align = lakeformat.AlignNone }},
		{map[string]string{"start": `"beginning"`}, func(s *S) { s.StartEarliest = true }},
		{map[string]string{"start": `"now"`}, func(s *S) {}},
		{map[string]string{"targetMb": `256`}, func(s *S) { s.TargetBytes = 256 << 20 }},
		{map[string]string{"targetMb": `"256"`}, func(s *S) { s.TargetBytes = 256 << 20 }},
		{map[string]string{"targetMb": `" 5120 "`}, func(s *S) { s.TargetBytes = 5120 << 20 }},
		{map[string]string{"maxWindowMs": `10000`}, func(s *S) { s.MaxWindow = 10 * time.Second }},
		{map[string]string{"sink": `"tenant-lake"`}, func(s *S) { s.Sink = "tenant-lake" }},
		{map[string]string{"enabled": `false`}, func(s *S) {}},
		{map[string]string{"enabled": `true`}, func(s *S) {}},
		{map[string]string{"enabled": `null`}, func(s *S) {}},
	}
	for _, c := range cases {
		doc := docBase(c.doc)
		s, err := ParseDocument(doc)
		if err != nil {
			t.Errorf("%s: %v", doc, err)
			continue
		}
		want := docWant()
		c.edit(&want)
		if !reflect.DeepEqual(*s, want) {
			t.Errorf("%s:\n got %#v\nwant %#v", doc, *s, want)
		}
		s.SecretKey = "x"
		if err := s.Validate(); err != nil {
			t.Errorf("%s: accepted settings do not validate: %v", doc, err)
		}
	}
}

// TestDocumentRefusals: every refusal, with its whole sentence, which never
// mentions QUEEN_S3_ but to name the variable of a node-wide field.
func TestDocumentRefusals(t *testing.T) {
	const queuesWhat = "the queues the sink mirrors, * for every queue, names separated by commas, or a JSON array of names, none empty and no * inside an array"
	const endpointWhat = "the S3 API base URL, http:// or https:// then host[:port], with no path"
	const targetWhat = "the uncompressed size, in MiB, at which a window closes"
	const fields = "queues, endpoint, region, bucket, accessKey, prefix, pathStyle, sse, sseKmsKeyId, format, compression, " +
		"parquetCodec, layout, align, start, targetMb, maxWindowMs, sink and enabled"
	cases := []struct {
		doc []byte
		msg string
	}{
		// Required.
		{docBase(map[string]string{"queues": ""}), "queues is not set: it is " + queuesWhat},
		{docBase(map[string]string{"queues": `null`}), "queues is not set: it is " + queuesWhat},
		{docBase(map[string]string{"endpoint": ""}), "endpoint is not set: it is " + endpointWhat},
		{docBase(map[string]string{"region": `" "`}), "region is not set: it is the region requests are signed for (SigV4), such as us-east-1, with no / and no space"},
		{docBase(map[string]string{"bucket": `null`}), "bucket is not set: it is the bucket the sink writes to, with no / and no space"},
		{docBase(map[string]string{"accessKey": ""}), "accessKey is not set: it is the access key id the sink signs requests with"},
		// Queues.
		{docBase(map[string]string{"queues": `"a,,b"`}), "queues=a,,b is not a queue list. It is " + queuesWhat},
		{docBase(map[string]string{"queues": `["*"]`}), `queues=["*"] is not a queue list. It is ` + queuesWhat},
		{docBase(map[string]string{"queues": `["a", "*"]`}), `queues=["a","*"] is not a queue list. It is ` + queuesWhat},
		{docBase(map[string]string{"queues": `[]`}), `queues=[] is not a queue list. It is ` + queuesWhat},
		{docBase(map[string]string{"queues": `["a", ""]`}), `queues=["a",""] is not a queue list. It is ` + queuesWhat},
		{docBase(map[string]string{"queues": `["a", 1]`}), `queues=["a",1] is not a queue list. It is ` + queuesWhat},
		{docBase(map[string]string{"queues": `5`}), `queues=5 is not a queue list. It is ` + queuesWhat},
		{docBase(map[string]string{"queues": `{"a":1}`}), `queues={"a":1} is not a queue list. It is ` + queuesWhat},
		// Strings of the wrong type or shape.
		{docBase(map[string]string{"endpoint": `5`}), "endpoint=5 is not a string. It is " + endpointWhat},
		{docBase(map[string]string{"endpoint": `"minio:9000"`}), "endpoint=minio:9000 is not an S3 endpoint. It is " + endpointWhat},
		{docBase(map[string]string{"endpoint": `"http://minio/lake"`}), "endpoint=http://minio/lake is not an S3 endpoint. It is " + endpointWhat},
		{docBase(map[string]string{"bucket": `"a b"`}), "bucket=a b is not a bucket name. It is the bucket the sink writes to, with no / and no space"},
		{docBase(map[string]string{"accessKey": `true`}), "accessKey=true is not a string. It is the access key id the sink signs requests with"},
		{docBase(map[string]string{"prefix": `"a/../b"`}), "prefix=a/../b is not a key prefix. It is the root of every key the sink writes, sidecars included, as segments separated by /, with no space, none of them empty, . or .."},
		{docBase(map[string]string{"sink": `"a/b"`}), "sink=a/b is not a sink name. It is 1 to 64 characters of A-Z a-z 0-9 . _ -, naming the sink's KV documents and what retentionSinkHold refers to"},
		// Booleans.
		{docBase(map[string]string{"pathStyle": `"true"`}), "pathStyle=\"true\" is not a boolean. It is `true` or `false`"},
		{docBase(map[string]string{"pathStyle": `1`}), "pathStyle=1 is not a boolean. It is `true` or `false`"},
		{docBase(map[string]string{"enabled": `"yes"`}), "enabled=\"yes\" is not a boolean. It is `true` or `false`"},
		// Encryption.
		{docBase(map[string]string{"sse": `"des"`}), "sse=des is not a server-side encryption. It is one of AES256, aws:kms (kms): the server-side encryption every upload asks for"},
		{docBase(map[string]string{"sseKmsKeyId": `"key-1"`}), "sseKmsKeyId is set but sse is not set. It is the KMS key of aws:kms encryption, and goes only with sse=aws:kms"},
		{docBase(map[string]string{"sseKmsKeyId": `"key-1"`, "sse": `"aes256"`}), "sseKmsKeyId is set but sse is AES256. It is the KMS key of aws:kms encryption, and goes only with sse=aws:kms"},
		// Enumerations.
		{docBase(map[string]string{"format": `"xml"`}), "format=xml is not a format. It is one of jsonl (json, ndjson), parquet: the format of the objects"},
		{docBase(map[string]string{"format": `5`}), "format=5 is not a format. It is one of jsonl (json, ndjson), parquet: the format of the objects"},
		{docBase(map[string]string{"compression": `"snappy"`}), "compression=snappy is not a compression. It is one of zstd (zst), gzip (gz), none (off): the codec of JSONL objects"},
		{docBase(map[string]string{"parquetCodec": `"gzip"`}), "parquetCodec=gzip is not a Parquet codec. It is one of zstd (zst), snappy (snap): the page codec of Parquet objects"},
		{docBase(map[string]string{"layout": `["merged"]`}), `layout=["merged"] is not a layout. It is one of merged, per-partition (per_partition, perpartition): one object per window, or one per window and partition`},
		{docBase(map[string]string{"align": `"week"`}), "align=week is not an alignment. It is one of hour (hourly), day (daily), none (off): the boundary no window crosses"},
		{docBase(map[string]string{"start": `"middle"`}), "start=middle is not a start. It is one of latest (now, end), earliest (beginning): where the sink starts a queue that has no commit pointer"},
		// Numbers.
		{docBase(map[string]string{"targetMb": `0`}), "targetMb=0 is outside 1..=5120. It is " + targetWhat},
		{docBase(map[string]string{"targetMb": `"0"`}), "targetMb=0 is outside 1..=5120. It is " + targetWhat},
		{docBase(map[string]string{"targetMb": `5121`}), "targetMb=5121 is outside 1..=5120. It is " + targetWhat},
		{docBase(map[string]string{"targetMb": `"abc"`}), "targetMb=abc is not a whole number. It is " + targetWhat + ", in 1..=5120"},
		{docBase(map[string]string{"targetMb": `1.5`}), "targetMb=1.5 is not a whole number. It is " + targetWhat + ", in 1..=5120"},
		{docBase(map[string]string{"targetMb": `1e3`}), "targetMb=1e3 is not a whole number. It is " + targetWhat + ", in 1..=5120"},
		{docBase(map[string]string{"targetMb": `true`}), "targetMb=true is not a whole number. It is " + targetWhat + ", in 1..=5120"},
		{docBase(map[string]string{"maxWindowMs": `50`}), "maxWindowMs=50 is outside 100..=86400000. It is how long a window may stay open; the lag SLO is about this plus the safe lag"},
		{docBase(map[string]string{"maxWindowMs": `"300000"`}), `maxWindowMs="300000" is not a whole number. It is how long a window may stay open; the lag SLO is about this plus the safe lag, in 100..=86400000`},
		{docBase(map[string]string{"maxWindowMs": `1e400`}), "maxWindowMs=1e400 is not a whole number. It is how long a window may stay open; the lag SLO is about this plus the safe lag, in 100..=86400000"},
		{docBase(map[string]string{"maxWindowMs": `99999999999999999999`}), "maxWindowMs=99999999999999999999 is outside 100..=86400000. It is how long a window may stay open; the lag SLO is about this plus the safe lag"},
		// Fields refused by name.
		{docBase(map[string]string{"secretKey": `"s"`}), "secretKey is not a settings field: the secret key goes beside the settings, never inside them"},
		{docBase(map[string]string{"secret_key": `"s"`}), "secret_key is not a settings field, and is named like a secret: the secret key goes beside the settings, as secretKey, never inside them"},
		{docBase(map[string]string{"awsSecretAccessKey": `"s"`}), "awsSecretAccessKey is not a settings field, and is named like a secret: the secret key goes beside the settings, as secretKey, never inside them"},
		{docBase(map[string]string{"partitions": `"q:0..3"`}), "partitions is not supported: a window can only close below the safeTime that discovery reports for the partitions it finds, so the sink discovers every partition of its queues itself"},
		{docBase(map[string]string{"Bucket": `"x"`}), "Bucket is not a settings field. The fields are " + fields},
		{docBase(map[string]string{"listen": `":8080"`}), "listen is not a settings field. The fields are " + fields},
		{[]byte(`{"bucket":"a","bucket":"b"}`), "bucket is given twice in the settings"},
		// Not one JSON object.
		{[]byte(``), "the settings are not a JSON object: the document is empty"},
		{[]byte(`  `), "the settings are not a JSON object: the document is empty"},
		{[]byte(`[]`), "the settings are not a JSON object: it does not start with {"},
		{[]byte(`null`), "the settings are not a JSON object: it does not start with {"},
		{[]byte(`"x"`), "the settings are not a JSON object: it does not start with {"},
		{[]byte(`{"queues":"a"`), "the settings are not a JSON object: it ends before its closing }"},
		{[]byte(`{"queues":`), "the settings are not a JSON object: it ends before its closing }"},
		{[]byte(`{"queues":}`), "the settings are not a JSON object: invalid character '}' looking for beginning of value"},
		{[]byte(`{} {}`), "the settings are not a JSON object: there is more after it"},
	}
	for _, c := range cases {
		_, err := ParseDocument(c.doc)
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%s: %v, want a ConfigError", c.doc, err)
			continue
		}
		if ce.Error() != c.msg {
			t.Errorf("%s:\n got %s\nwant %s", c.doc, ce.Error(), c.msg)
		}
		if strings.Contains(ce.Msg, "QUEEN_S3_") {
			t.Errorf("%s: a document's sentence names a variable: %s", c.doc, ce.Msg)
		}
		if ce.Var != "" && !strings.HasPrefix(ce.Msg, ce.Var) {
			t.Errorf("%s: Var %q does not start %q", c.doc, ce.Var, ce.Msg)
		}
	}
}

func TestDocumentNodeWide(t *testing.T) {
	for doc, env := range map[string]string{
		"embedded": "QUEEN_S3_EMBEDDED", "threads": "QUEEN_S3_THREADS", "shutdownGraceMs": "QUEEN_S3_SHUTDOWN_GRACE_MS",
		"memoryMb": "QUEEN_S3_MEMORY_MB", "fetchConcurrency": "QUEEN_S3_FETCH_CONCURRENCY",
		"discoveryIntervalMs": "QUEEN_S3_DISCOVERY_INTERVAL_MS", "safeGuardMs": "QUEEN_S3_SAFE_GUARD_MS",
		"leaseTtlMs": "QUEEN_S3_LEASE_TTL_MS", "multipartThresholdMb": "QUEEN_S3_MULTIPART_THRESHOLD_MB",
		"checkpointEvery": "QUEEN_S3_CHECKPOINT_EVERY", "instance": "QUEEN_S3_INSTANCE", "crashAt": "QUEEN_S3_CRASH_AT",
	} {
		_, err := ParseDocument(docBase(map[string]string{doc: `1`}))
		want := doc + " is node-wide: set " + env + " on every node"
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Msg != want || ce.Var != doc {
			t.Errorf("%s: %v, want %s", doc, err, want)
		}
	}
}

// TestDocumentNoSecretEchoed: a refused field's value never shows.
func TestDocumentNoSecretEchoed(t *testing.T) {
	for _, field := range []string{"secretKey", "secret_key", "password", "unknownField", "memoryMb", "partitions"} {
		_, err := ParseDocument(docBase(map[string]string{field: `"hunter2-very-secret"`}))
		if err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: %v", field, err)
		}
	}
}

func TestDocumentSize(t *testing.T) {
	pad := func(n int) []byte {
		doc := docBase(nil)
		return append(doc[:len(doc)-1], append([]byte(strings.Repeat(" ", n-len(doc))), '}')...)
	}
	if doc := pad(MaxDocumentBytes); len(doc) != 32768 {
		t.Fatalf("padded to %d", len(doc))
	} else if _, err := ParseDocument(doc); err != nil {
		t.Errorf("32 KiB exactly: %v", err)
	}
	_, err := ParseDocument(pad(MaxDocumentBytes + 1))
	if err == nil || err.Error() != "the settings are 32769 bytes: they fit in 32 KiB (32768 bytes)" {
		t.Errorf("32 KiB + 1: %v", err)
	}
}

// TestDocumentMatchesEnv: one setting written either way reads the same.
func TestDocumentMatchesEnv(t *testing.T) {
	env := withBase(map[string]string{
		"QUEEN_S3_QUEUES": "a, b", "QUEEN_S3_PREFIX": "/x/y/", "QUEEN_S3_PATH_STYLE": "true", "QUEEN_S3_SSE": "kms",
		"QUEEN_S3_SSE_KMS_KEY_ID": "k1", "QUEEN_S3_FORMAT": "parquet", "QUEEN_S3_COMPRESSION": "gz",
		"QUEEN_S3_PARQUET_CODEC": "snappy", "QUEEN_S3_LAYOUT": "per-partition", "QUEEN_S3_ALIGN": "day",
		"QUEEN_S3_START": "earliest", "QUEEN_S3_TARGET_MB": "64", "QUEEN_S3_MAX_WINDOW_MS": "60000", "QUEEN_S3_SINK": "s2",
	})
	sink, _, err := confTestParse(env)
	if err != nil {
		t.Fatal(err)
	}
	doc := map[string]string{}
	for _, f := range confSinkFields {
		if v := env[f.env]; v != "" && f != cfSecretKey {
			doc[f.doc] = `"` + v + `"`
		}
	}
	doc["pathStyle"] = "true"
	doc["maxWindowMs"] = "60000"
	s, err := ParseDocument(docOf(doc))
	if err != nil {
		t.Fatal(err)
	}
	s.SecretKey = sink.SecretKey
	if !reflect.DeepEqual(s, sink) {
		t.Errorf("document %s\n got %#v\nwant %#v", docOf(doc), s, sink)
	}
}
