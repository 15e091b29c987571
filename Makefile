# Folio's build. Every target fans out over the modules listed in go.work,
# the one place modules are listed. `go test ./...` at the root does not
# cross module boundaries, so never rely on it.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := test

GO ?= go
# Every module in the workspace, from go.work's use block.
MODULES := $(shell awk '/^use \(/{f=1;next} /^\)/{f=0} f{print $$1}' go.work)
# Library modules: everything but the examples and commands.
LIB_MODULES := $(filter-out ./examples ./cmd/%,$(MODULES))
# Modules that must build for the browser (js/wasm) and WASI (wasip1/wasm).
WASM_MODULES := ./core ./adapters/storage-mem ./adapters/codec-json ./adapters/codec-pb \
	./adapters/tokenizer-tiktoken ./adapters/embed-hosted ./adapters/embed-hash ./adapters/storage-idb ./adapters/fetch-browser ./browser \
	./adapters/storage-http
# Modules whose code is for the browser only (js/wasm): vetted and
# staticchecked for js/wasm too, since the native lint does not see it.
BROWSER_MODULES := ./adapters/storage-idb ./adapters/fetch-browser ./browser ./js

# each runs a command ($(3)) in every module of a list ($(1)), naming the
# step ($(2)), and fails at the end listing every module that failed, so
# one broken module does not hide the others.
define each
	@failed=""; for m in $(1); do \
		echo "==> $(2) $$m"; \
		(cd $$m && $(3)) || failed="$$failed $$m"; \
	done; \
	if [ -n "$$failed" ]; then echo "$(2) failed in:$$failed"; exit 1; fi
endef
BENCHTIME ?= 1s

include make/tools.mk

.PHONY: observability-test prometheus several-servers-test eval readers-test all test fresh-test install large-files test-short lint tidy tidy-check purego isolated wasm bench generate generate-check demo ci core-deps kill-test load-test vectra-client-test

all: lint test

## test: every module's tests (test/<module>, with the race detector and
## the module's -timeout), then a throwaway module outside the repository
## that uses Folio as the README says. A failing module does not stop the
## others; the failures are listed at the end.
test:
	@rm -f .cache/test-failed && mkdir -p .cache; status=0; \
		$(MAKE) --no-print-directory -k $(addprefix test/,$(patsubst ./%,%,$(MODULES))) || status=$$?; \
		if [ -s .cache/test-failed ]; then echo "test failed in: $$(tr '\n' ' ' < .cache/test-failed)"; exit 1; fi; \
		if [ "$$status" != 0 ]; then echo "test failed: a step above failed"; exit "$$status"; fi
	@echo "==> own module"
	@scripts/check-own-module.sh

## fresh-test: make test as on a new machine: empty module and build caches
## (GOMODCACHE, GOCACHE in a temporary folder, removed afterwards), so a test
## that leans on what a warm cache happens to hold fails here first. Prints
## what was downloaded.
fresh-test:
	@tmp=$$(mktemp -d); trap 'chmod -R u+w "$$tmp" 2>/dev/null; rm -rf "$$tmp"' EXIT; \
		echo "==> make test with empty caches in $$tmp"; start=$$(date +%s); \
		GOMODCACHE=$$tmp/mod GOCACHE=$$tmp/build GOFLAGS="$(strip $(shell $(GO) env GOFLAGS) -modcacherw)" $(MAKE) --no-print-directory test; \
		echo "==> fresh-test passed in $$(( $$(date +%s) - start )) s; downloaded $$(find $$tmp/mod/cache/download -name '*.zip' | wc -l) modules, $$(du -sh $$tmp/mod/cache/download | cut -f1)"

## fresh-clone-check: the README's first two commands as a newcomer runs
## them: a fresh clone of HEAD with empty Go and npm caches, make demo then
## make test, each timed (wall and CPU) and failing when slower than the
## README's first lines say (scripts/fresh-clone-check.sh). Needs a quiet
## machine; about half an hour.
.PHONY: fresh-clone-check
fresh-clone-check:
	@scripts/fresh-clone-check.sh

## install: build the folio command from this checkout and install it where
## go install puts binaries: $$GOBIN, else $$(go env GOPATH)/bin. The default
## build links no cloud SDK; TAGS=objectstorage adds S3, Google Cloud Storage
## and Azure Blob buckets (--storage-root, serve --root).
TAGS ?=
install:
	$(GO) install -tags "$(TAGS)" ./cmd/folio
	@dir=$$($(GO) env GOBIN); [ -n "$$dir" ] || dir=$$($(GO) env GOPATH)/bin; echo "installed $$dir/folio"

## notice: NOTICE reproduces the NOTICE file of every module the folio
## command links (scripts/check-notice.sh).
.PHONY: notice
notice:
	@scripts/check-notice.sh

## large-files: no tracked file over 2 MB but the fixtures listed in the script.
large-files:
	@scripts/check-large-files.sh

## test-short: every module's tests without the race detector (faster local loop).
test-short:
	$(call each,$(MODULES),test,$(GO) test -count=1 ./...)

## lint: gofmt, go vet and staticcheck over every module.
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); \
		if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(call each,$(MODULES),vet,$(GO) vet ./...)
	$(call each,$(MODULES),staticcheck,$(CURDIR)/$(STATICCHECK) ./...)
	$(call each,$(BROWSER_MODULES),js staticcheck,GOOS=js GOARCH=wasm $(CURDIR)/$(STATICCHECK) ./...)
	@echo "==> vet ./cmd/folio -tags noserver (make demo's build)"; cd cmd/folio && $(GO) vet -tags noserver .

## tidy: go mod tidy in every module, alone.
tidy:
	$(call each,$(MODULES),tidy,GOWORK=off $(GO) mod tidy)

## tidy-check: every module's go.mod and go.sum are what go mod tidy makes.
tidy-check:
	$(call each,$(MODULES),tidy-check,GOWORK=off $(GO) mod tidy -diff)

## purego: core's tests with the portable Go kernels instead of the assembly.
purego:
	cd core && $(GO) test -tags purego -count=1 ./...

## isolated: each library module built and tested alone, outside the workspace.
isolated:
	$(call each,$(LIB_MODULES),isolated,GOWORK=off $(GO) build ./... && GOWORK=off $(GO) test -count=1 ./...)

## core-deps: core requires nothing but the standard library.
core-deps:
	@deps=$$(cd core && GOWORK=off $(GO) list -m all); \
		if [ "$$deps" != "github.com/foliovec/folio/core" ]; then \
			echo "core has dependencies:"; echo "$$deps"; exit 1; fi
	@echo "core: standard library only"

## wasm: the browser/WASI modules build for js/wasm and wasip1/wasm.
wasm:
	$(call each,$(WASM_MODULES),wasm,GOOS=js GOARCH=wasm $(GO) build ./... && GOOS=wasip1 GOARCH=wasm $(GO) build ./...)
	$(call each,$(BROWSER_MODULES),js vet,GOOS=js GOARCH=wasm $(GO) vet ./...)

## bench: every benchmark, once per module.
bench:
	$(call each,$(MODULES),bench,$(GO) test -run='^$$$$' -bench=. -benchmem -benchtime=$(BENCHTIME) ./...)

## eval: the retrieval benchmark: the questions of testdata/eval, each naming
## the file and the line that answer it, asked of a document index of its
## corpus (Go's docs and sources in the repository, npm's and Python's docs
## installed by eval-corpora); prints hit@1, hit@3, MRR and how often the
## passage shown holds the answer, for each ranking under Vectra's setup,
## Folio's before fields and Folio's (offline, the word-hashing model).
eval: eval-corpora
	cd examples && $(GO) run ./eval -data ../testdata/eval -corpora ../.cache/eval

## eval-corpora: installs make eval's corpora that are not in the repository
## into .cache/eval, pinned: npm's docs (the npm registry's npm@11.19.1) and
## Python 3.11's (Debian's python3.11-doc) (scripts/eval-corpora.sh).
.PHONY: eval-corpora
eval-corpora:
	@scripts/eval-corpora.sh .cache/eval

## demo: the main job, through the folio command — build it, index this
## repository's README and docs/ into a document index with the offline
## word-hashing model, ask two questions (vector and keyword matches ranked
## together, folio query's default) and print the passage of each of the best
## two files. examples/docsearch does the same through the library. The
## demo's bin/folio is built for a quick first build: without the gRPC
## server (-tags noserver: serve, stop and generate say so), without cgo
## (local ONNX models) and without the compiler's optimizations; make
## install builds the command in full.
DEMO_INDEX := .cache/demo-index
demo:
	CGO_ENABLED=0 $(GO) build -tags noserver -gcflags=all='-N -l' -ldflags='-s -w' -o bin/folio ./cmd/folio
	@rm -rf $(DEMO_INDEX)
	bin/folio create $(DEMO_INDEX)
	bin/folio add $(DEMO_INDEX) --hash-dims 384 --uri README.md --uri docs
	bin/folio query $(DEMO_INDEX) "How do I run every test with the race detector?" --document-count 2 --tokens 500
	bin/folio query $(DEMO_INDEX) "BM25 keyword matches in hybrid queries" --document-count 2 --tokens 500

## ci: everything CI checks.
ci: test large-files notice lint core-deps isolated wasm generate-check tidy-check purego vectra-client-test observability-test

test test-short isolated bench: onnxruntime browser-tools vectra-browser ort-web typescript js-package

## test/<module>: one module's tests, with the race detector, fetching only
## the tools that module needs (make test/core, make test/adapters/grpc).
## Each package's -timeout is the module's TEST_TIMEOUT: several times the
## time its slowest package took on the 2-core reference machine with
## nothing else running, so that a machine three times slower still passes.
test/%:
	@echo "==> test $*"
	@cd $* && $(GO) test -race -count=1 -timeout $(call test_timeout,$*) ./... || { echo "$*" >> $(CURDIR)/.cache/test-failed; exit 1; }

# TEST_TIMEOUT is go test's -timeout of a module's packages (go test's own
# default, 10m, was too short for acceptance on a busy machine). Measured
# on 2026-12-01, quiet, with -race: acceptance 210 s, cmd/folio 149 s,
# core 140 s, js 70 s, examples 205 s (its eval on four corpora), every
# other module under a minute.
TEST_TIMEOUT ?= 10m
TEST_TIMEOUT_acceptance := 25m
TEST_TIMEOUT_cmd/folio := 20m
TEST_TIMEOUT_core := 20m
TEST_TIMEOUT_js := 15m
TEST_TIMEOUT_examples := 20m
test_timeout = $(or $(TEST_TIMEOUT_$(patsubst ./%,%,$(1))),$(TEST_TIMEOUT))
test/js test/browser test/adapters/storage-idb test/adapters/fetch-browser test/adapters/embed-hosted test/examples: browser-tools
test/js test/examples: vectra-browser ort-web typescript
test/js: js-package
test/adapters/embed-onnx test/cmd/folio test/js test/examples: onnxruntime
test/examples: eval-corpora

## lint/<module>: go vet and staticcheck over one module.
lint/%: $(STATICCHECK)
	cd $* && $(GO) vet ./... && $(CURDIR)/$(STATICCHECK) ./...

## help: the targets, from their comments.
.PHONY: help
help:
	@awk 'function wrap(s,   n, i, w, line) { n = split(s, w, " "); line = "   "; \
			for (i = 1; i <= n; i++) { if (length(line) + length(w[i]) > 98) { print line; line = "   " } line = line " " w[i] } print line } \
		function flush() { if (name != "") { gsub(/\$$\$$/, "$$", text); print name; wrap(text) } name = "" } \
		/^## [a-z][a-z0-9%\/<>-]*:/ { flush(); sub(/^## /, ""); name = $$0; sub(/:.*/, "", name); text = $$0; sub(/^[^:]*: */, "", text); next } \
		/^## / && name != "" { sub(/^## /, ""); text = text " " $$0; next } \
		{ flush() } END { flush() }' $(MAKEFILE_LIST)

include make/generate.mk make/js.mk make/long.mk
