#!/usr/bin/env bash
# Fails when a tracked file is over 2 MB and not on the allow-list below:
# build outputs (a binary, a .wasm) belong in .gitignore, not in every clone.
# Run by `make ci` (target large-files).
set -euo pipefail
cd "$(dirname "$0")/.."
limit=$((2 * 1024 * 1024))
# Fixtures allowed over the limit, one path a line (none today).
allowed=(
)
bad=0
while IFS= read -r -d '' f; do
	[ -f "$f" ] || continue
	size=$(stat -c %s "$f" 2>/dev/null || stat -f %z "$f")
	[ "$size" -gt "$limit" ] || continue
	for a in "${allowed[@]}"; do [ "$a" = "$f" ] && continue 2; done
	echo "tracked file over 2 MB: $f ($size bytes); ignore it, or list it as a fixture in $0"
	bad=1
done < <(git ls-files -z)
[ "$bad" = 0 ] && echo "no tracked file over 2 MB"
exit "$bad"
