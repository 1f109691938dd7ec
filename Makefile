# Queen in Go: one Makefile for every module of go.work.
#
#   make check     what CI runs (.ci/run): verify, then every fuzz target briefly
#   make test      go test in every module
#   make verify    gofmt, go vet, go mod tidy leaves no diff, tests with -race
#   make fuzz      every fuzz target for FUZZTIME (default 10s), from its checked-in corpus
#   make bench-lakeformat   the lakeformat figures of BENCHMARKS.md (pyarrow beside them)
#   make bench-http         queen-bench over HTTP against one and three real queen processes

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
ROOT := $(CURDIR)
MODULES := $(shell go list -m -f '{{.Dir}}')
FUZZTIME ?= 10s
VENV := $(ROOT)/.cache/venv
PYARROW := pyarrow==26.0.1

.PHONY: check test verify fmt vet tidy race fuzz bench-lakeformat bench-http venv

check: verify fuzz

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
