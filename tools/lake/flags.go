package lake

import "flag"

// BucketFlagsUsage describes the flags RegisterFlags adds for every
// command (the bucket and the queue), for a command's usage text.
const BucketFlagsUsage = `  -endpoint URL      S3 endpoint, http(s)://host[:port] (required)
  -region NAME       SigV4 region (default us-east-1)
  -bucket NAME       bucket (required)
  -prefix PREFIX     key prefix (default queen)
  -path-style        bucket in the URL path (MinIO, versitygw)
  -access-key KEY    access key id (default $QUEEN_S3_ACCESS_KEY)
  -secret-key KEY    secret key (default $QUEEN_S3_SECRET_KEY)
  -tenant UUID       tenant (default 00000000-0000-0000-0000-000000000001)
  -queue NAME        queue (required)
`

// VerifyFlagsUsage describes the flags RegisterFlags adds for verify.
const VerifyFlagsUsage = `  -broker URL        compare with this broker's log (POST /api/v1/partitions/changed, /api/v1/fetch)
  -broker-token JWT  bearer token for the broker
  -concurrency N     windows read at once (default 8)
  -max-problems N    problems printed at most, the rest counted (default 1000)
`

// RegisterFlags adds to fs the flags of the lake commands (queen-lake ls
// and verify, queenctl lake ls and verify), which set c: the bucket and
// queue flags always, and with verify the broker and limit flags too.
// getenv gives the defaults of the keys (QUEEN_S3_ACCESS_KEY,
// QUEEN_S3_SECRET_KEY); c's Tenant, when set, is the -tenant default.
func (c *Config) RegisterFlags(fs *flag.FlagSet, getenv func(string) string, verify bool) {
	tenant := c.Tenant
	if tenant == "" {
		tenant = DefaultTenant
	}
	fs.StringVar(&c.Endpoint, "endpoint", "", "S3 endpoint, http(s)://host[:port]")
	fs.StringVar(&c.Region, "region", DefaultRegion, "SigV4 region")
	fs.StringVar(&c.Bucket, "bucket", "", "bucket")
	fs.StringVar(&c.Prefix, "prefix", DefaultPrefix, "key prefix")
	fs.BoolVar(&c.PathStyle, "path-style", false, "bucket in the URL path")
	fs.StringVar(&c.AccessKey, "access-key", getenv("QUEEN_S3_ACCESS_KEY"), "access key id")
	fs.StringVar(&c.SecretKey, "secret-key", getenv("QUEEN_S3_SECRET_KEY"), "secret key")
	fs.StringVar(&c.Tenant, "tenant", tenant, "tenant")
	fs.StringVar(&c.Queue, "queue", "", "queue")
	if verify {
		fs.StringVar(&c.Broker, "broker", c.Broker, "compare with this broker's log")
		fs.StringVar(&c.BrokerToken, "broker-token", c.BrokerToken, "bearer token for the broker")
		fs.IntVar(&c.Concurrency, "concurrency", DefaultConcurrency, "windows read at once")
		fs.IntVar(&c.MaxProblems, "max-problems", DefaultMaxProblems, "problems printed at most")
	}
}
