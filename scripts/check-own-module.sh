#!/usr/bin/env bash
# Builds and runs a throwaway module outside the repository that uses Folio
# the two ways the README gives: a go.work listing Folio's modules, and a
# go.mod with one replace line per Folio module. Run by `make test`.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
modules=$(awk '/^use \(/{f=1;next} /^\)/{f=0} f{print $1}' "$repo/go.work" | grep -v '^./examples$')
path_of() { if [ "$1" = . ]; then echo "$repo"; else echo "$repo/${1#./}"; fi; }
name_of() { awk '/^module /{print $2; exit}' "$(path_of "$1")/go.mod"; }

setup() {
	mkdir -p "$1"
	cp "$repo/testdata/ownmodule/main.go.txt" "$1/main.go"
	printf 'module example.com/try\n\ngo 1.26\n' >"$1/go.mod"
}
check() {
	out=$(cd "$1" && GOWORK=$2 go run . 2>&1) || { echo "$out"; exit 1; }
	[ "$out" = "best: a.md" ] || { echo "unexpected output: $out"; exit 1; }
	echo "own module ($3): $out"
}

# 1. A go.work beside the module, listing it and Folio's modules.
setup "$work/with-work"
{
	printf 'go 1.26.0\n\nuse (\n\t.\n'
	for m in $modules; do printf '\t%s\n' "$(path_of "$m")"; done
	printf ')\n'
} >"$work/with-work/go.work"
check "$work/with-work" "$work/with-work/go.work" "go.work"

# 2. A go.mod that requires the root module and replaces every Folio module.
setup "$work/with-replace"
{
	printf '\nrequire github.com/foliovec/folio v0.0.0-00010101000000-000000000000\n\nreplace (\n'
	for m in $modules; do printf '\t%s => %s\n' "$(name_of "$m")" "$(path_of "$m")"; done
	printf ')\n'
} >>"$work/with-replace/go.mod"
(cd "$work/with-replace" && GOWORK=off go mod tidy >/dev/null 2>&1) || { (cd "$work/with-replace" && GOWORK=off go mod tidy); exit 1; }
check "$work/with-replace" off "replace lines"
