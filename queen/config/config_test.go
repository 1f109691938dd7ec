package config_test

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/queen/config"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDefaults(t *testing.T) {
	c, err := config.Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Port != 6632 || c.BindAddr != "0.0.0.0" || c.DataDir != "queen-data" || c.NodeID != 1 ||
		c.RaftAddress != "127.0.0.1:6633" || len(c.Members) != 1 || c.Members[1] != "127.0.0.1:6633" ||
		c.MaxBodyBytes != 64<<20 || c.RequestTimeout != 30*time.Second || c.LogLevel != slog.LevelInfo ||
		c.LogFormat != "auto" || c.TenancyHeader || c.Join || c.MaxClockSkew != 500*time.Millisecond ||
		c.DefaultSubscriptionMode != "new" || c.TimerTick != 50*time.Millisecond || c.TimerHorizon != 90*24*time.Hour ||
		c.EphemeralMaxBytes != 256<<20 || c.PprofAddr != "" || c.RaftLogDB != "tiny" ||
		c.TraceRetention != 7*24*time.Hour {
		t.Errorf("defaults: %+v", c)
	}
}

func TestCluster(t *testing.T) {
	c, err := config.Load(env(map[string]string{
		"QUEEN_RAFT_NODE_ID": "2", "QUEEN_RAFT_MEMBERS": "1=10.0.0.1:6633, 2=10.0.0.2:6633,3=10.0.0.3:6633",
		"QUEEN_LOG_LEVEL": "WARN", "QUEEN_TENANCY_HEADER": "Yes", "PORT": "  ", "DEFAULT_SUBSCRIPTION_MODE": "From_Beginning",
		"QUEEN_PPROF_ADDR": "127.0.0.1:6060",
		"QUEEN_RAFT_LOGDB": " Medium ",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.NodeID != 2 || c.RaftAddress != "10.0.0.2:6633" || len(c.Members) != 3 || c.Members[3] != "10.0.0.3:6633" ||
		c.LogLevel != slog.LevelWarn || !c.TenancyHeader || c.Port != 6632 || c.DefaultSubscriptionMode != "all" ||
		c.PprofAddr != "127.0.0.1:6060" || c.RaftLogDB != "medium" {
		t.Errorf("cluster: %+v", c)
	}
	c, err = config.Load(env(map[string]string{"QUEEN_RAFT_NODE_ID": "ordinal", "HOSTNAME": "queen-2"}))
	if err != nil || c.NodeID != 3 {
		t.Errorf("ordinal of queen-2: %v, node %d, want 3", err, c.NodeID)
	}
}

// Without QUEEN_RAFT_NODE_ID, a node whose QUEEN_RAFT_ADDRESS is one
// member's address takes that member's id: the StatefulSet of
// deploy/kubernetes/queen.yaml gives every pod one environment, the
// address built from its own name.
func TestNodeIDFromAddress(t *testing.T) {
	const members = "1=queen-0.queen-raft.queen.svc.cluster.local:6633,2=queen-1.queen-raft.queen.svc.cluster.local:6633,3=queen-2.queen-raft.queen.svc.cluster.local:6633"
	for i, want := range []uint64{1, 2, 3} {
		addr := fmt.Sprintf("queen-%d.queen-raft.queen.svc.cluster.local:6633", i)
		c, err := config.Load(env(map[string]string{"QUEEN_RAFT_MEMBERS": members, "QUEEN_RAFT_ADDRESS": " " + addr + " "}))
		if err != nil {
			t.Fatalf("%s: %v", addr, err)
		}
		if c.NodeID != want || c.RaftAddress != addr || len(c.Members) != 3 || c.Members[want] != addr {
			t.Errorf("%s: node %d, address %s, members %v; want node %d", addr, c.NodeID, c.RaftAddress, c.Members, want)
		}
	}
	// An id that is set wins, and must still match its address.
	c, err := config.Load(env(map[string]string{"QUEEN_RAFT_MEMBERS": "1=a:1,2=b:2", "QUEEN_RAFT_ADDRESS": "b:2", "QUEEN_RAFT_NODE_ID": "2"}))
	if err != nil || c.NodeID != 2 {
		t.Errorf("id set and matching: %v, node %d", err, c.NodeID)
	}
	// Without an address the id stays the default 1, as before.
	c, err = config.Load(env(map[string]string{"QUEEN_RAFT_MEMBERS": "1=a:1,2=b:2"}))
	if err != nil || c.NodeID != 1 || c.RaftAddress != "a:1" {
		t.Errorf("no address: %v, node %d at %s", err, c.NodeID, c.RaftAddress)
	}
	// A joining node never takes an id from the list: its id is fresh.
	_, err = config.Load(env(map[string]string{"QUEEN_RAFT_JOIN": "true", "QUEEN_RAFT_MEMBERS": "1=a:1,2=b:2", "QUEEN_RAFT_ADDRESS": "b:2"}))
	if err == nil || !strings.Contains(err.Error(), "QUEEN_RAFT_JOIN=true needs QUEEN_RAFT_NODE_ID") {
		t.Errorf("a joining node without an id: %v", err)
	}
}

// A replacement joins with a fresh id, beside the member list every node
// shares: the list need not name it.
func TestJoinWithAFreshID(t *testing.T) {
	c, err := config.Load(env(map[string]string{"QUEEN_RAFT_NODE_ID": "4", "QUEEN_RAFT_JOIN": "true",
		"QUEEN_RAFT_ADDRESS": "10.0.0.3:6633", "QUEEN_RAFT_MEMBERS": "1=10.0.0.1:6633,2=10.0.0.2:6633,3=10.0.0.3:6633"}))
	if err != nil || !c.Join || c.NodeID != 4 || c.RaftAddress != "10.0.0.3:6633" || c.Members[4] != "10.0.0.3:6633" {
		t.Fatalf("a joining replacement: %+v %v", c, err)
	}
	c, err = config.Load(env(map[string]string{"QUEEN_RAFT_NODE_ID": "4", "QUEEN_RAFT_JOIN": "true", "QUEEN_RAFT_ADDRESS": "10.0.0.3:6633"}))
	if err != nil || c.Members[4] != "10.0.0.3:6633" {
		t.Fatalf("a joining node without a member list: %+v %v", c, err)
	}
}

// TestRefusals: every bad variable stops the boot with its one line.
func TestRefusals(t *testing.T) {
	cases := []refusal{
		{map[string]string{"PORT": "70000"}, "ERROR boot: FATAL: broker: PORT=70000 is outside 1..=65535. It is the HTTP port the broker listens on"},
		{map[string]string{"PORT": "http"}, "ERROR boot: FATAL: broker: PORT=http is not a whole number. It is the HTTP port the broker listens on, in 1..=65535"},
		{map[string]string{"QUEEN_BIND_ADDR": "localhost"}, "ERROR boot: FATAL: broker: QUEEN_BIND_ADDR=localhost is not an IP address. It is the address the HTTP listener binds, such as 0.0.0.0 or 127.0.0.1"},
		{map[string]string{"QUEEN_MAX_BODY_BYTES": "10"}, "ERROR boot: FATAL: broker: QUEEN_MAX_BODY_BYTES=10 is outside 1024..=1073741824. It is the largest request body, in bytes"},
		{map[string]string{"QUEEN_STMT_TIMEOUT_MS": "5"}, "ERROR boot: FATAL: broker: QUEEN_STMT_TIMEOUT_MS=5 is outside 100..=600000. It is how long a request may take, in milliseconds"},
		{map[string]string{"QUEEN_TENANCY_HEADER": "maybe"}, "ERROR boot: FATAL: broker: QUEEN_TENANCY_HEADER=maybe is not a boolean. It is `true` or `false`: whether the tenant comes from the x-queen-tenant header"},
		{map[string]string{"QUEEN_SHUTDOWN_GRACE_MS": "-1"}, "ERROR boot: FATAL: broker: QUEEN_SHUTDOWN_GRACE_MS=-1 is outside 0..=3600000. It is how long SIGTERM waits for requests in flight, in milliseconds"},
		{map[string]string{"QUEEN_RAFT_NODE_ID": "0"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_NODE_ID=0 is outside 1..=2147483648. It is this node's id in the cluster, or ordinal (a StatefulSet pod's ordinal + 1)"},
		{map[string]string{"QUEEN_RAFT_NODE_ID": "ordinal", "HOSTNAME": "queen"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_NODE_ID=ordinal with HOSTNAME=queen: the host name does not end in -<ordinal>"},
		{map[string]string{"QUEEN_RAFT_ADDRESS": "6633"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_ADDRESS=6633 is not host:port. It is where this node's raft transport listens and its peers reach it, such as 10.0.0.1:6633"},
		{map[string]string{"QUEEN_RAFT_LISTEN_ADDRESS": ":x"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_LISTEN_ADDRESS=:x is not host:port. It is where this node's raft transport listens when its peers reach it at QUEEN_RAFT_ADDRESS through another address (a NAT, a port map, a proxy), such as 0.0.0.0:6633"},
		{map[string]string{"QUEEN_RAFT_MEMBERS": "1=a:1,2"}, `ERROR boot: FATAL: broker: QUEEN_RAFT_MEMBERS=1=a:1,2 is not a member list: "2" has no id=host:port. It is id=host:port, comma-separated, the same on every node`},
		{map[string]string{"QUEEN_RAFT_MEMBERS": "2=a:1,3=b:2"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_MEMBERS=2=a:1,3=b:2 is not a member list: it names nodes 2,3 but not this one, QUEEN_RAFT_NODE_ID=1. It is id=host:port, comma-separated, the same on every node"},
		{map[string]string{"QUEEN_RAFT_MEMBERS": "1=a:1,1=b:2"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_MEMBERS=1=a:1,1=b:2 is not a member list: node 1 is listed twice. It is id=host:port, comma-separated, the same on every node"},
		{map[string]string{"QUEEN_RAFT_MEMBERS": "1=a:1", "QUEEN_RAFT_ADDRESS": "b:2", "QUEEN_RAFT_NODE_ID": "1"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_MEMBERS=1=a:1 is not a member list: it gives node 1 the address a:1, QUEEN_RAFT_ADDRESS says b:2. It is id=host:port, comma-separated, the same on every node"},
		{map[string]string{"QUEEN_RAFT_MEMBERS": "1=a:1,2=c:3", "QUEEN_RAFT_ADDRESS": "b:2"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_NODE_ID is unset and QUEEN_RAFT_ADDRESS=b:2 is no member's address in QUEEN_RAFT_MEMBERS=1=a:1,2=c:3: set QUEEN_RAFT_NODE_ID, or give QUEEN_RAFT_ADDRESS the address the list gives this node"},
		{map[string]string{"QUEEN_RAFT_MEMBERS": "3=a:1,1=b:2,2=a:1", "QUEEN_RAFT_ADDRESS": "a:1"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_NODE_ID is unset and QUEEN_RAFT_MEMBERS=3=a:1,1=b:2,2=a:1 gives QUEEN_RAFT_ADDRESS=a:1 to nodes 2 and 3: set QUEEN_RAFT_NODE_ID, or give each member an address of its own"},
		{map[string]string{"QUEEN_RAFT_MEMBERS": "1=a:1,2", "QUEEN_RAFT_ADDRESS": "a:1"}, `ERROR boot: FATAL: broker: QUEEN_RAFT_MEMBERS=1=a:1,2 is not a member list: "2" has no id=host:port. It is id=host:port, comma-separated, the same on every node`},
		{map[string]string{"QUEEN_RAFT_JOIN": "true", "QUEEN_RAFT_MEMBERS": "1=a:1", "QUEEN_RAFT_ADDRESS": "a:1"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_JOIN=true needs QUEEN_RAFT_NODE_ID: the new id the cluster was told for this node (newNodeId of POST /api/v1/raft/members/replace); a joining node never takes a first member's id"},
		{map[string]string{"QUEEN_RAFT_JOIN": "true", "QUEEN_RAFT_NODE_ID": "1", "QUEEN_RAFT_MEMBERS": "1=a:1", "QUEEN_RAFT_ADDRESS": "a:1"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_JOIN=true with QUEEN_RAFT_NODE_ID=1, which QUEEN_RAFT_MEMBERS=1=a:1 lists: a joining node takes an id no node of the cluster ever had. An id is never reused: a node rebuilt empty under its old id would have forgotten what its peers counted on (replace it: POST /api/v1/raft/members/replace)"},
		{map[string]string{"QUEEN_RAFT_JOIN": "true", "QUEEN_RAFT_NODE_ID": "4"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_JOIN=true needs QUEEN_RAFT_ADDRESS: the host:port the cluster was told for this node (POST /api/v1/raft/members/replace keeps the replaced node's)"},
		{map[string]string{"QUEEN_RAFT_DISK_HIGH_PCT": "1"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_DISK_HIGH_PCT=1 leaves no low mark below it. It is 0 (the watch off) or 2..=100"},
		{map[string]string{"QUEEN_RAFT_DISK_HIGH_PCT": "90", "QUEEN_RAFT_DISK_LOW_PCT": "0"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_DISK_LOW_PCT=0 is outside 1..=89. It is the percent of its disk below which a full node reports itself no longer full; below QUEEN_RAFT_DISK_HIGH_PCT=90"},
		{map[string]string{"QUEEN_RAFT_RTT_MS": "0"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_RTT_MS=0 is outside 1..=10000. It is the round trip between nodes, in milliseconds"},
		{map[string]string{"QUEEN_RAFT_ELECTION_RTT": "4", "QUEEN_RAFT_HEARTBEAT_RTT": "2"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_ELECTION_RTT=4 is outside 5..=1000. It must exceed twice QUEEN_RAFT_HEARTBEAT_RTT=2"},
		{map[string]string{"QUEEN_RAFT_SNAPSHOT_ENTRIES": "1"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_SNAPSHOT_ENTRIES=1 is outside 100..=100000000. It is how many entries apply between snapshots"},
		{map[string]string{"QUEEN_RAFT_MAX_CLOCK_SKEW_MS": "60001"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_MAX_CLOCK_SKEW_MS=60001 is outside 0..=60000. It is the clock skew between nodes that leases allow for, in milliseconds"},
		{map[string]string{"QUEEN_ENCRYPTION_KEY": "s3cr3t"}, "ERROR boot: FATAL: broker: QUEEN_ENCRYPTION_KEY (6 characters) is not a key: it must be 32 bytes, as 64 hex digits or in base64"},
		{map[string]string{"QUEEN_PROXY_CP_TOKEN": "short-token"}, "ERROR boot: FATAL: broker: QUEEN_PROXY_CP_TOKEN (11 characters) is too short: it is the control plane's token, at least 16 characters"},
		{map[string]string{"QUEEN_RAFT_TICK_MS": "1"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_TICK_MS=1 is outside 10..=60000. It is how often an idle leader moves safeTime, in milliseconds"},
		{map[string]string{"QUEEN_LOG_LEVEL": "loud"}, "ERROR boot: FATAL: broker: QUEEN_LOG_LEVEL=loud is not a log level. It is one of debug, info, warn, error: how much the broker logs"},
		{map[string]string{"DEFAULT_SUBSCRIPTION_MODE": "latest"}, "ERROR boot: FATAL: broker: DEFAULT_SUBSCRIPTION_MODE=latest is not a subscription mode. It is one of new, all, new-only, from_beginning: where a consumer group that has never popped starts: after the last record (new) or at the first (all)"},
		{map[string]string{"QUEEN_RAFT_TIMER_TICK_MS": "0"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_TIMER_TICK_MS=0 is outside 1..=60000. It is how often the leader fires due timers, in milliseconds"},
		{map[string]string{"QUEEN_PPROF_ADDR": "6060"}, "ERROR boot: FATAL: broker: QUEEN_PPROF_ADDR=6060 is not host:port. It is where Go's profiler listens (/debug/pprof/), such as 127.0.0.1:6060; unset serves none"},
		{map[string]string{"QUEEN_EPHEMERAL_MAX_BYTES": "1000"}, "ERROR boot: FATAL: broker: QUEEN_EPHEMERAL_MAX_BYTES=1000 is outside 1048576..=1099511627776. It is the memory this node's ephemeral queues may hold, in bytes (each message counts its payload and 128)"},
		{map[string]string{"QUEEN_EPHEMERAL_MAX_BYTES": "1GiB"}, "ERROR boot: FATAL: broker: QUEEN_EPHEMERAL_MAX_BYTES=1GiB is not a whole number. It is the memory this node's ephemeral queues may hold, in bytes (each message counts its payload and 128), in 1048576..=1099511627776"},
		{map[string]string{"QUEEN_TRACES_RETENTION_S": "59"}, "ERROR boot: FATAL: broker: QUEEN_TRACES_RETENTION_S=59 is outside 60..=315360000. It is how long a trace event is kept, in seconds"},
		{map[string]string{"QUEEN_TRACES_RETENTION_S": "7d"}, "ERROR boot: FATAL: broker: QUEEN_TRACES_RETENTION_S=7d is not a whole number. It is how long a trace event is kept, in seconds, in 60..=315360000"},
		{map[string]string{"QUEEN_RAFT_LOGDB": "huge"}, "ERROR boot: FATAL: broker: QUEEN_RAFT_LOGDB=huge is not a raft log store size. It is one of tiny, small, medium, large: the memory and disk the raft log store may take, from 256 MiB of memory (tiny) to 8 GiB (large)"},
		{map[string]string{"QUEEN_LOG_FORMAT": "xml"}, "ERROR boot: FATAL: broker: QUEEN_LOG_FORMAT=xml is not a log format. It is one of auto, text, json: auto writes colored text to a terminal and JSON otherwise"},
	}
	wantRefusals(t, cases)
}

// refusal is an environment and the one line its boot must stop with.
type refusal struct {
	env  map[string]string
	line string
}

// wantRefusals loads each environment and fails unless it stops with its
// line, which never quotes a secret (any value holding "hunter2").
func wantRefusals(t *testing.T, cases []refusal) {
	t.Helper()
	for _, c := range cases {
		_, err := config.Load(env(c.env))
		var be *config.BootError
		if !errors.As(err, &be) {
			t.Errorf("%v: %v, want a BootError", c.env, err)
			continue
		}
		if be.Line() != c.line {
			t.Errorf("%v:\n got %s\nwant %s", c.env, be.Line(), c.line)
		}
		if strings.Contains(be.Line(), "hunter2") {
			t.Errorf("the line quotes a secret: %s", be.Line())
		}
	}
}

// TestListen: `queen healthcheck` reads PORT and QUEEN_BIND_ADDR by Load's
// rules, and a refusal names its variable.
func TestListen(t *testing.T) {
	for _, c := range []struct {
		env      map[string]string
		port     int
		bind     string
		refused  string // the variable refused, "" for none
		sentence string
	}{
		{nil, 6632, "0.0.0.0", "", ""},
		{map[string]string{"PORT": " 8080 ", "QUEEN_BIND_ADDR": "127.0.0.2"}, 8080, "127.0.0.2", "", ""},
		{map[string]string{"PORT": "http"}, 0, "", "PORT", "PORT=http is not a whole number. It is the HTTP port the broker listens on, in 1..=65535"},
		{map[string]string{"PORT": "70000"}, 0, "", "PORT", "PORT=70000 is outside 1..=65535. It is the HTTP port the broker listens on"},
		{map[string]string{"QUEEN_BIND_ADDR": "[::1]"}, 0, "", "QUEEN_BIND_ADDR", "QUEEN_BIND_ADDR=[::1] is not an IP address. It is the address the HTTP listener binds, such as 0.0.0.0 or 127.0.0.1"},
	} {
		port, bind, err := config.Listen(env(c.env))
		var be *config.BootError
		if c.refused == "" {
			if err != nil || port != c.port || bind != c.bind {
				t.Errorf("%v: %d, %q, %v; want %d, %q", c.env, port, bind, err, c.port, c.bind)
			}
			continue
		}
		if !errors.As(err, &be) || be.Var != c.refused || be.Msg != c.sentence || be.Context != "broker" {
			t.Errorf("%v: %#v, want %s refused: %s", c.env, err, c.refused, c.sentence)
		}
		if _, lerr := config.Load(env(c.env)); lerr == nil || lerr.Error() != err.Error() {
			t.Errorf("%v: Load says %v, Listen %v", c.env, lerr, err)
		}
	}
}
