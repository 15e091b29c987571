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
	./adapters/tokenizer-tiktoken ./adapters/embed-hosted ./adapters/embed-hash ./adapters/storage-idb ./adapters/fetch-browser ./browser
# Modules whose code is for the browser only (js/wasm): vetted and
# staticchecked for js/wasm too, since the native lint does not see it.
BROWSER_MODULES := ./adapters/storage-idb ./adapters/fetch-browser ./browser ./js

# wasmbrowsertest runs js/wasm test binaries in headless Chromium; the
# browser modules' tests find it through FOLIO_WASMBROWSERTEST
# (conformance/browsertest).
WASMBROWSERTEST_VERSION := v0.11.0
WASMBROWSERTEST := bin/wasmbrowsertest-$(WASMBROWSERTEST_VERSION)/wasmbrowsertest
export FOLIO_WASMBROWSERTEST := $(CURDIR)/$(WASMBROWSERTEST)

STATICCHECK_VERSION ?= v0.8.2

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

.PHONY: several-servers-test eval readers-test all test fresh-test install large-files test-short lint tidy tidy-check purego isolated wasm bench generate generate-check demo ci core-deps kill-test load-test vectra-client-test

all: lint test

## test: every module's tests, with the race detector, then a throwaway
## module outside the repository that uses Folio as the README says.
test:
	$(call each,$(MODULES),test,$(GO) test -race -count=1 ./...)
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

## install: build the folio command from this checkout and install it where
## go install puts binaries: $$GOBIN, else $$(go env GOPATH)/bin. The default
## build links no cloud SDK; TAGS=objectstorage adds S3, Google Cloud Storage
## and Azure Blob buckets (--storage-root, serve --root).
TAGS ?=
install:
	$(GO) install -tags "$(TAGS)" ./cmd/folio
	@dir=$$($(GO) env GOBIN); [ -n "$$dir" ] || dir=$$($(GO) env GOPATH)/bin; echo "installed $$dir/folio"

## large-files: no tracked file over 2 MB but the fixtures listed in the script.
large-files:
	@scripts/check-large-files.sh

## test-short: every module's tests without the race detector (faster local loop).
test-short:
	$(call each,$(MODULES),test,$(GO) test -count=1 ./...)

## kill-test: the SIGKILL test (acceptance/kill_test.go) at length: 250 kills per
## workload (items, documents) and codec. make test runs 12 of each.
KILLS ?= 250
kill-test:
	cd acceptance && FOLIO_KILLS=$(KILLS) $(GO) test -count=1 -run '^TestKillDuringWrites$$' -v -timeout 60m . | grep -E '^(---|ok|FAIL)|kills'

## readers-test: four writer processes (one killed half-way) replacing and
## deleting items, two replacing documents, and reader processes querying
## the same folders the whole time, for READERS_SECONDS (20); make test
## runs 3 s of it.
READERS_SECONDS ?= 20
readers-test:
	cd acceptance && FOLIO_MP_SECONDS=$(READERS_SECONDS) $(GO) test -count=1 -run '^TestReadersDuringOtherProcessesCommits$$' -v -timeout 10m . | grep -E '^\s*(---|ok|FAIL)|readers_test'

## load-test: 32 gRPC clients mixing queries and writes on one index for LOAD_SECONDS (30), under -race.
LOAD_SECONDS ?= 30
load-test:
	cd adapters/grpc && FOLIO_LOAD_SECONDS=$(LOAD_SECONDS) $(GO) test -race -count=1 -run '^TestLoadMixedClients$$' -v -timeout 10m . | grep -E '^(---|ok|FAIL)|calls in|load_test'

## vectra-client-test: Vectra 0.15's own generated Python client, unchanged, against the gRPC server,
## and the Python client `folio generate` writes, against `folio serve`.
VECTRA_NPM := .cache/vectra-npm
VECTRA_PY := .cache/vectra-py
# Debian's Python, where python3-grpc-tools installs (not a pyenv or venv python3 on PATH).
DEBIAN_PYTHON := $(shell [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)
vectra-client-test:
	@$(DEBIAN_PYTHON) -c 'import grpc_tools, grpc' 2>/dev/null || { \
		echo "==> installing Debian's python3-grpc-tools"; \
		sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq python3-grpc-tools >/dev/null; }
	@[ -f $(VECTRA_NPM)/node_modules/vectra/package.json ] || { \
		echo "==> npm vectra@0.15.0 into $(VECTRA_NPM)"; \
		npm install --prefix $(VECTRA_NPM) --no-audit --no-fund --loglevel=error vectra@0.15.0 >/dev/null; }
	@rm -rf $(VECTRA_PY) && node $(VECTRA_NPM)/node_modules/vectra/bin/vectra.js generate -l python -o $(VECTRA_PY) >/dev/null
	@cd $(VECTRA_PY) && $(DEBIAN_PYTHON) -m grpc_tools.protoc -I. --python_out=. --grpc_python_out=. vectra_service.proto
	cd adapters/grpc && FOLIO_VECTRA_PY=$(CURDIR)/$(VECTRA_PY) FOLIO_PYTHON=$(DEBIAN_PYTHON) $(GO) test -count=1 -run '^TestVectraPythonClient$$' -v . | grep -E '^(---|ok|FAIL)|python|vectra'
	cd cmd/folio && FOLIO_PYTHON=$(DEBIAN_PYTHON) $(GO) test -count=1 -run '^TestGeneratedPythonClient$$' -v . | grep -E '^(---|ok|FAIL)|python'

## lint: gofmt, go vet and staticcheck over every module.
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); \
		if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(call each,$(MODULES),vet,$(GO) vet ./...)
	$(call each,$(MODULES),staticcheck,$(CURDIR)/$(STATICCHECK) ./...)
	$(call each,$(BROWSER_MODULES),js staticcheck,GOOS=js GOARCH=wasm $(CURDIR)/$(STATICCHECK) ./...)

STATICCHECK := bin/staticcheck-$(STATICCHECK_VERSION)/staticcheck
lint: $(STATICCHECK)
$(STATICCHECK):
	@echo "==> staticcheck $(STATICCHECK_VERSION) into $(@D)"
	@GOBIN=$(CURDIR)/$(@D) GOWORK=off $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

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

## demo: the main job, through the folio command — build it, index this
## repository's README and docs/ into a document index with the offline
## word-hashing model, ask two questions (vector and keyword matches ranked
## together, folio query's default) and print the passage of each of the best
## two files. examples/docsearch does the same through the library.
## several-servers-test: the several-servers test at length: three folio
## serve processes over one S3-protocol bucket, a writer adding 60 documents
## one commit each, clients spread over the servers, one server killed.
several-servers-test:
	cd cmd/folio && FOLIO_SEVERAL_SERVERS_ROUNDS=60 $(GO) test -count=1 -run '^TestSeveralServersOverABucket$$' -v . | grep -E '^(---|ok|FAIL)|commits seen|servers_test'

## server-bench: the server figures of docs/benchmarks.md in one run: folio
## serve and Vectra 0.15's own server under folio load, beside the engine in
## process (SECONDS_EACH=10 a load).
.PHONY: server-bench
server-bench:
	scripts/server-bench.sh

## eval: the retrieval benchmark: the questions of testdata/eval, each naming
## the file that answers it, asked of a document index of its corpus; prints
## hit@1, hit@3 and MRR for vector, hybrid and fused hybrid search under
## Vectra's chunking and Folio's (word-hashing model, offline).
eval:
	cd examples && $(GO) run ./eval -data ../testdata/eval

DEMO_INDEX := .cache/demo-index
demo:
	$(GO) build -o bin/folio ./cmd/folio
	@rm -rf $(DEMO_INDEX)
	bin/folio create $(DEMO_INDEX)
	bin/folio add $(DEMO_INDEX) --hash-dims 384 --uri README.md --uri docs
	bin/folio query $(DEMO_INDEX) "How do I run every test with the race detector?" --document-count 2 --tokens 500
	bin/folio query $(DEMO_INDEX) "BM25 keyword matches in hybrid queries" --document-count 2 --tokens 500

## browser-demo: examples/browser, a page with a document index in IndexedDB
## on Folio's JavaScript package, laid out in .cache/browser-demo and served
## on http://127.0.0.1:8080/ (BROWSER_DEMO_ADDR to change it).
BROWSER_DEMO := .cache/browser-demo
BROWSER_DEMO_ADDR ?= 127.0.0.1:8080
.PHONY: browser-demo browser-demo-build
browser-demo: browser-demo-build
	$(GO) run ./examples/browser/serve -dir $(BROWSER_DEMO) -addr $(BROWSER_DEMO_ADDR)
browser-demo-build: js
	@rm -rf $(BROWSER_DEMO) && mkdir -p $(BROWSER_DEMO)
	cp -r $(JS_DIST)/. $(BROWSER_DEMO)/
	cp examples/browser/index.html examples/browser/app.js $(BROWSER_DEMO)/

## ci: everything CI checks.
ci: test large-files lint core-deps isolated wasm generate-check tidy-check purego vectra-client-test

## onnxruntime: the ONNX Runtime library that adapters/embed-onnx loads, from the
## npm package onnxruntime-node (its install script is never run), checksum-verified,
## into .cache/onnxruntime/<version>/. Runs only when the library is missing.
ONNXRUNTIME_VERSION := 1.24.3
ONNXRUNTIME_SUMS := adapters/embed-onnx/onnxruntime.sha256
ONNXRUNTIME_PLATFORM := $(shell uname -s | tr A-Z a-z)/$(shell uname -m | sed -e 's/x86_64/x64/' -e 's/aarch64/arm64/')
ONNXRUNTIME_LIBNAME := $(if $(filter darwin/%,$(ONNXRUNTIME_PLATFORM)),libonnxruntime.$(ONNXRUNTIME_VERSION).dylib,libonnxruntime.so.1)
ONNXRUNTIME_LIB := .cache/onnxruntime/$(ONNXRUNTIME_VERSION)/$(ONNXRUNTIME_LIBNAME)

.PHONY: onnxruntime
onnxruntime: $(ONNXRUNTIME_LIB)
test test-short isolated bench: onnxruntime browser-tools vectra-browser ort-web typescript js-package

## test/<module>: one module's tests, with the race detector, fetching only
## the tools that module needs (make test/core, make test/adapters/grpc).
test/%:
	cd $* && $(GO) test -race -count=1 ./...
test/js test/browser test/adapters/storage-idb test/adapters/fetch-browser test/examples: browser-tools
test/js test/examples: vectra-browser ort-web typescript
test/js: js-package
test/adapters/embed-onnx test/cmd/folio test/js test/examples: onnxruntime

## lint/<module>: go vet and staticcheck over one module.
lint/%: $(STATICCHECK)
	cd $* && $(GO) vet ./... && $(CURDIR)/$(STATICCHECK) ./...

## help: the targets, from their comments.
.PHONY: help
help:
	@awk '/^## [a-z][a-z0-9%\/<>-]*:/ { sub(/^## /, ""); print }' $(MAKEFILE_LIST)

## vectra-browser: Vectra 0.15's browser build (vectra/browser from npm) bundled
## for a page with esbuild (npm, pinned), for the browser interop tests.
## Node's built-in modules it names but never calls in a browser are
## stubbed; Buffer, which its JSON codec takes as a global, comes from the
## buffer package it depends on, and crypto's createHash, which
## upsertDocument calls, from sha.js (npm, pinned), as a bundler's Node
## polyfill gives them. Built when missing or older than its crypto shim.
ESBUILD_VERSION := 0.25.12
SHAJS_VERSION := 2.4.12
VECTRA_BROWSER := .cache/vectra-browser/vectra.js
export FOLIO_VECTRA_BROWSER_BUNDLE := $(CURDIR)/$(VECTRA_BROWSER)
export FOLIO_ESBUILD := $(CURDIR)/.cache/vectra-browser/node_modules/.bin/esbuild
.PHONY: vectra-browser
vectra-browser: $(VECTRA_BROWSER)
$(VECTRA_BROWSER): scripts/vectra-browser/crypto.js
	@[ -f $(VECTRA_NPM)/node_modules/vectra/package.json ] || { \
		echo "==> npm vectra@0.15.0 into $(VECTRA_NPM)"; \
		npm install --prefix $(VECTRA_NPM) --no-audit --no-fund --loglevel=error vectra@0.15.0 >/dev/null; }
	@echo "==> esbuild $(ESBUILD_VERSION): Vectra's browser build into $@"
	@mkdir -p $(@D) && npm install --prefix $(@D) --no-audit --no-fund --loglevel=error esbuild@$(ESBUILD_VERSION) sha.js@$(SHAJS_VERSION) >/dev/null
	@echo "module.exports = {};" > $(@D)/node-stub.js
	@echo "globalThis.Buffer = require('buffer').Buffer; globalThis.vectra = require('vectra/browser');" > $(@D)/entry.js
	@NODE_PATH=$(CURDIR)/$(VECTRA_NPM)/node_modules:$(CURDIR)/$(@D)/node_modules $(@D)/node_modules/.bin/esbuild $(@D)/entry.js --bundle \
		--format=iife --platform=browser --log-level=error --outfile=$@.part \
		$(foreach m,fs/promises node:path path tty,--alias:$(m)=./$(@D)/node-stub.js) \
		--alias:crypto=./scripts/vectra-browser/crypto.js \
		--external:@huggingface/transformers && mv $@.part $@

## ort-web: onnxruntime-web (npm, pinned, checksum-verified), the WebAssembly
## build that runs TransformersEmbeddings in a page: its ES module and .wasm,
## into .cache/onnxruntime-web/<version>/ (the js tests find them through
## FOLIO_ORT_WEB). Runs only when they are missing.
ORT_WEB_VERSION := 1.24.3
ORT_WEB_SUMS := js/onnxruntime-web.sha256
ORT_WEB_DIR := .cache/onnxruntime-web/$(ORT_WEB_VERSION)
ORT_WEB_FILES := ort.wasm.bundle.min.mjs ort-wasm-simd-threaded.wasm
export FOLIO_ORT_WEB := $(CURDIR)/$(ORT_WEB_DIR)
.PHONY: ort-web
ort-web: $(ORT_WEB_DIR)/.complete
$(ORT_WEB_DIR)/.complete: $(ORT_WEB_SUMS)
	@echo "==> onnxruntime-web $(ORT_WEB_VERSION) into $(@D)"
	@command -v npm >/dev/null || { echo "npm is needed to fetch onnxruntime-web@$(ORT_WEB_VERSION)"; exit 1; }
	@sha256() { if command -v sha256sum >/dev/null; then sha256sum "$$1"; else shasum -a 256 "$$1"; fi | cut -d' ' -f1; }; \
		want() { awk -v f="$$1" '$$2 == f { print $$1 }' $(ORT_WEB_SUMS); }; \
		tgz=onnxruntime-web-$(ORT_WEB_VERSION).tgz; \
		tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
		(cd "$$tmp" && npm pack --silent --ignore-scripts onnxruntime-web@$(ORT_WEB_VERSION) >/dev/null); \
		[ "$$(sha256 "$$tmp/$$tgz")" = "$$(want $$tgz)" ] || { echo "checksum mismatch: $$tgz"; exit 1; }; \
		mkdir -p $(@D); \
		for f in $(ORT_WEB_FILES); do \
			tar -xzf "$$tmp/$$tgz" -C "$$tmp" package/dist/$$f; \
			[ "$$(sha256 "$$tmp/package/dist/$$f")" = "$$(want package/dist/$$f)" ] || { echo "checksum mismatch: $$f"; exit 1; }; \
			mv "$$tmp/package/dist/$$f" $(@D)/$$f; \
		done; touch $@

## typescript: the TypeScript compiler (npm, pinned) that checks folio.d.ts
## against Vectra's declarations in the js tests (FOLIO_TSC). Installed when
## missing.
TYPESCRIPT_VERSION := 5.9.3
TSC := .cache/typescript-$(TYPESCRIPT_VERSION)/node_modules/.bin/tsc
export FOLIO_TSC := $(CURDIR)/$(TSC)
export FOLIO_VECTRA_NPM := $(CURDIR)/$(VECTRA_NPM)
.PHONY: typescript
typescript: $(TSC)
$(TSC):
	@echo "==> typescript $(TYPESCRIPT_VERSION) into .cache/typescript-$(TYPESCRIPT_VERSION)"
	@npm install --prefix .cache/typescript-$(TYPESCRIPT_VERSION) --no-audit --no-fund --loglevel=error typescript@$(TYPESCRIPT_VERSION) >/dev/null

## js: Folio's JavaScript package (Vectra's browser API as an ES module) in
## $(JS_DIST): folio.js, bridge.js, transformers.js, folio.d.ts, folio.wasm,
## Go's wasm_exec.js and onnxruntime-web's two files. Serve the folder as it
## is; a page imports folio.js.
JS_DIST := .cache/js
.PHONY: js
js: ort-web
	@rm -rf $(JS_DIST) && mkdir -p $(JS_DIST)
	cd js && GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags=-s -o ../$(JS_DIST)/folio.wasm .
	cp js/package/* "$$($(GO) env GOROOT)/lib/wasm/wasm_exec.js" $(addprefix $(ORT_WEB_DIR)/,$(ORT_WEB_FILES)) $(JS_DIST)/
	@ls -l $(JS_DIST)/folio.wasm | awk '{ printf "folio.wasm: %.1f MB, ", $$5 / 1e6 }'; gzip -9c $(JS_DIST)/folio.wasm | wc -c | awk '{ printf "%.1f MB gzipped\n", $$1 / 1e6 }'

## js-package: the npm package of Folio's JavaScript module, packed by npm
## into $(JS_PACKAGE)/foliovec-folio-<version>.tgz (the version is
## folio.Version, the Go modules'). onnxruntime-web is an optional peer
## dependency, not in the tarball.
JS_PACKAGE := .cache/js-package
FOLIO_VERSION := $(shell awk -F'"' '/^const Version/ { print $$2 }' version.go)
export FOLIO_JS_PACKAGE := $(CURDIR)/$(JS_PACKAGE)/foliovec-folio-$(FOLIO_VERSION).tgz
.PHONY: js-package
js-package: js
	@rm -rf $(JS_PACKAGE) && mkdir -p $(JS_PACKAGE)/package
	cp $(addprefix $(JS_DIST)/,folio.js folio.d.ts bridge.js transformers.js wasm_exec.js folio.wasm) js/npm/README.md $(JS_PACKAGE)/package/
	sed -e 's/@VERSION@/$(FOLIO_VERSION)/' -e 's/@ORT_WEB_VERSION@/$(ORT_WEB_VERSION)/' js/npm/package.json.in > $(JS_PACKAGE)/package/package.json
	cd $(JS_PACKAGE)/package && npm pack --silent --pack-destination .. >/dev/null
	@ls -l $(FOLIO_JS_PACKAGE) | awk '{ printf "%s: %.1f MB\n", $$NF, $$5 / 1e6 }'

## browser-tools: what the browser tests need, each installed when missing:
## Debian's Chromium and wasmbrowsertest.
.PHONY: browser-tools
browser-tools: chromium $(WASMBROWSERTEST)

$(WASMBROWSERTEST):
	@echo "==> wasmbrowsertest $(WASMBROWSERTEST_VERSION) into $(@D)"
	@GOBIN=$(CURDIR)/$(@D) GOWORK=off $(GO) install github.com/agnivade/wasmbrowsertest@$(WASMBROWSERTEST_VERSION)

$(ONNXRUNTIME_LIB):
	@echo "==> onnxruntime $(ONNXRUNTIME_VERSION) ($(ONNXRUNTIME_PLATFORM)) into $(@D)"
	@command -v npm >/dev/null || { echo "npm is needed to fetch onnxruntime-node@$(ONNXRUNTIME_VERSION)"; exit 1; }
	@sha256() { if command -v sha256sum >/dev/null; then sha256sum "$$1"; else shasum -a 256 "$$1"; fi | cut -d' ' -f1; }; \
		want() { awk -v f="$$1" '$$2 == f { print $$1 }' $(ONNXRUNTIME_SUMS); }; \
		tgz=onnxruntime-node-$(ONNXRUNTIME_VERSION).tgz; \
		member=package/bin/napi-v6/$(ONNXRUNTIME_PLATFORM)/$(ONNXRUNTIME_LIBNAME); \
		[ -n "$$(want $$member)" ] || { echo "no onnxruntime library pinned for $(ONNXRUNTIME_PLATFORM) in $(ONNXRUNTIME_SUMS)"; exit 1; }; \
		tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
		(cd "$$tmp" && npm pack --silent --ignore-scripts onnxruntime-node@$(ONNXRUNTIME_VERSION) >/dev/null); \
		[ "$$(sha256 "$$tmp/$$tgz")" = "$$(want $$tgz)" ] || { echo "checksum mismatch: $$tgz"; exit 1; }; \
		tar -xzf "$$tmp/$$tgz" -C "$$tmp" "$$member"; \
		[ "$$(sha256 "$$tmp/$$member")" = "$$(want $$member)" ] || { echo "checksum mismatch: $$member"; exit 1; }; \
		mkdir -p $(@D); mv "$$tmp/$$member" $@.part; mv $@.part $@
	@echo "onnxruntime: $@"

# --- protobuf code generation ---
# adapters/codec-pb/internal/pb (the index format) and adapters/grpc/vectrapb
# (Vectra's gRPC service). protoc comes from Debian's protobuf-compiler
# (installed when missing); protoc-gen-go from the Go module proxy, pinned to
# the google.golang.org/protobuf version codec-pb requires, and
# protoc-gen-go-grpc pinned below, both installed into bin/.
PB_DIR := adapters/codec-pb/internal/pb
GRPC_DIR := adapters/grpc/vectrapb
PROTOC_GEN_GO_VERSION := $(shell awk '{ for (i = 1; i < NF; i++) if ($$i == "google.golang.org/protobuf") { print $$(i+1); exit } }' adapters/codec-pb/go.mod)
PROTOC_GEN_GO := bin/protoc-gen-go-$(PROTOC_GEN_GO_VERSION)/protoc-gen-go
PROTOC_GEN_GO_GRPC_VERSION := v1.6.1
PROTOC_GEN_GO_GRPC := bin/protoc-gen-go-grpc-$(PROTOC_GEN_GO_GRPC_VERSION)/protoc-gen-go-grpc
# protoc's own version is written into a header comment only; the check ignores that line.
PB_HEADER_VERSION := ^//[[:space:]]+(-[[:space:]]+)?protoc[[:space:]]

$(PROTOC_GEN_GO):
	@echo "==> protoc-gen-go $(PROTOC_GEN_GO_VERSION) into $(@D)"
	@GOBIN=$(CURDIR)/$(@D) GOWORK=off $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)

$(PROTOC_GEN_GO_GRPC):
	@echo "==> protoc-gen-go-grpc $(PROTOC_GEN_GO_GRPC_VERSION) into $(@D)"
	@GOBIN=$(CURDIR)/$(@D) GOWORK=off $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)

## chromium: Debian's headless Chromium, which the browser tests (wasmbrowsertest,
## chromedp) drive. Installed when missing.
.PHONY: chromium
chromium:
	@command -v chromium >/dev/null || { \
		echo "==> installing Chromium (Debian chromium)"; \
		sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq chromium >/dev/null; }

.PHONY: protoc
protoc:
	@command -v protoc >/dev/null || { \
		echo "==> installing protoc (Debian protobuf-compiler)"; \
		sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq protobuf-compiler >/dev/null; }

# protoc-run generates the index format's code into $(1) and the gRPC
# service's into $(2), as one shell command.
protoc-run = protoc -I $(PB_DIR) --plugin=protoc-gen-go=$(PROTOC_GEN_GO) \
		--go_out=$(1) --go_opt=paths=source_relative index.proto && \
	protoc -I $(GRPC_DIR) --plugin=protoc-gen-go=$(PROTOC_GEN_GO) --plugin=protoc-gen-go-grpc=$(PROTOC_GEN_GO_GRPC) \
		--go_out=$(2) --go_opt=paths=source_relative \
		--go-grpc_out=$(2) --go-grpc_opt=paths=source_relative vectra_service.proto

## generate: regenerate the Go code of the index format and of the gRPC service from their .proto files.
generate: protoc $(PROTOC_GEN_GO) $(PROTOC_GEN_GO_GRPC)
	$(call protoc-run,$(PB_DIR),$(GRPC_DIR))

## generate-check: fail when the committed generated code is not what generate makes.
generate-check: protoc $(PROTOC_GEN_GO) $(PROTOC_GEN_GO_GRPC)
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; mkdir -p "$$tmp/pb" "$$tmp/grpc"; \
		$(call protoc-run,"$$tmp/pb","$$tmp/grpc") && \
		for f in $(PB_DIR)/index.pb.go:pb/index.pb.go $(GRPC_DIR)/vectra_service.pb.go:grpc/vectra_service.pb.go \
				$(GRPC_DIR)/vectra_service_grpc.pb.go:grpc/vectra_service_grpc.pb.go; do \
			committed=$${f%%:*}; fresh="$$tmp/$${f#*:}"; \
			if ! diff -u <(grep -Ev '$(PB_HEADER_VERSION)' $$committed) <(grep -Ev '$(PB_HEADER_VERSION)' "$$fresh"); then \
				echo "$$committed is stale: run make generate and commit it"; exit 1; fi; \
		done
	@echo "generated code is current"
