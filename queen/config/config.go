package config

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/queen-mq/queen-go/queen/internal/seal"
)

// Config is the broker's configuration, read once at boot from the
// environment and passed down; no package reads the environment itself.
type Config struct {
	// HTTP.
	Port         int    // PORT
	BindAddr     string // QUEEN_BIND_ADDR
	MaxBodyBytes int64  // QUEEN_MAX_BODY_BYTES
	// RequestTimeout bounds a request's work (QUEEN_STMT_TIMEOUT_MS).
	RequestTimeout time.Duration
	// TenancyHeader takes the tenant from x-queen-tenant (QUEEN_TENANCY_HEADER).
	TenancyHeader bool
	// EncryptionKey seals the payloads of queues with encryptionEnabled
	// (QUEEN_ENCRYPTION_KEY: 32 bytes in hex or base64; nil when unset).
	// Every node must have the same.
	EncryptionKey []byte
	// CPToken enables the control plane under /api/cp/ (QUEEN_PROXY_CP_TOKEN,
	// at least 16 characters; "" when unset: those routes are 404). Every
	// control-plane request carries it in x-queen-cp-token.
	CPToken string
	// ShutdownGrace is how long SIGTERM waits for requests in flight
	// (QUEEN_SHUTDOWN_GRACE_MS).
	ShutdownGrace time.Duration
	// EphemeralMaxBytes caps what this node's ephemeral queues hold in
	// memory, each message's payload plus 128 bytes
	// (QUEEN_EPHEMERAL_MAX_BYTES); a push past it is 429.
	EphemeralMaxBytes int64
	// PprofAddr is where Go's profiler (net/http/pprof's /debug/pprof/)
	// listens, host:port; "" (the default) serves none (QUEEN_PPROF_ADDR).
	PprofAddr string

	// Hostname is this host's name: HOSTNAME, else the system's. It makes
	// QUEEN_RAFT_NODE_ID=ordinal's id and the sink's lease identity.
	Hostname string

	// Raft.
	DataDir            string            // QUEEN_DATA_DIR
	NodeID             uint64            // QUEEN_RAFT_NODE_ID
	RaftAddress        string            // QUEEN_RAFT_ADDRESS
	RaftListenAddress  string            // QUEEN_RAFT_LISTEN_ADDRESS ("": RaftAddress)
	Members            map[uint64]string // QUEEN_RAFT_MEMBERS
	Join               bool              // QUEEN_RAFT_JOIN
	RTT                time.Duration     // QUEEN_RAFT_RTT_MS
	ElectionRTT        uint64            // QUEEN_RAFT_ELECTION_RTT
	HeartbeatRTT       uint64            // QUEEN_RAFT_HEARTBEAT_RTT
	SnapshotEntries    uint64            // QUEEN_RAFT_SNAPSHOT_ENTRIES
	CompactionOverhead uint64            // QUEEN_RAFT_COMPACTION_OVERHEAD
	TickInterval       time.Duration     // QUEEN_RAFT_TICK_MS
	// RaftLogDB sizes the raft log store: tiny (the default), small,
	// medium or large (QUEEN_RAFT_LOGDB, case ignored). Each step up
	// quadruples its memtables (4, 16, 64, 128 MiB), what it may hold in
	// memory (256 MiB, 1, 4, 8 GiB) and the write-ahead log it preallocates
	// on disk; see raftlog.LogDBSize and BENCHMARKS.md for what they buy.
	RaftLogDB string
	// ReadyLag is the apply lag past which /health says settling
	// (QUEEN_RAFT_READY_LAG_MS).
	ReadyLag time.Duration
	// RetentionInterval is how often the leader runs retention
	// (RETENTION_INTERVAL, milliseconds).
	RetentionInterval time.Duration
	// MaxClockSkew is the clock skew between nodes that lease exclusivity
	// assumes across a change of leader: a partition stays held this long
	// past its lease's end (QUEEN_RAFT_MAX_CLOCK_SKEW_MS).
	MaxClockSkew time.Duration
	// TimerTick is how often the leader looks for due timers
	// (QUEEN_RAFT_TIMER_TICK_MS); TimerHorizon the longest delay a timer
	// may have (QUEEN_TIMERS_MAX_HORIZON_S).
	TimerTick    time.Duration
	TimerHorizon time.Duration
	// TraceRetention is how long a trace event lives on the broker clock
	// (QUEEN_TRACES_RETENTION_S); the leader's retention pass deletes it
	// after that.
	TraceRetention time.Duration
	// DefaultSubscriptionMode is the subscription of a pop that names
	// none: "new" or "all" (DEFAULT_SUBSCRIPTION_MODE; from_beginning
	// and new-only are accepted as the API spells them).
	DefaultSubscriptionMode string
	// ClockOffset moves this node's proposer clock forward, for tests that
	// need stamps at a chosen time (QUEEN_RAFT_CLOCK_OFFSET_MS, test-only).
	ClockOffset time.Duration
	// DiskHighPct is the percent of its file system's space past which
	// this node reports its data directory full, and every node then
	// refuses writes that grow the store with 507 storage_full while acks,
	// pops and deletes go on (QUEEN_RAFT_DISK_HIGH_PCT, 1..=100, default
	// 85; 0 turns this node's watch off). DiskLowPct is the percent below
	// which a full node reports itself no longer full
	// (QUEEN_RAFT_DISK_LOW_PCT, 1 or more, default 5 below the high mark, or half of it when that is more), and
	// DiskPoll how often the disk is read (QUEEN_RAFT_DISK_POLL_MS, 1000).
	DiskHighPct, DiskLowPct int
	DiskPoll                time.Duration

	// JWT is the broker JWT auth (JWT_*), off by default.
	JWT JWT

	// Logging.
	LogLevel  slog.Level // QUEEN_LOG_LEVEL
	LogFormat string     // QUEEN_LOG_FORMAT: auto, text or json
}

// Load reads the configuration through getenv (os.Getenv in the binary).
// Every variable is read once; a blank value counts as unset; enumerations
// ignore case. The first variable out of range stops the boot: the error is
// a *BootError whose Line is what the binary prints.
func Load(getenv func(string) string) (*Config, error) {
	l := &loader{get: getenv, context: "broker"}
	c := &Config{}
	c.Port, c.BindAddr = l.listen()
	c.MaxBodyBytes = l.int("QUEEN_MAX_BODY_BYTES", 64<<20, 1024, 1<<30, "the largest request body, in bytes")
	c.RequestTimeout = ms(l.int("QUEEN_STMT_TIMEOUT_MS", 30_000, 100, 600_000, "how long a request may take, in milliseconds"))
	c.TenancyHeader = l.bool("QUEEN_TENANCY_HEADER", false, "whether the tenant comes from the x-queen-tenant header")
	if raw := l.raw("QUEEN_ENCRYPTION_KEY"); raw != "" {
		key, err := seal.ParseKey(raw)
		if err != nil {
			// The value is a secret: the line names its length, never its text.
			l.fail("QUEEN_ENCRYPTION_KEY (%d characters) is not a key: %v", len(raw), err)
		}
		c.EncryptionKey = key
	}
	if raw := l.raw("QUEEN_PROXY_CP_TOKEN"); raw != "" {
		if len(raw) < 16 {
			// A secret too: the line names its length, never its text.
			l.fail("QUEEN_PROXY_CP_TOKEN (%d characters) is too short: it is the control plane's token, at least 16 characters", len(raw))
		}
		c.CPToken = raw
	}
	c.ShutdownGrace = ms(l.int("QUEEN_SHUTDOWN_GRACE_MS", 30_000, 0, 3_600_000, "how long SIGTERM waits for requests in flight, in milliseconds"))
	c.EphemeralMaxBytes = l.int("QUEEN_EPHEMERAL_MAX_BYTES", 256<<20, 1<<20, 1<<40,
		"the memory this node's ephemeral queues may hold, in bytes (each message counts its payload and 128)")
	c.PprofAddr = l.str("QUEEN_PPROF_ADDR", "", func(s string) string {
		if checkHostPort(s) != "" {
			return "is not host:port. It is where Go's profiler listens (/debug/pprof/), such as 127.0.0.1:6060; unset serves none"
		}
		return ""
	})

	c.DataDir = l.str("QUEEN_DATA_DIR", "queen-data", nil)
	if c.Hostname = l.raw("HOSTNAME"); c.Hostname == "" {
		c.Hostname, _ = os.Hostname()
	}
	c.NodeID = l.nodeID(c.Hostname)
	c.RaftAddress = l.str("QUEEN_RAFT_ADDRESS", "127.0.0.1:6633", checkHostPort)
	c.Join = l.bool("QUEEN_RAFT_JOIN", false, "whether this node joins a running cluster it was added to")
	c.Members, c.NodeID = l.members(c.NodeID, c.RaftAddress, c.Join)
	if l.raw("QUEEN_RAFT_ADDRESS") == "" && c.Members[c.NodeID] != "" {
		c.RaftAddress = c.Members[c.NodeID] // the member list says where this node is
	}
	c.RaftListenAddress = l.str("QUEEN_RAFT_LISTEN_ADDRESS", "", func(s string) string {
		if checkHostPort(s) != "" {
			return "is not host:port. It is where this node's raft transport listens when its peers reach it at QUEEN_RAFT_ADDRESS through another address (a NAT, a port map, a proxy), such as 0.0.0.0:6633"
		}
		return ""
	})
	c.RTT = ms(l.int("QUEEN_RAFT_RTT_MS", 50, 1, 10_000, "the round trip between nodes, in milliseconds"))
	c.ElectionRTT = uint64(l.int("QUEEN_RAFT_ELECTION_RTT", 10, 3, 1000, "the election timeout, in round trips"))
	c.HeartbeatRTT = uint64(l.int("QUEEN_RAFT_HEARTBEAT_RTT", 1, 1, 100, "the heartbeat interval, in round trips"))
	if c.ElectionRTT <= 2*c.HeartbeatRTT && l.err == nil {
		l.fail("QUEEN_RAFT_ELECTION_RTT=%d is outside %d..=1000. It must exceed twice QUEEN_RAFT_HEARTBEAT_RTT=%d",
			c.ElectionRTT, 2*c.HeartbeatRTT+1, c.HeartbeatRTT)
	}
	c.SnapshotEntries = uint64(l.int("QUEEN_RAFT_SNAPSHOT_ENTRIES", 100_000, 100, 100_000_000, "how many entries apply between snapshots"))
	c.CompactionOverhead = uint64(l.int("QUEEN_RAFT_COMPACTION_OVERHEAD", 20_000, 10, 100_000_000, "how many entries the raft log keeps behind a snapshot"))
	c.TickInterval = ms(l.int("QUEEN_RAFT_TICK_MS", 1000, 10, 60_000, "how often an idle leader moves safeTime, in milliseconds"))
	c.RaftLogDB = l.enum("QUEEN_RAFT_LOGDB", "tiny", "raft log store size", map[string]string{
		"tiny": "tiny", "small": "small", "medium": "medium", "large": "large"},
		"tiny, small, medium, large", "the memory and disk the raft log store may take, from 256 MiB of memory (tiny) to 8 GiB (large)")
	c.ReadyLag = ms(l.int("QUEEN_RAFT_READY_LAG_MS", 2000, 0, 3_600_000, "the apply lag past which /health answers settling, in milliseconds"))
	c.MaxClockSkew = ms(l.int("QUEEN_RAFT_MAX_CLOCK_SKEW_MS", 500, 0, 60_000, "the clock skew between nodes that leases allow for, in milliseconds"))
	c.ClockOffset = ms(l.int("QUEEN_RAFT_CLOCK_OFFSET_MS", 0, 0, 86_400_000, "a test-only shift of this node's proposer clock, forward, in milliseconds"))
	c.DiskHighPct, c.DiskLowPct, c.DiskPoll = l.disk()
	c.TimerTick = ms(l.int("QUEEN_RAFT_TIMER_TICK_MS", 50, 1, 60_000, "how often the leader fires due timers, in milliseconds"))
	c.TimerHorizon = time.Duration(l.int("QUEEN_TIMERS_MAX_HORIZON_S", 90*86400, 1, 10*365*86400, "the longest delay of a timer, in seconds")) * time.Second
	c.TraceRetention = time.Duration(l.int("QUEEN_TRACES_RETENTION_S", 7*86400, 60, 10*365*86400, "how long a trace event is kept, in seconds")) * time.Second
	c.DefaultSubscriptionMode = l.enum("DEFAULT_SUBSCRIPTION_MODE", "new", "subscription mode", map[string]string{
		"new": "new", "new-only": "new", "all": "all", "from_beginning": "all"},
		"new, all, new-only, from_beginning", "where a consumer group that has never popped starts: after the last record (new) or at the first (all)")
	c.JWT = l.jwt()
	c.RetentionInterval = ms(l.int("RETENTION_INTERVAL", 300_000, 100, 86_400_000, "how often the leader deletes what queue retention says, in milliseconds"))

	c.LogLevel = slog.Level(levels[l.enum("QUEEN_LOG_LEVEL", "info", "log level", map[string]string{
		"debug": "debug", "info": "info", "warn": "warn", "warning": "warn", "error": "error"},
		"debug, info, warn, error", "how much the broker logs")])
	c.LogFormat = l.enum("QUEEN_LOG_FORMAT", "auto", "log format", map[string]string{
		"auto": "auto", "text": "text", "json": "json"},
		"auto, text, json", "auto writes colored text to a terminal and JSON otherwise")
	if l.err != nil {
		return nil, l.err
	}
	c.DataDir = filepath.Clean(c.DataDir)
	return c, nil
}

// Listen reads PORT and QUEEN_BIND_ADDR through getenv as Load does:
// where this node's HTTP listener is, for `queen healthcheck`. The first
// refusal is a *BootError naming the variable.
func Listen(getenv func(string) string) (port int, bindAddr string, err error) {
	l := &loader{get: getenv, context: "broker"}
	port, bindAddr = l.listen()
	if l.err != nil {
		return 0, "", l.err
	}
	return port, bindAddr, nil
}

func (l *loader) listen() (port int, bindAddr string) {
	port = int(l.int("PORT", 6632, 1, 65535, "the HTTP port the broker listens on"))
	bindAddr = l.str("QUEEN_BIND_ADDR", "0.0.0.0", func(s string) string {
		if net.ParseIP(s) == nil {
			return "is not an IP address. It is the address the HTTP listener binds, such as 0.0.0.0 or 127.0.0.1"
		}
		return ""
	})
	return port, bindAddr
}

var levels = map[string]int{"debug": int(slog.LevelDebug), "info": int(slog.LevelInfo), "warn": int(slog.LevelWarn), "error": int(slog.LevelError)}

func ms(v int64) time.Duration { return time.Duration(v) * time.Millisecond }

func checkHostPort(s string) string {
	host, port, err := net.SplitHostPort(s)
	if p, perr := strconv.Atoi(port); err != nil || host == "" || perr != nil || p < 1 || p > 65535 {
		return "is not host:port. It is where this node's raft transport listens and its peers reach it, such as 10.0.0.1:6633"
	}
	return ""
}

// disk reads the storage gate's marks and poll interval.
func (l *loader) disk() (high, low int, poll time.Duration) {
	high = int(l.int("QUEEN_RAFT_DISK_HIGH_PCT", 85, 0, 100,
		"the percent of its disk past which this node reports itself full and the cluster refuses writes that grow the store (507 storage_full); 0 turns the watch off"))
	if high == 1 {
		l.fail("QUEEN_RAFT_DISK_HIGH_PCT=1 leaves no low mark below it. It is 0 (the watch off) or 2..=100")
	}
	if high >= 2 {
		low = int(l.int("QUEEN_RAFT_DISK_LOW_PCT", int64(max(high-5, high/2)), 1, int64(high-1),
			fmt.Sprintf("the percent of its disk below which a full node reports itself no longer full; below QUEEN_RAFT_DISK_HIGH_PCT=%d", high)))
	}
	poll = ms(l.int("QUEEN_RAFT_DISK_POLL_MS", 1000, 10, 60_000, "how often this node reads its disk's use, in milliseconds"))
	return high, low, poll
}

// nodeID reads QUEEN_RAFT_NODE_ID: a number, or "ordinal" for a
// StatefulSet pod, whose host name ends in -<n>: node n+1.
func (l *loader) nodeID(host string) uint64 {
	const what = "this node's id in the cluster, or ordinal (a StatefulSet pod's ordinal + 1)"
	s := l.raw("QUEEN_RAFT_NODE_ID")
	if strings.EqualFold(s, "ordinal") {
		i := strings.LastIndexByte(host, '-')
		n, err := strconv.ParseUint(host[i+1:], 10, 32)
		if i < 0 || err != nil {
			l.fail("QUEEN_RAFT_NODE_ID=ordinal with HOSTNAME=%s: the host name does not end in -<ordinal>", host)
			return 1
		}
		return n + 1
	}
	return uint64(l.int("QUEEN_RAFT_NODE_ID", 1, 1, 1<<31, what))
}

// members reads QUEEN_RAFT_MEMBERS, id=host:port,… naming this node; unset,
// this node alone. It returns the list and this node's id: when
// QUEEN_RAFT_NODE_ID is unset and QUEEN_RAFT_ADDRESS is one member's
// address (a StatefulSet pod's stable name, say), the id is that member's,
// so that every node of a cluster may share one environment. A joining node (a replacement, or one added later)
// has an id of its own, which the list of the cluster's first members
// need not name: the list is then only read for its form, raft takes the
// members from the cluster, and QUEEN_RAFT_ADDRESS must say where this
// node is.
func (l *loader) members(self uint64, addr string, join bool) (map[uint64]string, uint64) {
	m := l.memberList(self, addr, join)
	if m == nil || join || l.raw("QUEEN_RAFT_NODE_ID") != "" || l.raw("QUEEN_RAFT_ADDRESS") == "" {
		return m, self
	}
	var ids []uint64
	for id, hp := range m {
		if hp == addr {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	switch len(ids) {
	case 1:
		return m, ids[0]
	case 0:
		l.fail("QUEEN_RAFT_NODE_ID is unset and QUEEN_RAFT_ADDRESS=%s is no member's address in QUEEN_RAFT_MEMBERS=%s: "+
			"set QUEEN_RAFT_NODE_ID, or give QUEEN_RAFT_ADDRESS the address the list gives this node", addr, l.raw("QUEEN_RAFT_MEMBERS"))
	default:
		l.fail("QUEEN_RAFT_NODE_ID is unset and QUEEN_RAFT_MEMBERS=%s gives QUEEN_RAFT_ADDRESS=%s to nodes %d and %d: "+
			"set QUEEN_RAFT_NODE_ID, or give each member an address of its own", l.raw("QUEEN_RAFT_MEMBERS"), addr, ids[0], ids[1])
	}
	return nil, self
}

// memberList parses QUEEN_RAFT_MEMBERS and checks it names this node
// (self, at addr), as members says; nil after a refusal.
func (l *loader) memberList(self uint64, addr string, join bool) map[uint64]string {
	s := l.raw("QUEEN_RAFT_MEMBERS")
	if join && l.raw("QUEEN_RAFT_ADDRESS") == "" {
		l.fail("QUEEN_RAFT_JOIN=true needs QUEEN_RAFT_ADDRESS: the host:port the cluster was told for this node (POST /api/v1/raft/members/replace keeps the replaced node's)")
	}
	if join && l.raw("QUEEN_RAFT_NODE_ID") == "" {
		l.fail("QUEEN_RAFT_JOIN=true needs QUEEN_RAFT_NODE_ID: the new id the cluster was told for this node (newNodeId of POST /api/v1/raft/members/replace); a joining node never takes a first member's id")
	}
	if s == "" {
		return map[uint64]string{self: addr}
	}
	bad := func(why string) map[uint64]string {
		l.fail("QUEEN_RAFT_MEMBERS=%s is not a member list: %s. It is id=host:port, comma-separated, the same on every node", s, why)
		return nil
	}
	m := map[uint64]string{}
	for _, f := range strings.Split(s, ",") {
		id, hp, ok := strings.Cut(strings.TrimSpace(f), "=")
		n, err := strconv.ParseUint(strings.TrimSpace(id), 10, 64)
		switch {
		case !ok || err != nil || n == 0:
			return bad(fmt.Sprintf("%q has no id=host:port", f))
		case checkHostPort(strings.TrimSpace(hp)) != "":
			return bad(fmt.Sprintf("%q is not host:port", hp))
		case m[n] != "":
			return bad(fmt.Sprintf("node %d is listed twice", n))
		}
		m[n] = strings.TrimSpace(hp)
	}
	if join && m[self] != "" {
		l.fail("QUEEN_RAFT_JOIN=true with QUEEN_RAFT_NODE_ID=%d, which QUEEN_RAFT_MEMBERS=%s lists: a joining node takes an id no node of the cluster ever had. "+
			"An id is never reused: a node rebuilt empty under its old id would have forgotten what its peers counted on (replace it: POST /api/v1/raft/members/replace)", self, s)
		return nil
	}
	if join {
		m[self] = addr
		return m
	}
	if l.raw("QUEEN_RAFT_NODE_ID") == "" && l.raw("QUEEN_RAFT_ADDRESS") != "" {
		return m // members takes this node's id from its address
	}
	if m[self] == "" {
		ids := make([]string, 0, len(m))
		for id := range m {
			ids = append(ids, strconv.FormatUint(id, 10))
		}
		slices.Sort(ids)
		return bad(fmt.Sprintf("it names nodes %s but not this one, QUEEN_RAFT_NODE_ID=%d", strings.Join(ids, ","), self))
	}
	if l.raw("QUEEN_RAFT_ADDRESS") != "" && m[self] != addr {
		return bad(fmt.Sprintf("it gives node %d the address %s, QUEEN_RAFT_ADDRESS says %s", self, m[self], addr))
	}
	return m
}
