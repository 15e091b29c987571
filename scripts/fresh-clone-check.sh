#!/usr/bin/env bash
# fresh-clone-check.sh: the README's first two commands as a newcomer runs
# them: in a fresh clone of this checkout's HEAD, with empty Go module and
# build caches and an empty npm cache (all in a temporary folder, removed
# afterwards; Debian's packages, such as Chromium, stay installed), it runs
# make demo, then make test, timing each (wall and CPU), and fails when
# either takes longer than the README's first lines say ("about N s" for
# the demo, "about N min" for the tests, each given a quarter more). Run it
# on a machine with nothing else running: `make fresh-clone-check`.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
readme="$repo/README.md"
demo_s=$(grep -m1 '^make demo ' "$readme" | sed -n 's/.*about \([0-9][0-9]*\) s wall.*/\1/p')
test_min=$(grep -m1 '^make test ' "$readme" | sed -n 's/.*about \([0-9][0-9]*\) min wall.*/\1/p')
[ -n "$demo_s" ] && [ -n "$test_min" ] || { echo "fresh-clone-check: the README's first lines state no \"about N s wall\" (demo) or \"about N min wall\" (test)"; exit 1; }
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
git clone --quiet "$repo" "$work/folio"
export GOMODCACHE=$work/gomod GOCACHE=$work/gobuild npm_config_cache=$work/npm GOFLAGS="$(go env GOFLAGS) -modcacherw"
status=0
measure() { # name max_seconds target
	local start end times
	start=$(date +%s)
	if ! (cd "$work/folio" && /usr/bin/time -f '%U %S' -o "$work/$1.cpu" make "$3" >"$work/$1.log" 2>&1); then
		tail -40 "$work/$1.log"
		echo "fresh-clone-check: make $3 failed (log above)"
		exit 1
	fi
	end=$(date +%s)
	read -r user sys <"$work/$1.cpu"
	local wall=$((end - start)) cpu
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%d", u + s }')
	echo "make $3: $wall s wall, $cpu s CPU (the README says about $(($2 * 4 / 5)) s)"
	if [ "$wall" -gt "$2" ]; then
		echo "fresh-clone-check: make $3 took $wall s, more than the README's figure allows ($2 s)"
		status=1
	fi
}
measure demo $((demo_s * 5 / 4)) demo
echo "  downloaded $(find "$GOMODCACHE/cache/download" -name '*.zip' | wc -l) modules, $(du -sh "$GOMODCACHE/cache/download" | cut -f1)"
measure test $((test_min * 60 * 5 / 4)) test
exit "$status"
