#!/usr/bin/env bash
# commit-serve-bench.sh: commits through folio serve on both layouts, the
# serve rows of docs/benchmarks.md ("Commits"). It serves each index of the
# folder examples/commitbench built (DIR, default
# $TMPDIR/folio-commitbench: the 1M×384 indexes "file" and "segmented"),
# one server process per index, and measures:
#   - 8 clients querying for SECONDS_EACH (10) seconds: p99 without writes;
#   - the same while one client inserts 20 items, one commit each, in
#     windows of SECONDS_EACH until the inserts end: the worst window's
#     p99 during the commits, and the inserts' own times;
#   - on the segmented layout, ROUNDS (3) rounds of a window without writes
#     and a window while one client upserts without pause, interleaved:
#     each window's query p99, its ratio to the window before, and the
#     upserts' own times;
#   - the server's resident memory after the first queries (open), and
#     after the inserts.
# LAYOUTS ("file segmented") chooses the indexes. make bench-commit runs it
# after the library figures.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(cd "${1:-${TMPDIR:-/tmp}/folio-commitbench}" && pwd)
secs=${SECONDS_EACH:-10}
work=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
# FOLIO_BIN: a folio binary to measure instead of this checkout's (an
# earlier build, for a before-and-after in one run).
if [ -n "${FOLIO_BIN:-}" ]; then cp "$FOLIO_BIN" "$work/folio"; else go build -o "$work/folio" ./cmd/folio; fi
go build -o "$work/folio-load" ./cmd/folio/loadgen
load=$work/folio-load
port=50171
rss() { awk '/^VmRSS/ { printf "%d", $2 / 1024 }' "/proc/$pid/status"; }
stat() { python3 -c 'import json,sys; s=[x for x in json.load(sys.stdin)["stats"] if x["kind"]==sys.argv[1]][0]; print("%.1f %.1f %.1f %d %d" % (s["p50Ms"], s["p99Ms"], s["maxMs"], s["calls"], s["errors"]))' "$1"; }
for ix in ${LAYOUTS:-file segmented}; do
	mkdir -p "$work/root-$ix" && ln -s "$dir/$ix" "$work/root-$ix/$ix"
	"$work/folio" serve --root "$work/root-$ix" --port "$port" >"$work/serve.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		if ! "$load" --address "127.0.0.1:$port" --index none --requests 1 -q 2>&1 | grep -q Unavailable; then
			break
		fi
		sleep 0.3
	done
	q=("$load" --address "127.0.0.1:$port" --index "$ix" -q --json)
	"${q[@]}" --concurrency 8 --requests 16 >/dev/null
	open=$(rss)
	read -r p50 p99 max calls errs < <("${q[@]}" --concurrency 8 --duration "${secs}s" | stat query)
	echo "$ix layout, folio serve, 8 clients querying:"
	echo "  without writes:    p50 $p50 ms, p99 $p99 ms, max $max ms ($calls calls, $errs errors)"
	"${q[@]}" --mix insert=1 --concurrency 1 --requests 20 >"$work/inserts.json" &
	ipid=$!
	while kill -0 "$ipid" 2>/dev/null; do
		read -r p50 p99 max calls errs < <("${q[@]}" --concurrency 8 --duration "${secs}s" | stat query)
		echo "  during inserts:    p50 $p50 ms, p99 $p99 ms, max $max ms ($calls calls, $errs errors)"
	done
	wait "$ipid"
	read -r p50 p99 max calls errs < <(stat insert <"$work/inserts.json")
	echo "  the 20 inserts:    p50 $p50 ms, p99 $p99 ms, max $max ms ($errs errors)"
	if [ "$ix" = segmented ]; then
		for round in $(seq "${ROUNDS:-3}"); do
			read -r _ quiet _ _ _ < <("${q[@]}" --concurrency 8 --duration "${secs}s" | stat query)
			"${q[@]}" --mix insert=1 --concurrency 1 --duration "$((secs + 1))s" >"$work/upserts.json" &
			ipid=$!
			sleep 0.5
			read -r p50 p99 max calls errs < <("${q[@]}" --concurrency 8 --duration "${secs}s" | stat query)
			wait "$ipid"
			ratio=$(python3 -c "print('%.2f' % ($p99 / $quiet))")
			read -r ip50 ip99 imax icalls ierrs < <(stat insert <"$work/upserts.json")
			echo "  round $round: p99 without writes $quiet ms; while one client upserts without pause p99 $p99 ms (${ratio}×), p50 $p50 ms; $icalls upserts, p50 $ip50 ms, p99 $ip99 ms, max $imax ms ($ierrs errors)"
		done
	fi
	echo "  resident:          after open $open MB, after the inserts $(rss) MB"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	pid=
done
