// Package config reads the broker's configuration from the environment,
// once, at boot: defaults first, then each value checked against its range.
// A bad value stops the boot with one line that names the variable, the
// value and what is allowed (BootError.Line):
//
//	ERROR boot: FATAL: broker: PORT=70000 is outside 1..=65535. It is the HTTP port the broker listens on
//
// Blank values count as unset; enumerations and booleans ignore case.
// No other package of the broker reads the environment: LoadS3 reads the
// embedded S3 sink's QUEEN_S3_* variables (its refusals in the context
// QUEEN_S3_EMBEDDED=true, worded by the sink, s3sink.ParseEnv), and Listen
// reads PORT and QUEEN_BIND_ADDR for `queen healthcheck`, by Load's rules.
//
// The broker JWT auth (jwt.go, the README's "Auth") is off unless
// JWT_ENABLED=true. Its variables are checked either way; with it on, the
// algorithm must have its key material (JWT_SECRET for HS256,
// JWT_PUBLIC_KEY or JWT_JWKS_URL for RS256, ES256 and EdDSA, any of them
// for auto), or the boot stops naming what is missing. A secret or key is
// never quoted in a refusal, only its length. JWT_PUBLIC_KEY is a PEM
// block, its line breaks real or written \n; JWT_JWKS_URL an http(s)
// URL, a file:// URL or a file path (which must exist at boot);
// JWT_SKIP_PATHS a comma-separated list of paths, where one ending in /
// is a prefix and / alone is the root path only.
//
// The storage gate: QUEEN_RAFT_DISK_HIGH_PCT (default 85, 2..=100; 0
// turns this node's watch off) is the percent of its file system past
// which a node reports its data directory full, QUEEN_RAFT_DISK_LOW_PCT
// (1 or more, default 5 less or half the high mark, below it) the percent below which it
// reports itself no longer full, QUEEN_RAFT_DISK_POLL_MS (1000) how often
// it reads statfs. While any node is full every node answers writes that
// grow the store (pushes, KV puts and incrs, configures, timer schedules,
// traces, lock acquires, stream cycles with state upserts) 507
// storage_full, and they did not happen; acks, pops, deletes, trims and
// the S3 sink's own rows go on. A node with its watch off still honours
// its peers' reports.
// A node that joins a running cluster (QUEEN_RAFT_JOIN=true: added to it,
// or the replacement of a node whose data was lost or corrupted, after
// POST /api/v1/raft/members/replace) takes an id no node of the cluster
// ever had, and QUEEN_RAFT_ADDRESS must say where it is. QUEEN_RAFT_MEMBERS,
// the cluster's first members, may stay as every node has it: a joining
// node's id is refused when the list names it (an id is never reused),
// and raft takes the members from the cluster, not from the list.
package config
