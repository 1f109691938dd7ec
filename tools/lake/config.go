package lake

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/s3sink/s3store"
)

// DefaultTenant is the tenant of a broker without tenancy.
const DefaultTenant = "00000000-0000-0000-0000-000000000001"

// Defaults of the optional Config fields.
const (
	DefaultPrefix      = "queen"
	DefaultRegion      = "us-east-1"
	DefaultConcurrency = 8
	DefaultMaxProblems = 1000
)

// Config says which lake to read and, for Verify, which broker to compare
// it with. Call EnsureDefaults, then Validate; List and Verify do both.
type Config struct {
	// Where the bucket is: the same settings the sink takes.
	Endpoint  string // http(s)://host[:port]
	Region    string // default us-east-1
	Bucket    string
	Prefix    string // key root, default queen
	PathStyle bool
	AccessKey string
	SecretKey string // never printed

	// Whose lake: Tenant defaults to DefaultTenant; Queue is required.
	Tenant, Queue string

	// Broker, when set, is the base URL of a broker of the queue
	// (http://127.0.0.1:6632): Verify then compares the lake with its log.
	Broker string
	// BrokerToken, when set, goes to the broker as a bearer token.
	BrokerToken string
	// HTTPClient talks to the broker; nil means http.DefaultClient.
	HTTPClient *http.Client

	// Concurrency is how many windows Verify reads at once (default 8).
	Concurrency int
	// MaxProblems caps the problems a Report keeps (default 1000); the
	// rest are only counted.
	MaxProblems int

	// Progress, when set, is called as Verify checks the manifests'
	// objects: once with none checked, then once per object, one call at
	// a time, Objects rising by one up to TotalObjects (when the run is
	// not cancelled). A terminal's progress line hangs here; nil for none.
	Progress func(Progress)

	// Store, when set, replaces the S3 client built from the bucket
	// settings (tests, or a caller with a client of its own).
	Store Store
}

// EnsureDefaults fills in the optional fields left empty.
func (c *Config) EnsureDefaults() {
	if c.Region == "" {
		c.Region = DefaultRegion
	}
	if c.Prefix == "" {
		c.Prefix = DefaultPrefix
	}
	if c.Tenant == "" {
		c.Tenant = DefaultTenant
	}
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.MaxProblems <= 0 {
		c.MaxProblems = DefaultMaxProblems
	}
	c.Broker = strings.TrimRight(c.Broker, "/")
}

// ConfigError names a Config field, its value and what is wrong with it.
type ConfigError struct {
	Field, Value, Why string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("lake: %s %q %s", e.Field, e.Value, e.Why)
}

// Validate reports the first field that is missing or out of range.
func (c *Config) Validate() error {
	if c.Queue == "" {
		return &ConfigError{"queue", c.Queue, "is required"}
	}
	if _, err := lakeformat.NewKeys(c.Prefix); err != nil {
		return &ConfigError{"prefix", c.Prefix, err.Error()}
	}
	if c.Store == nil {
		switch {
		case c.Endpoint == "":
			return &ConfigError{"endpoint", c.Endpoint, "is required"}
		case c.Bucket == "":
			return &ConfigError{"bucket", c.Bucket, "is required"}
		case c.AccessKey == "" || c.SecretKey == "":
			return &ConfigError{"access-key", c.AccessKey, "and the secret key are required (or QUEEN_S3_ACCESS_KEY, QUEEN_S3_SECRET_KEY)"}
		}
	}
	if c.Broker != "" {
		u, err := url.Parse(c.Broker)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return &ConfigError{"broker", c.Broker, "is not http(s)://host[:port]"}
		}
	}
	return nil
}

// store is the bucket's config as s3store takes it.
func (c *Config) store() s3store.Config {
	return s3store.Config{Endpoint: c.Endpoint, Region: c.Region, Bucket: c.Bucket,
		AccessKey: c.AccessKey, SecretKey: c.SecretKey, PathStyle: c.PathStyle}
}

// open checks c and returns its store and keys.
func (c *Config) open() (Store, lakeformat.Keys, error) {
	c.EnsureDefaults()
	if err := c.Validate(); err != nil {
		return nil, lakeformat.Keys{}, err
	}
	keys, _ := lakeformat.NewKeys(c.Prefix) // checked by Validate
	if c.Store != nil {
		return c.Store, keys, nil
	}
	st, err := NewS3Store(c.store())
	if err != nil {
		return nil, keys, err
	}
	return st, keys, nil
}
