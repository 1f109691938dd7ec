module github.com/queen-mq/queen-go/compat

go 1.26.0

require (
	github.com/queen-mq/queen-go/httpd v0.0.0
	github.com/queen-mq/queen-go/lakeformat v0.0.0
	github.com/queen-mq/queen-go/s3sink v0.0.0
	github.com/queen-mq/queen-go/testkit v0.0.0
)

require (
	github.com/andybalholm/brotli v1.2.3 // indirect
	github.com/apache/arrow-go/v18 v18.8.0 // indirect
	github.com/apache/thrift v0.24.0 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/goccy/go-json v0.10.6 // indirect
	github.com/google/flatbuffers v25.12.19+incompatible // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/klauspost/cpuid/v2 v2.4.0 // indirect
	github.com/pierrec/lz4/v4 v4.1.29 // indirect
	github.com/zeebo/xxh3 v1.1.0 // indirect
	golang.org/x/exp v0.0.0-20260112195511-716be5621a96 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)

replace (
	github.com/queen-mq/queen-go/contract => ../contract
	github.com/queen-mq/queen-go/httpd => ../httpd
	github.com/queen-mq/queen-go/lakeformat => ../lakeformat
	github.com/queen-mq/queen-go/s3sink => ../s3sink
	github.com/queen-mq/queen-go/testkit => ../testkit
)
