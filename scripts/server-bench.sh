#!/usr/bin/env bash
# server-bench.sh: the server figures of docs/benchmarks.md, measured in one
# run with the repository's load generator (folio-load, cmd/folio/loadgen)
# on this machine:
#   - 10k×384 (JSON): Vectra 0.15's own server (npm vectra@0.15.0) and
#     folio serve, 8 clients, and folio serve with 1 client;
#   - 100k×384 (protobuf): folio serve, 16 clients, exact, with
#     --metrics-addr, and --quantized;
#   - in process, same run: QueryItems on 10k×384 one at a time and
#     QueryItemsBatch on 100k×384 (core benchmarks).
# The load generator runs on the same machine as the server: its cost is in
# every server figure. SECONDS_EACH (10) sets each load's duration.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${SECONDS_EACH:-10}
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

vectra_npm=.cache/vectra-npm
if [ ! -f "$vectra_npm/node_modules/vectra/package.json" ]; then
	echo "==> npm vectra@0.15.0 into $vectra_npm"
	npm install --prefix "$vectra_npm" --no-audit --no-fund --loglevel=error vectra@0.15.0 >/dev/null
fi
go build -o "$work/folio" ./cmd/folio
go build -o "$work/folio-load" ./cmd/folio/loadgen
folio=$work/folio
loadgen=$work/folio-load

# serve ROOT PORT CMD...: start a server in the background and wait until it answers.
serve() {
	local port=$1
	shift
	"$@" >"$work/serve-$port.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 100); do
		# Up when a call reaches it: "Index not found", not "Unavailable".
		if ! "$loadgen" --address "127.0.0.1:$port" --index none --requests 1 -q 2>&1 | grep -q Unavailable; then
			return
		fi
		sleep 0.3
	done
	echo "the server on port $port did not start:" >&2
	cat "$work/serve-$port.log" >&2
	exit 1
}
stop() { kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true; unset 'pids[-1]'; }

# warm PORT: one query, so that the index is loaded before a timed load.
warm() { "$loadgen" --address "127.0.0.1:$1" --index bench --requests 1 -q >/dev/null; }

# load LABEL ARGS...: one load run, its "all" line.
load() {
	local label=$1
	shift
	printf '%-48s %s\n' "$label" "$("$loadgen" -q "$@" | awk '$1 == "all" { printf "%8s q/s  p50 %s ms  p99 %s ms", $4, $5, $7 }')"
}

mkdir -p "$work/small" "$work/big"
echo "==> folio serve: creating the indexes over the service"
serve 50161 "$folio" serve --root "$work/small" --port 50161
"$loadgen" --address 127.0.0.1:50161 --index bench --create 10000 --requests 1 -q >/dev/null
serve 50162 "$folio" serve --root "$work/big" --port 50162
"$loadgen" --address 127.0.0.1:50162 --index bench --create 100000 --format protobuf --requests 1 -q >/dev/null

echo "==> the same run"
load "folio serve, 10k×384, 8 clients" --address 127.0.0.1:50161 --index bench --concurrency 8 --duration "${secs}s"
load "folio serve, 10k×384, 1 client" --address 127.0.0.1:50161 --index bench --concurrency 1 --duration "${secs}s"
load "folio serve, 100k×384, 16 clients" --address 127.0.0.1:50162 --index bench --concurrency 16 --duration "${secs}s"
stop
serve 50165 "$folio" serve --root "$work/big" --port 50165 --metrics-addr 127.0.0.1:50166
warm 50165
load "folio serve --metrics-addr, 100k×384, 16 clients" --address 127.0.0.1:50165 --index bench --concurrency 16 --duration "${secs}s"
stop
serve 50163 "$folio" serve --root "$work/big" --port 50163 --quantized
warm 50163
load "folio serve --quantized, 100k×384, 16 clients" --address 127.0.0.1:50163 --index bench --concurrency 16 --duration "${secs}s"
stop
stop
serve 50164 node "$vectra_npm/node_modules/vectra/bin/vectra.js" serve --root "$work/small" --port 50164
warm 50164
load "Vectra 0.15 serve, 10k×384, 8 clients" --address 127.0.0.1:50164 --index bench --concurrency 8 --duration "${secs}s"
stop

echo "==> in process (core benchmarks, same machine)"
(cd adapters/grpc && go test -run '^$' -bench 'BenchmarkQueryItems/items=10000$/in-process/goroutines=1$' -benchtime 2000x . |
	awk '/^Benchmark/ { printf "%-48s p50 %s ms\n", "QueryItems, 10k×384, one at a time", $3 }')
(cd core && go test -run '^$' -bench 'BenchmarkQueryBatch100kx384' . |
	awk '/^Benchmark/ { split($1, n, "/"); sub(/-[0-9]+$/, "", n[2]); printf "%-48s %8.1f q/s\n", "QueryItemsBatch 100k×384, " n[2], 1000 / $5 }')
