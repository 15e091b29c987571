#!/usr/bin/env bash
# work-use.sh [DIR]: lets the Go module in DIR (default: the current
# folder) build against this checkout of Folio, with only the Folio modules
# it needs: those its packages (and their tests) import, and the Folio
# modules those require, nothing else (the whole workspace is 23 modules,
# the README's first program needs 7). It writes DIR/go.work when there is
# none (go work init, with the Go version the go command has) and adds
# those modules to it with go work use; run it again after adding imports.
# It reaches no network.
set -euo pipefail
folio=$(cd "$(dirname "$0")/.." && pwd)
dir=$(cd "${1:-.}" && pwd)
[ -f "$dir/go.mod" ] || { echo "work-use.sh: no go.mod in $dir: run go mod init first" >&2; exit 1; }

# Folio's modules, from its go.work: path and folder.
declare -A folder
while read -r m; do
	d=$folio/${m#./}
	[ "$m" = . ] && d=$folio
	folder[$(awk '/^module / { print $2; exit }' "$d/go.mod")]=$d
done < <(awk '/^use \(/ { f = 1; next } /^\)/ { f = 0 } f { print $1 }' "$folio/go.work")

# The Folio module of an import path: the longest module path it starts with.
module_of() {
	local best=
	for m in "${!folder[@]}"; do
		if [ "$1" = "$m" ] || [[ "$1" == "$m"/* ]]; then
			[ ${#m} -gt ${#best} ] && best=$m
		fi
	done
	echo "$best"
}

# The imports of DIR's packages, read from their files (nothing resolved,
# nothing downloaded), for this machine and for the browser (js/wasm).
list_imports() {
	GOWORK=off GOPROXY=off GOFLAGS=-mod=mod go list -e \
		-f '{{join .Imports "\n"}}{{"\n"}}{{join .TestImports "\n"}}{{"\n"}}{{join .XTestImports "\n"}}' ./... 2>/dev/null || true
}
imports=$(cd "$dir" && { list_imports; GOOS=js GOARCH=wasm list_imports; } | grep '^github.com/foliovec/folio' | sort -u || true)
declare -A need
queue=()
for p in $imports; do
	m=$(module_of "$p")
	if [ -n "$m" ] && [ -z "${need[$m]:-}" ]; then
		need[$m]=1
		queue+=("$m")
	fi
done
# …and the Folio modules they require, transitively.
while [ ${#queue[@]} -gt 0 ]; do
	m=${queue[0]}
	queue=("${queue[@]:1}")
	for r in $(awk '/^require \(/ { f = 1; next } f && /^\)/ { f = 0 } f || /^require / { for (i = 1; i <= NF; i++) if ($i ~ /^github.com\/foliovec\/folio/) print $i }' "${folder[$m]}/go.mod"); do
		if [ -n "${folder[$r]:-}" ] && [ -z "${need[$r]:-}" ]; then
			need[$r]=1
			queue+=("$r")
		fi
	done
done
if [ ${#need[@]} -eq 0 ]; then
	echo "work-use.sh: no package in $dir imports a Folio module" >&2
	exit 1
fi
cd "$dir"
[ -f go.work ] || GOWORK= go work init .
dirs=()
for m in "${!need[@]}"; do dirs+=("${folder[$m]}"); done
GOWORK= go work use "${dirs[@]}"
echo "go.work uses $dir and ${#dirs[@]} Folio modules: $(for m in "${!need[@]}"; do echo "${m#github.com/foliovec/}"; done | sort | tr '\n' ' ')"
