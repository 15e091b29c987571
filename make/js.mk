# Folio's JavaScript package: the unpacked module, the npm tarball and the
# browser example.

## js: Folio's JavaScript package (Vectra's browser API as an ES module) in
## $(JS_DIST): folio.js, bridge.js, transformers.js, folio.d.ts, folio.wasm,
## the tokenizer's ranks (o200k_base.tiktoken.gz, which folio.wasm does not
## carry), Go's wasm_exec.js and onnxruntime-web's two files. Serve the folder as it
## is; a page imports folio.js.
JS_DIST := .cache/js
.PHONY: js
js: ort-web
	@rm -rf $(JS_DIST) && mkdir -p $(JS_DIST)
	cd js && GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags=-s -o ../$(JS_DIST)/folio.wasm .
	cp js/package/* adapters/tokenizer-tiktoken/o200k_base.tiktoken.gz "$$($(GO) env GOROOT)/lib/wasm/wasm_exec.js" $(addprefix $(ORT_WEB_DIR)/,$(ORT_WEB_FILES)) $(JS_DIST)/
	@ls -l $(JS_DIST)/folio.wasm | awk '{ printf "folio.wasm: %.1f MB, ", $$5 / 1e6 }'; gzip -9c $(JS_DIST)/folio.wasm | wc -c | awk '{ printf "%.1f MB gzipped\n", $$1 / 1e6 }'

## js-package: the npm package of Folio's JavaScript module, packed by npm
## into $(JS_PACKAGE)/foliovec-folio-<version>.tgz (the version is
## folio.Version, the Go modules'), with LICENSE (Apache-2.0), NOTICE and
## THIRD_PARTY_NOTICES (the licences of what folio.wasm, wasm_exec.js and
## the tokenizer's ranks are made of). onnxruntime-web is an optional peer
## dependency, not in the tarball.
JS_PACKAGE := .cache/js-package
FOLIO_VERSION := $(shell awk -F'"' '/^const Version/ { print $$2 }' version.go)
export FOLIO_JS_PACKAGE := $(CURDIR)/$(JS_PACKAGE)/foliovec-folio-$(FOLIO_VERSION).tgz
.PHONY: js-package
js-package: js
	@rm -rf $(JS_PACKAGE) && mkdir -p $(JS_PACKAGE)/package
	cp $(addprefix $(JS_DIST)/,folio.js folio.d.ts bridge.js transformers.js wasm_exec.js folio.wasm o200k_base.tiktoken.gz) js/npm/README.md LICENSE NOTICE $(JS_PACKAGE)/package/
	scripts/third-party-notices.sh js js wasm $(CURDIR)/js/npm/o200k-notice.txt > $(JS_PACKAGE)/package/THIRD_PARTY_NOTICES
	sed -e 's/@VERSION@/$(FOLIO_VERSION)/' -e 's/@ORT_WEB_VERSION@/$(ORT_WEB_VERSION)/' js/npm/package.json.in > $(JS_PACKAGE)/package/package.json
	cd $(JS_PACKAGE)/package && npm pack --silent --pack-destination .. >/dev/null
	@ls -l $(FOLIO_JS_PACKAGE) | awk '{ printf "%s: %.1f MB\n", $$NF, $$5 / 1e6 }'

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
