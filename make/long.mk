# The long checks: make test runs a short form of each.

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

## vectra-client-test: Vectra 0.15's own generated Python client, unchanged, against the gRPC server
## and against `folio serve` (the same top 3 as folio query, by default), and the Python client
## `folio generate` writes, against `folio serve`.
VECTRA_PY := .cache/vectra-py
vectra-client-test: python-grpc-tools $(VECTRA_NPM_PKG)
	@rm -rf $(VECTRA_PY) && node $(VECTRA_NPM)/node_modules/vectra/bin/vectra.js generate -l python -o $(VECTRA_PY) >/dev/null
	@cd $(VECTRA_PY) && $(DEBIAN_PYTHON) -m grpc_tools.protoc -I. --python_out=. --grpc_python_out=. vectra_service.proto
	cd adapters/grpc && FOLIO_VECTRA_PY=$(CURDIR)/$(VECTRA_PY) FOLIO_PYTHON=$(DEBIAN_PYTHON) $(GO) test -count=1 -run '^TestVectraPythonClient$$' -v . | grep -E '^(---|ok|FAIL)|python|vectra'
	cd cmd/folio && FOLIO_VECTRA_PY=$(CURDIR)/$(VECTRA_PY) FOLIO_PYTHON=$(DEBIAN_PYTHON) $(GO) test -count=1 -run '^(TestGeneratedPythonClient|TestVectraPythonClientRanksAsFolioQuery)$$' -v . | grep -E '^(---|ok|FAIL)|python'

## observability-test: a real Prometheus (Debian's prometheus, installed
## when missing) scrapes folio serve --metrics-addr every second during a
## 20 s load of queries and inserts; its query API must then see the
## target up and the rates of queries, commits and calls above zero
## (scripts/observability-test.sh).
observability-test: prometheus
	scripts/observability-test.sh

## prometheus: Debian's Prometheus server, for observability-test.
## Installed when missing.
prometheus:
	@command -v prometheus >/dev/null || { \
		echo "==> installing Prometheus (Debian prometheus)"; \
		sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq prometheus >/dev/null; }

## several-servers-test: the several-servers test at length: three folio
## serve processes over one S3-protocol bucket, a writer adding 60 documents
## one commit each, clients spread over the servers, one server killed; on
## the in-process fake, then on a real S3 server, SeaweedFS.
several-servers-test: $(WEED)
	scripts/several-servers-test.sh $(CURDIR)/$(WEED)

## SeaweedFS's weed command (an S3-compatible server, Apache-2.0), built
## from its Go module (about 4 minutes and 165 MB, once).
SEAWEEDFS_VERSION := v0.0.0-20261109003541-7506e5f91cd6
WEED := .cache/seaweedfs-$(SEAWEEDFS_VERSION)/weed
$(WEED):
	scripts/build-seaweedfs.sh $(SEAWEEDFS_VERSION) $@

## server-bench: the server figures of docs/benchmarks.md in one run: folio
## serve and Vectra 0.15's own server under folio-load (cmd/folio/loadgen),
## beside the engine in
## process (SECONDS_EACH=10 a load).
.PHONY: server-bench
server-bench:
	scripts/server-bench.sh

## bench-commit: the commit figures of docs/benchmarks.md in one run: 1M×384
## (BENCH_N items) on both layouts, built once into $TMPDIR/folio-commitbench
## (3.2 GB; kept for the next run): dd of the index file, one upsert on
## Vectra's layout, 200 on the segmented one, a compaction; then both
## through folio serve, 8 clients querying during 20 inserts
## (scripts/commit-serve-bench.sh).
BENCH_N ?= 1000000
.PHONY: bench-commit
bench-commit:
	cd examples && $(GO) run ./commitbench -n $(BENCH_N)
	scripts/commit-serve-bench.sh

## bench-web: an index on a static web host, 50 ms away: Go's file server
## behind a proxy adding the round trip to every request, queried through
## storage-http natively and from headless Chromium through the JavaScript
## package, beside the local folder (requests, bytes and time of the open
## and of each later query; answers equal to the local index's), at 10k,
## 100k and 1M×384 clustered rows (WEB_N), built into $TMPDIR/folio-clustered.
WEB_N ?= 10000,100000,1000000
.PHONY: bench-web
bench-web: chromium
	cd examples && $(GO) run ./webbench -n $(WEB_N) -browser

## bench-clustered: queries on 1M×384 (CLUSTERED_N) vectors that behave like
## embeddings (a mixture of 2,000 Gaussian clusters, conformance/testkit/
## clustered), built once on the segmented layout into $TMPDIR/folio-clustered
## (1.8 GB; kept) with the exact top 10 of 1,000 held-out queries: the
## memory-read floor, then the exact scan, the int8, the 4-bit and the 4-bit
## narrowed by int8 scans, each in a fresh process (open time, p50/p99,
## recall@10, a batch of 64, resident memory).
CLUSTERED_N ?= 1000000
.PHONY: bench-clustered
bench-clustered:
	cd examples && $(GO) run ./clusterbench -n $(CLUSTERED_N)

## bench-peers: FAISS's IVF index with flat lists (1,024 lists; 8 to 64
## probes) beside the scan of every 4-bit code and the partitioned search,
## on the same vectors, queries and exact answers as bench-clustered
## (CLUSTERED_N), each in a fresh process; Debian's python3-faiss is
## installed when missing. The vectors are written once to a raw float32
## file beside the index (1.5 GB at 1M×384).
.PHONY: bench-peers python3-faiss
bench-peers: python3-faiss
	cd examples && $(GO) run ./clusterbench -n $(CLUSTERED_N) -phases int4,partitioned,faiss

python3-faiss:
	@/usr/bin/python3 -c 'import faiss' 2>/dev/null || { \
		echo "==> installing FAISS (Debian python3-faiss)"; \
		sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq python3-faiss >/dev/null; }

## bench-10m: the same on 10M×384, built straight from the generator into
## $TMPDIR/folio-clustered (17.6 GB on disk, kept; it needs 20 GB free), with
## 4-bit codes only: the vectors stay in the file, the codes in memory.
.PHONY: bench-10m
bench-10m:
	@avail=$$(df -Pk "$${TMPDIR:-/tmp}" | awk 'NR==2 {print $$4}'); \
	if [ "$$avail" -lt 20000000 ] && [ ! -f "$${TMPDIR:-/tmp}/folio-clustered/ix-10000000-384-2000-1/built" ]; then \
		echo "bench-10m: $${TMPDIR:-/tmp} has $$((avail / 1048576)) GB free, the index needs 20 GB"; exit 1; fi
	cd examples && $(GO) run ./clusterbench -n 10000000 -phases int4
