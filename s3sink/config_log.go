package s3sink

import (
	"log/slog"
	"strconv"
	"strings"
	"unicode"
)

// LogValue makes slog log the settings as a group, without the secret key.
func (s Settings) LogValue() slog.Value { return slog.GroupValue(s.logAttrs()...) }

// String returns the settings in key=value form, without the secret key,
// so that printing them with %v never shows it.
func (s Settings) String() string { return confLogfmt(s.logAttrs()) }

// GoString is String, so that %#v never shows the secret key either.
func (s Settings) GoString() string { return "s3sink.Settings{" + s.String() + "}" }

// LogValue makes slog log the node settings as a group.
func (n NodeSettings) LogValue() slog.Value { return slog.GroupValue(n.logAttrs()...) }

// String returns the node settings in key=value form.
func (n NodeSettings) String() string { return confLogfmt(n.logAttrs()) }

func (s *Settings) logAttrs() []slog.Attr {
	queues := strings.Join(s.Queues, ",")
	if s.AllQueues {
		queues = "*"
	}
	sse := s.SSE
	if sse == "" {
		sse = "none"
	}
	attrs := []slog.Attr{
		slog.String("sink", s.Sink),
		slog.String("queues", queues),
		slog.String("endpoint", s.Endpoint),
		slog.String("region", s.Region),
		slog.String("bucket", s.Bucket),
		slog.String("prefix", s.Prefix),
		slog.Bool("pathStyle", s.PathStyle),
		slog.String("accessKey", s.AccessKey),
		slog.String("sse", sse),
	}
	if s.SSEKMSKeyID != "" {
		attrs = append(attrs, slog.String("sseKmsKeyId", confLast4(s.SSEKMSKeyID)))
	}
	start := "latest"
	if s.StartEarliest {
		start = "earliest"
	}
	return append(attrs,
		slog.String("format", s.Format.String()),
		slog.String("compression", s.Compression.String()),
		slog.String("parquetCodec", s.ParquetCodec.String()),
		slog.String("layout", s.Layout.String()),
		slog.String("align", s.Align.String()),
		slog.String("start", start),
		slog.String("targetMb", confUnits(s.TargetBytes, mib)),
		slog.Int64("maxWindowMs", s.MaxWindow.Milliseconds()),
	)
}

func (n *NodeSettings) logAttrs() []slog.Attr {
	return []slog.Attr{
		slog.Int("threads", n.Threads),
		slog.Int64("shutdownGraceMs", n.ShutdownGrace.Milliseconds()),
		slog.String("memoryMb", confUnits(n.MemoryBytes, mib)),
		slog.Int("fetchConcurrency", n.FetchConcurrency),
		slog.Int64("discoveryIntervalMs", n.DiscoveryInterval.Milliseconds()),
		slog.Int64("safeGuardMs", n.SafeGuard.Milliseconds()),
		slog.Int64("leaseTtlMs", n.LeaseTTL.Milliseconds()),
		slog.String("multipartThresholdMb", confUnits(n.MultipartThreshold, mib)),
		slog.Int("checkpointEvery", n.CheckpointEvery),
		slog.String("instance", n.Instance),
		slog.String("crashAt", string(n.CrashAt)),
	}
}

// confLast4 shows a KMS key id by its last 4 characters only.
func confLast4(s string) string {
	r := []rune(s)
	if len(r) <= 4 {
		return "…"
	}
	return "…" + string(r[len(r)-4:])
}

// confLogfmt writes attrs as key=value, quoting a value that is empty or
// holds a space, a quote, an = or a control character.
func confLogfmt(attrs []slog.Attr) string {
	var b strings.Builder
	for i, a := range attrs {
		if i > 0 {
			b.WriteByte(' ')
		}
		v := a.Value.String()
		if v == "" || strings.IndexFunc(v, func(r rune) bool {
			return r == '"' || r == '=' || r == '\\' || unicode.IsSpace(r) || !unicode.IsPrint(r)
		}) >= 0 {
			v = strconv.Quote(v)
		}
		b.WriteString(a.Key)
		b.WriteByte('=')
		b.WriteString(v)
	}
	return b.String()
}
