#!/usr/bin/env bash
# observability-test.sh: a real Prometheus (Debian's prometheus package)
# scrapes folio serve --metrics-addr on 127.0.0.1 every second while
# folio-load runs queries and inserts against it; then Prometheus's HTTP
# query API must answer rate(folio_index_queries_total[1m]) and
# rate(folio_grpc_server_handled_total[1m]) with values above zero, and
# see the target up. Ports: FOLIO_OBS_PORT (50191), +1 metrics, +2 Prometheus.
set -euo pipefail
cd "$(dirname "$0")/.."
prometheus=${PROMETHEUS:-prometheus}
port=${FOLIO_OBS_PORT:-50191}
metrics=$((port + 1))
prom=$((port + 2))
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/folio" ./cmd/folio
go build -o "$work/folio-load" ./cmd/folio/loadgen
mkdir -p "$work/root"
"$work/folio" serve --root "$work/root" --port "$port" --metrics-addr "127.0.0.1:$metrics" >"$work/serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
	curl -fsS "http://127.0.0.1:$metrics/metrics" >/dev/null 2>&1 && break
	sleep 0.2
done
"$work/folio-load" --address "127.0.0.1:$port" --index bench --create 2000 --dims 64 --requests 1 -q >/dev/null

cat >"$work/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: folio
    static_configs:
      - targets: ["127.0.0.1:$metrics"]
YAML
"$prometheus" --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
	--web.listen-address="127.0.0.1:$prom" >"$work/prometheus.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
	curl -fsS "http://127.0.0.1:$prom/-/ready" >/dev/null 2>&1 && break
	sleep 0.3
done

echo "==> load: 8 clients for 20 s, queries and inserts"
"$work/folio-load" --address "127.0.0.1:$port" --index bench --dims 64 --concurrency 8 --duration 20s \
	--mix query=9 --mix insert=1 -q | awk '$1 == "all"'
sleep 3 # the last scrapes

# query EXPR: the first value of an instant query, or 0.
query() {
	curl -fsS --get "http://127.0.0.1:$prom/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)'
}
fail=0
for expr in 'up{job="folio"}' 'sum(rate(folio_index_queries_total[1m]))' 'sum(rate(folio_index_commits_total[1m]))' \
	'sum(rate(folio_grpc_server_handled_total{grpc_method="QueryItems",grpc_code="OK"}[1m]))' \
	'histogram_quantile(0.99, sum by (le) (rate(folio_grpc_server_handling_seconds_bucket{grpc_method="QueryItems"}[1m])))'; do
	v=$(query "$expr")
	printf '%-100s %s\n' "$expr" "$v"
	if ! python3 -c "import sys; sys.exit(0 if float('$v') > 0 else 1)"; then
		echo "observability-test: $expr is not above zero" >&2
		fail=1
	fi
done
if [ "$fail" != 0 ]; then
	tail -20 "$work/prometheus.log" "$work/serve.log" >&2
	exit 1
fi
echo "observability-test: Prometheus scraped folio serve and saw its queries, commits and calls"
