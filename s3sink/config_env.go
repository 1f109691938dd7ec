package s3sink

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The variables read outside the per-sink table: QUEEN_S3_EMBEDDED, the
// switch queen/config reads before anything of the sink, and the refused
// static partition list.
const (
	envEmbedded   = "QUEEN_S3_EMBEDDED"
	envPartitions = "QUEEN_S3_PARTITIONS"
)

// The node-wide settings (§2a, §2c), with the document field each is
// refused under.
var (
	nfThreads = &confField{env: "QUEEN_S3_THREADS", doc: "threads", lo: 1, hi: 64,
		what: "the worker threads of the sink's own runtime, shared by all tenants' sinks"}
	nfGrace = &confField{env: "QUEEN_S3_SHUTDOWN_GRACE_MS", doc: "shutdownGraceMs", lo: 100, hi: 3_600_000, unit: millis,
		what: "the drain budget counted from SIGTERM, in milliseconds"}
	nfMemoryMB = &confField{env: "QUEEN_S3_MEMORY_MB", doc: "memoryMb", lo: 1, hi: 1_048_576, unit: mib,
		what: "the one buffer budget, in MiB, of all queues of all sinks on this node; when it is hit, the largest buffer closes first"}
	nfFetch = &confField{env: "QUEEN_S3_FETCH_CONCURRENCY", doc: "fetchConcurrency", lo: 1, hi: 256,
		what: "how many log reads each queue keeps in flight"}
	nfDiscovery = &confField{env: "QUEEN_S3_DISCOVERY_INTERVAL_MS", doc: "discoveryIntervalMs", lo: 10, hi: 3_600_000, unit: millis,
		what: "how often an idle queue looks for new records and partitions, in milliseconds"}
	nfSafeGuard = &confField{env: "QUEEN_S3_SAFE_GUARD_MS", doc: "safeGuardMs", lo: 0, hi: 3_600_000, unit: millis,
		what: "how far below safeTime a window closes, in milliseconds"}
	nfLeaseTTL = &confField{env: "QUEEN_S3_LEASE_TTL_MS", doc: "leaseTtlMs", lo: 1000, hi: 3_600_000, unit: millis,
		what: "how long a queue lease and a presence row live without a refresh, in milliseconds"}
	nfMultipart = &confField{env: "QUEEN_S3_MULTIPART_THRESHOLD_MB", doc: "multipartThresholdMb", lo: 5, hi: 5120, unit: mib,
		what: "the object size, in MiB, above which an upload is multipart (16 MiB parts) rather than one PUT"}
	nfCheckpoint = &confField{env: "QUEEN_S3_CHECKPOINT_EVERY", doc: "checkpointEvery", lo: 1, hi: 100_000,
		what: "how many windows pass between two position checkpoints"}
	nfInstance = &confField{env: "QUEEN_S3_INSTANCE", doc: "instance",
		what: "this node's lease identity"}
	nfCrashAt = &confField{env: "QUEEN_S3_CRASH_AT", doc: "crashAt", kind: "a crash point",
		accepted: "never (off, none), after_intent, mid_upload, after_upload, before_commit, after_commit",
		what:     "for tests only, the step of the commit sequence at which the broker aborts"}
	nfEmbedded = &confField{env: envEmbedded, doc: "embedded"}
)

// confNodeFields are the node-wide settings, refused in a document.
var confNodeFields = []*confField{
	nfEmbedded, nfThreads, nfGrace, nfMemoryMB, nfFetch, nfDiscovery, nfSafeGuard, nfLeaseTTL,
	nfMultipart, nfCheckpoint, nfInstance, nfCrashAt,
}

var confCrashPoints = map[string]CrashPoint{
	"never": CrashNever, "off": CrashNever, "none": CrashNever,
	"after_intent": CrashAfterIntent, "mid_upload": CrashMidUpload, "after_upload": CrashAfterUpload,
	"before_commit": CrashBeforeCommit, "after_commit": CrashAfterCommit,
}

// EnvVars are the variables ParseEnv reads: every per-sink and node-wide
// variable but QUEEN_S3_EMBEDDED, and QUEEN_S3_PARTITIONS. The one reader
// of the environment (queen/config) reads each once, when the sink is
// embedded, and hands their text to ParseEnv.
func EnvVars() []string {
	var names []string
	for _, f := range confNodeFields {
		if f != nfEmbedded {
			names = append(names, f.env)
		}
	}
	names = append(names, envPartitions)
	for _, f := range confSinkFields {
		names = append(names, f.env)
	}
	return names
}

// ParseEnv reads the embedded sink's settings from the text of its
// variables (vars, by name, as the environment gave them: a missing or
// blank one is unset), for node nodeID (QUEEN_RAFT_NODE_ID) on host
// hostname ("" reads as localhost), threads defaulting from cores. sink
// is the default tenant's, nil when QUEEN_S3_QUEUES is unset (the node
// runs only control-plane sinks).
//
// Defaults first, then each setting checked as it is read; enumerations
// ignore case. The first refusal, in the order of the spec's tables (§2a,
// QUEEN_S3_PARTITIONS, §2b, §2c), is a *ConfigError naming the variable:
// the boot prints it after "QUEEN_S3_EMBEDDED=true: ". What ParseEnv
// returns passes Validate.
func ParseEnv(vars map[string]string, nodeID uint64, hostname string, cores int) (sink *Settings, node NodeSettings, err error) {
	raw := func(name string) string { return strings.TrimSpace(vars[name]) }
	p := &confParser{get: func(f *confField) confRaw {
		s := raw(f.env)
		return confRaw{set: s != "", text: s, kind: 'e'}
	}}
	n := confDefaultNode(nodeID, hostname, cores)
	n.Threads = int(confBrokerInt(p, nfThreads, int64(n.Threads)))
	n.ShutdownGrace = time.Duration(confBrokerInt(p, nfGrace, int64(n.ShutdownGrace)))

	if s := raw(envPartitions); s != "" && p.err == nil {
		p.err = &ConfigError{Var: envPartitions, Msg: fmt.Sprintf("%s=%s is refused: a static partition list is not supported, "+
			"because a window can only close below the safeTime that discovery reports for the partitions it finds. "+
			"Unset it: the sink discovers every partition of its queues", envPartitions, confShow(s, false))}
	}

	if raw(cfQueues.env) != "" {
		sink = confSink(p, true)
	} else {
		for _, f := range confSinkFields {
			if raw(f.env) != "" && p.err == nil {
				p.fail(f, "%s is set but %s is not: the default tenant's sink runs only when %s names its queues. "+
					"Set %s, or unset %s and leave the sinks to the control plane", f.env, cfQueues.env, cfQueues.env, cfQueues.env, f.env)
			}
		}
	}

	n.MemoryBytes = p.num(nfMemoryMB, n.MemoryBytes, false)
	n.FetchConcurrency = int(p.num(nfFetch, int64(n.FetchConcurrency), false))
	n.DiscoveryInterval = time.Duration(p.num(nfDiscovery, int64(n.DiscoveryInterval), false))
	n.SafeGuard = time.Duration(p.num(nfSafeGuard, int64(n.SafeGuard), false))
	n.LeaseTTL = time.Duration(p.num(nfLeaseTTL, int64(n.LeaseTTL), false))
	n.MultipartThreshold = p.num(nfMultipart, n.MultipartThreshold, false)
	n.CheckpointEvery = int(p.num(nfCheckpoint, int64(n.CheckpointEvery), false))
	if s, ok := p.str(nfInstance); ok {
		suffix := "/node-" + strconv.FormatUint(nodeID, 10)
		if !strings.HasSuffix(s, suffix) {
			s += suffix
		}
		n.Instance = s
	}
	n.CrashAt = confEnum(p, nfCrashAt, n.CrashAt, confLookup(confCrashPoints))
	if p.err != nil {
		return nil, NodeSettings{}, p.err
	}
	return sink, n, nil
}

// confBrokerInt reads one of the broker-owned numbers (§2a) in its
// field's range, def and the result in the Go value's units, refused as
// NAME=<raw> is not an integer in MIN..=MAX.
func confBrokerInt(p *confParser, f *confField, def int64) int64 {
	r := p.get(f)
	if !r.set {
		return def
	}
	v, err := strconv.ParseInt(r.text, 10, 64)
	if err != nil || v < f.lo || v > f.hi {
		p.fail(f, "%s=%s is not an integer in %d..=%d", f.env, p.show(r), f.lo, f.hi)
		return def
	}
	return v * f.per()
}

// The units of the fields' ranges.
const millis = int64(time.Millisecond)
