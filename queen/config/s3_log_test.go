package config

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestConfigLogLine(t *testing.T) {
	const kms = "arn:aws:kms:eu-central-1:111122223333:key/1234abcd"
	c, err := confTestLoad(withBase(map[string]string{
		"QUEEN_S3_SSE": "kms", "QUEEN_S3_SSE_KMS_KEY_ID": kms, "QUEEN_S3_QUEUES": "orders, my queue",
		"QUEEN_S3_PATH_STYLE": "true", "QUEEN_S3_START": "earliest", "QUEEN_S3_MAX_WINDOW_MS": "10000",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := "embedded=true threads=1 shutdownGraceMs=30000 memoryMb=512 fetchConcurrency=4 discoveryIntervalMs=2000 " +
		"safeGuardMs=5000 leaseTtlMs=30000 multipartThresholdMb=64 checkpointEvery=20 instance=node-3@host-a crashAt=never " +
		"tenant=00000000-0000-0000-0000-000000000001 sink=default queues=\"orders,my queue\" endpoint=http://minio:9000 " +
		"region=us-east-1 bucket=lake prefix=queen pathStyle=true accessKey=queen sse=aws:kms sseKmsKeyId=…abcd " +
		"format=jsonl compression=zstd parquetCodec=zstd layout=merged align=hour start=earliest targetMb=128 maxWindowMs=10000"
	if got := c.LogLine(); got != want {
		t.Errorf("log line:\n got %s\nwant %s", got, want)
	}

	// However the settings are printed or logged, the secret never shows,
	// nor the KMS key id beyond its last 4 characters.
	var js, text bytes.Buffer
	slog.New(slog.NewJSONHandler(&js, nil)).Info("s3", "sink", c.Sink, "node", c.Node)
	slog.New(slog.NewTextHandler(&text, nil)).Info("s3", "sink", *c.Sink)
	outs := map[string]string{
		"LogLine": c.LogLine(), "json": js.String(), "text": text.String(),
		"%v": fmt.Sprintf("%v", *c.Sink), "%+v": fmt.Sprintf("%+v", c.Sink), "%#v": fmt.Sprintf("%#v", *c.Sink),
		"%v of EnvConfig": fmt.Sprintf("%+v", *c), "%s": fmt.Sprintf("%s", c.Sink),
	}
	for how, out := range outs {
		if strings.Contains(out, "queen-secret-key") || strings.Contains(out, "secret") {
			t.Errorf("%s shows the secret: %s", how, out)
		}
		if strings.Contains(out, "111122223333") {
			t.Errorf("%s shows the KMS key id: %s", how, out)
		}
	}
	if !strings.Contains(js.String(), `"sink":{"sink":"default","queues":"orders,my queue"`) ||
		!strings.Contains(js.String(), `"node":{"threads":1,`) {
		t.Errorf("slog JSON: %s", js.String())
	}

	c, err = confTestLoad(map[string]string{"QUEEN_S3_EMBEDDED": "true"})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.LogLine(); !strings.HasSuffix(got, ` tenant=00000000-0000-0000-0000-000000000001 envSink="off: QUEEN_S3_QUEUES is unset, control-plane sinks only"`) {
		t.Errorf("log line without the default tenant's sink: %s", got)
	}
}
