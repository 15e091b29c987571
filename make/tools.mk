# The tools Folio's checks use, each pinned once here and installed when
# missing: into bin/ from the Go module proxy, into .cache/ from npm
# (checksum-verified where the package carries a binary), or from Debian's
# packages. The Makefile includes this file; make -n test/core names none
# of them.

# wasmbrowsertest runs js/wasm test binaries in headless Chromium; the
# browser modules' tests find it through FOLIO_WASMBROWSERTEST
# (conformance/browsertest).
WASMBROWSERTEST_VERSION := v0.11.0
WASMBROWSERTEST := bin/wasmbrowsertest-$(WASMBROWSERTEST_VERSION)/wasmbrowsertest
export FOLIO_WASMBROWSERTEST := $(CURDIR)/$(WASMBROWSERTEST)

## staticcheck: the linter lint runs, into bin/.
STATICCHECK_VERSION ?= v0.8.2
STATICCHECK := bin/staticcheck-$(STATICCHECK_VERSION)/staticcheck
.PHONY: staticcheck
staticcheck: $(STATICCHECK)
lint: $(STATICCHECK)
$(STATICCHECK):
	@echo "==> staticcheck $(STATICCHECK_VERSION) into $(@D)"
	@GOBIN=$(CURDIR)/$(@D) GOWORK=off $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

## vectra-npm: Vectra 0.15 from npm into .cache/vectra-npm, for its browser
## build and its own generated Python client.
VECTRA_NPM := .cache/vectra-npm
VECTRA_NPM_PKG := $(VECTRA_NPM)/node_modules/vectra/package.json
export FOLIO_VECTRA_NPM := $(CURDIR)/$(VECTRA_NPM)
.PHONY: vectra-npm
vectra-npm: $(VECTRA_NPM_PKG)
$(VECTRA_NPM_PKG):
	@echo "==> npm vectra@0.15.0 into $(VECTRA_NPM)"
	@npm install --prefix $(VECTRA_NPM) --no-audit --no-fund --loglevel=error vectra@0.15.0 >/dev/null

## python-grpc-tools: Debian's python3-grpc-tools, for the Python clients'
## tests. DEBIAN_PYTHON is Debian's Python, where it installs (not a pyenv
## or venv python3 on PATH).
DEBIAN_PYTHON := $(shell [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)
.PHONY: python-grpc-tools
python-grpc-tools:
	@$(DEBIAN_PYTHON) -c 'import grpc_tools, grpc' 2>/dev/null || { \
		echo "==> installing Debian's python3-grpc-tools"; \
		sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq python3-grpc-tools >/dev/null; }

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
$(VECTRA_BROWSER): scripts/vectra-browser/crypto.js $(VECTRA_NPM_PKG)
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
.PHONY: typescript
typescript: $(TSC)
$(TSC):
	@echo "==> typescript $(TYPESCRIPT_VERSION) into .cache/typescript-$(TYPESCRIPT_VERSION)"
	@npm install --prefix .cache/typescript-$(TYPESCRIPT_VERSION) --no-audit --no-fund --loglevel=error typescript@$(TYPESCRIPT_VERSION) >/dev/null

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
