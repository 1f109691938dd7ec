# Queen in Go: one Makefile for every module of go.work.
#
#   make check     what CI runs (.ci/run): verify, then every fuzz target briefly
#   make tools     the programs tests run, into .cache/bin (versitygw, the S3 server)
#   make test      go test in every module
#   make verify    gofmt, go vet, go mod tidy leaves no diff, tests with -race
#   make fuzz      every fuzz target for FUZZTIME (default 10s), from its checked-in corpus
#   make bench-lakeformat   the lakeformat figures of BENCHMARKS.md (pyarrow beside them)
#   make bench-http         queen-bench over HTTP against one and three real queen processes
#   make bench-locks-timers lock acquire+release pairs/s and timers fired/s with their fire delay, 1 and 3 nodes
#   make bench-streams      the streaming SDK's tumbling-window pipeline: cycles/s and input records/s, 1 and 3 nodes
#                           (manual, as every bench- target: neither check nor .ci/run runs it)
#   make bench-sink         the embedded S3 sink's throughput beside lakeformat's raw encode rate
#   make bench-peers        queen beside NATS JetStream and etcd on this machine, one table of ratios
#                           (manual: neither check nor .ci/run runs it)
#   make peers-tools        nats-server, nats, etcd and etcd's benchmark into .cache/bin/peers
#   make chaos     the fault campaign (tools/cmd/queen-chaos): RUNS runs of each fault against three real
#                  nodes, histories checked (RELIABILITY.md); CI runs its slice, tools/chaos TestSlice
#   make compat    the reader matrix: lakes written by the sink, read by six engines, compat/MATRIX.md
#   make browser   the dashboard's browser lane alone: queen/e2e TestDashboard* in headless Chromium
#                  (Debian's chromium; screenshots in .cache/dashboard/); `make check` runs it too
#   make release-check   the release files: deploy/Dockerfile's build stage run without Docker and its binary
#                  checked as the image runs it, deploy/kubernetes/queen.yaml validated offline (deploy/check.sh)
#   make client-venv   the official Python client (clients/python/requirements.txt) into .cache/client-venv
#   make clients   the client suite: pytest over every public method of the official Python client
#                  (clients/python/suite) against one real node, then three (queen/e2e TestClientSuite),
#                  and the streaming SDK's pipelines (TestStreams*, TestREADMEStreams);
#                  `make check` runs it as well, with the rest of queen/e2e.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
ROOT := $(CURDIR)
MODULES := $(shell go list -m -f '{{.Dir}}')
FUZZTIME ?= 10s
VENV := $(ROOT)/.cache/venv
PYARROW := pyarrow==26.0.1
BIN := $(ROOT)/.cache/bin
VERSITYGW_VERSION := v1.8.0
COMPAT_VENV := $(ROOT)/.cache/compat-venv
COMPAT_JARS := $(ROOT)/.cache/compat-jars
COMPAT_OUT := $(ROOT)/.cache/compat-out
CLIENT_VENV := $(ROOT)/.cache/client-venv
# The Hadoop that pyspark (compat/requirements.txt) carries: its jars/hadoop-client-api-<v>.jar.
HADOOP_AWS_VERSION := 3.5.0

.PHONY: browser release-check chaos check test verify fmt vet tidy race fuzz tools bench-lakeformat bench-http bench-locks-timers bench-streams bench-sink bench-peers peers-tools venv compat compat-venv compat-jars client-venv clients

check: tools client-venv verify fuzz

test:
	@for m in $(MODULES); do echo "== test $${m#$(ROOT)/}"; (cd $$m && go test ./...); done

verify: fmt vet tidy race

fmt:
	@bad=$$(gofmt -l $(MODULES)); if [ -n "$$bad" ]; then echo "gofmt would change:"; echo "$$bad"; exit 1; fi

vet:
	@for m in $(MODULES); do echo "== vet $${m#$(ROOT)/}"; (cd $$m && go vet ./...); done

# go mod tidy must leave go.mod and go.sum as they are (-diff prints what it would change).
tidy:
	@for m in $(MODULES); do echo "== tidy $${m#$(ROOT)/}"; (cd $$m && go mod tidy -diff); done

# queen runs uncached (-count=1): its e2e tests build the broker binary in
# TestMain, an input go test's cache cannot see.
race:
	@for m in $(MODULES); do echo "== race $${m#$(ROOT)/}"; \
		count=; if [ "$${m#$(ROOT)/}" = queen ]; then count=-count=1; fi; \
		(cd $$m && go test -race -timeout 30m $$count ./...); done

# Each fuzz target runs alone (go test -fuzz takes one at a time), seeded by
# its f.Add calls and testdata/fuzz/<Name>; tools/fuzz-one.sh runs it (and
# once more after the toolchain's "context deadline exceeded" race).
fuzz:
	@for m in $(MODULES); do \
		for pkg in $$(cd $$m && go list ./...); do \
			dir=$$(cd $$m && go list -f '{{.Dir}}' $$pkg); \
			for t in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do \
				echo "== fuzz $$pkg $$t $(FUZZTIME)"; \
				bash $(ROOT)/tools/fuzz-one.sh $$dir $$t $(FUZZTIME); \
			done; \
		done; \
	done

# The S3 server of the s3sink tests (s3sink/internal/s3test finds it there).
# Pinned: another version may answer differently. About 80 s cold; skipped when
# .cache/bin already holds that version.
tools:
	@if go version -m $(BIN)/versitygw 2>/dev/null | grep -q 'mod[[:space:]]*github.com/versity/versitygw[[:space:]]*$(VERSITYGW_VERSION)'; then \
		echo "== tools: versitygw $(VERSITYGW_VERSION) already in .cache/bin"; \
	else \
		echo "== tools: installing versitygw $(VERSITYGW_VERSION) into .cache/bin"; \
		GOBIN=$(BIN) go install github.com/versity/versitygw/cmd/versitygw@$(VERSITYGW_VERSION); \
	fi

venv: $(VENV)/.installed
$(VENV)/.installed:
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet $(PYARROW)
	touch $@

bench-lakeformat: venv
	cd lakeformat && go build -o $(ROOT)/.cache/lakebench ./bench
	cd lakeformat && taskset -c 0 $(ROOT)/.cache/lakebench -python $(VENV)/bin/python

bench-http:
	bash tools/bench-http.sh

bench-locks-timers:
	bash tools/bench-locks-timers.sh

# The fault campaign: RUNS runs (default 3) of each of WORKLOADS under
# each of FAULTS (default all, comma-separated lists otherwise) on NODES
# nodes (3 or 5), SEED the first run's seed, DURATION each run's workload;
# it prints the table RELIABILITY.md shows, and a run that finds an
# anomaly keeps its nodes' logs and fails the target.
RUNS ?= 3
NODES ?= 3
WORKLOADS ?= all
FAULTS ?= all
SEED ?= 1
DURATION ?= 20s
chaos: tools
	@mkdir -p $(BIN)
	go build -o $(BIN)/queen ./queen/cmd/queen
	cd tools && go run ./cmd/queen-chaos -bin $(BIN)/queen -nodes $(NODES) -workload $(WORKLOADS) -fault $(FAULTS) \
		-runs $(RUNS) -seed $(SEED) -duration $(DURATION)

# The official client's streams SDK (the client venv) on 1 and 3 nodes:
# RECORDS, KEYS, PARTITIONS, BATCHES, MAX_PARTITIONS: tools/bench-streams.sh.
bench-streams: client-venv
	bash tools/bench-streams.sh

bench-sink: tools
	bash tools/bench-sink.sh

# The peers bench-peers compares with, pinned (tools/peers/install.sh;
# etcd through the wrapper module tools/peers, outside go.work), each
# skipped when .cache/bin/peers already holds that version. About 7
# minutes cold.
peers-tools:
	bash tools/peers/install.sh

# NATS JetStream (sync_interval: always) and etcd, then ours, started in
# turn on 127.0.0.1, 1 and 3 nodes: push, KV and pop+ack rows, about 10
# minutes. DURATION, CONNS, PREFILL, NODES, ROWS, PROFILE: tools/bench-peers.sh.
bench-peers: peers-tools
	bash tools/bench-peers.sh

# The compat lane (compat/doc.go): compat-gen writes 22 lakes through the real
# sink into versitygw (.cache/compat-out), 20 of the default tenant by the
# environment's sink and 2 of a control-plane tenant by its /api/cp sink;
# compat/test_lane.py proves the checks fail a reader that lies; then
# compat/run.py reads each lake with
# every reader of compat/readers/ and rewrites compat/MATRIX.md; a reader that
# disagrees with the data fails it. The engines go into .cache/compat-venv
# (again when compat/requirements.txt changes) and Spark's s3a jars into
# .cache/compat-jars, both kept for later runs.
compat: tools compat-venv compat-jars
	go build -o $(COMPAT_OUT)/bin/queen ./queen/cmd/queen
	go build -o $(COMPAT_OUT)/bin/compat-gen ./compat/cmd/compat-gen
	$(COMPAT_OUT)/bin/compat-gen -out $(COMPAT_OUT) -queen $(COMPAT_OUT)/bin/queen -versitygw $(BIN)/versitygw
	COMPAT_LAKES=$(COMPAT_OUT)/lakes.json COMPAT_VERSITYGW=$(BIN)/versitygw \
		$(COMPAT_VENV)/bin/python -m unittest compat/test_lane.py
	$(COMPAT_VENV)/bin/python compat/run.py --lakes $(COMPAT_OUT)/lakes.json --versitygw $(BIN)/versitygw \
		--jars $(COMPAT_JARS) --matrix compat/MATRIX.md

compat-venv: $(COMPAT_VENV)/.installed
$(COMPAT_VENV)/.installed: compat/requirements.txt
	@echo "== compat: installing compat/requirements.txt into .cache/compat-venv"
	[ -x $(COMPAT_VENV)/bin/python ] || python3 -m venv $(COMPAT_VENV)
	$(COMPAT_VENV)/bin/pip install --quiet --disable-pip-version-check -r compat/requirements.txt
	touch $@

compat-jars: $(COMPAT_JARS)/.hadoop-aws-$(HADOOP_AWS_VERSION)
$(COMPAT_JARS)/.hadoop-aws-$(HADOOP_AWS_VERSION): compat/spark-jars.xml
	@echo "== compat: hadoop-aws $(HADOOP_AWS_VERSION) and its AWS SDK into .cache/compat-jars"
	rm -rf $(COMPAT_JARS)
	mvn -q -B -f compat/spark-jars.xml dependency:copy-dependencies -Dhadoop.aws.version=$(HADOOP_AWS_VERSION) \
		-DincludeScope=runtime -DoutputDirectory=$(COMPAT_JARS)
	touch $@

# The client lane (queen/e2e/client_python_test.go runs
# clients/python/test_locks_timers.py with this venv's python against a real
# queen): the product's official Python client, pinned, into
# .cache/client-venv. Installed again only when the requirements change.
client-venv: $(CLIENT_VENV)/.installed
$(CLIENT_VENV)/.installed: clients/python/requirements.txt
	@echo "== client: installing clients/python/requirements.txt into .cache/client-venv"
	[ -x $(CLIENT_VENV)/bin/python ] || python3 -m venv $(CLIENT_VENV)
	$(CLIENT_VENV)/bin/pip install --quiet --disable-pip-version-check -r clients/python/requirements.txt
	touch $@

# The client suite (queen/e2e/client_suite_test.go): builds queen, starts one
# node and runs clients/python/suite with the client venv's pytest, then
# three nodes and runs it again with the three_nodes tests. QUEEN_CLIENT_LANE
# makes a missing venv a failure, not a skip.
clients: client-venv
	cd queen && QUEEN_CLIENT_LANE=1 go test ./e2e -run '^(TestClientSuite|TestStreamsPipelines|TestStreamsWindowFaults|TestREADMEStreams)$$' -count=1 -v -timeout 40m

browser: tools
	cd queen && QUEEN_BROWSER_LANE=1 go test ./e2e -run 'TestDashboard' -count=1

release-check:
	bash deploy/check.sh
