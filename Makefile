# Queen in Go: one Makefile for every module of go.work.
#
#   make check     what CI runs (.ci/run): verify, then every fuzz target briefly
#   make tools     the programs tests run, into .cache/bin (versitygw, the S3 server)
#   make test      go test in every module
#   make verify    gofmt, go vet, go mod tidy leaves no diff, tests with -race
#   make fuzz      every fuzz target for FUZZTIME (default 10s), from its checked-in corpus
#   make bench-lakeformat   the lakeformat figures of BENCHMARKS.md (pyarrow beside them)
#   make bench-http         queen-bench over HTTP against one and three real queen processes
#   make bench-sink         the embedded S3 sink's throughput beside lakeformat's raw encode rate

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
ROOT := $(CURDIR)
MODULES := $(shell go list -m -f '{{.Dir}}')
FUZZTIME ?= 10s
VENV := $(ROOT)/.cache/venv
PYARROW := pyarrow==26.0.1
BIN := $(ROOT)/.cache/bin
VERSITYGW_VERSION := v1.8.0

.PHONY: check test verify fmt vet tidy race fuzz tools bench-lakeformat bench-http bench-sink venv

check: tools verify fuzz

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

race:
	@for m in $(MODULES); do echo "== race $${m#$(ROOT)/}"; (cd $$m && go test -race -timeout 30m ./...); done

# Each fuzz target runs alone (go test -fuzz takes one at a time), seeded by
# its f.Add calls and testdata/fuzz/<Name>.
fuzz:
	@for m in $(MODULES); do \
		for pkg in $$(cd $$m && go list ./...); do \
			dir=$$(cd $$m && go list -f '{{.Dir}}' $$pkg); \
			for t in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do \
				echo "== fuzz $$pkg $$t $(FUZZTIME)"; \
				(cd $$dir && go test -run='^$$' -fuzz="^$$t\$$" -fuzztime=$(FUZZTIME) .); \
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

bench-sink: tools
	bash tools/bench-sink.sh
