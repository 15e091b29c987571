#!/usr/bin/env bash
# Uses Folio as the README tells a new user to, in empty folders outside the
# repository, so the README cannot drift from the code. Run by `make test`.
#  1. The workspace recipe under the README's "Installing", run word for
#     word (with /path/to/folio replaced by this checkout), with the first Go
#     program of the README saved as main.go where the recipe says so.
#  2. The replace-lines variant: the same program through go.mod replaces and
#     go mod tidy.
#  3. Every other Go program in the README and in docs/*.md is built
#     (js/wasm ones for js/wasm), and the plain-index one is run.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
readme="$repo/README.md"
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

# Every ```go block of the README, then of docs/*.md, in order, as
# blocks/NN.go.
mkdir -p "$work/blocks"
awk -v dir="$work/blocks" '
	/^```go$/ { n++; f = sprintf("%s/%02d.go", dir, n); inb = 1; next }
	inb && /^```$/ { inb = 0; close(f); next }
	inb { print > f }' "$readme" "$repo"/docs/*.md
first="$work/blocks/01.go"
[ -s "$first" ] || { echo "README.md has no Go program"; exit 1; }
# The recipe: the first ```sh block under "Installing".
recipe=$(awk '
	/^## Installing/ { sec = 1; next }
	sec && /^## / { exit }
	sec && /^```sh$/ { inb = 1; next }
	inb && /^```$/ { exit }
	inb { print }' "$readme" | sed "s#/path/to/folio#$repo#g")
[ -n "$recipe" ] || { echo "README.md has no workspace recipe"; exit 1; }
# The recipe's comment line is where the user saves the program.
before=$(printf '%s\n' "$recipe" | awk '/^#/ { exit } { print }')
after=$(printf '%s\n' "$recipe" | awk 'seen { print } /^#/ { seen = 1 }')

check_first() { # $1: output of the first program (after what the recipe's commands print)
	line=$(printf '%s\n' "$1" | grep -m 1 'notes/' || true)
	case "$line" in
	*notes/rivers.md*) ;;
	*) echo "the README's first program printed, first, not notes/rivers.md:"; echo "$1"; exit 1 ;;
	esac
}

# 1. The workspace recipe, word for word.
mod=$(cd "$work" && GOWORK= bash -euo pipefail -c "$before"$'\npwd' | tail -n 1)
cp "$first" "$mod/main.go"
out=$(cd "$mod" && GOWORK= bash -euo pipefail -c "$after" 2>&1) || { echo "$out"; exit 1; }
check_first "$out"
echo "own module (README recipe): $(printf '%s\n' "$out" | tr '\n' ' ')"

# 2. A go.mod that requires the root module and replaces every Folio module.
modules=$(awk '/^use \(/{f=1;next} /^\)/{f=0} f{print $1}' "$repo/go.work" | grep -v '^./examples$')
path_of() { if [ "$1" = . ]; then echo "$repo"; else echo "$repo/${1#./}"; fi; }
name_of() { awk '/^module /{print $2; exit}' "$(path_of "$1")/go.mod"; }
mkdir -p "$work/with-replace"
cp "$first" "$work/with-replace/main.go"
{
	printf 'module example.com/try\n\ngo 1.26\n\nrequire github.com/foliovec/folio v0.0.0-00010101000000-000000000000\n\nreplace (\n'
	for m in $modules; do printf '\t%s => %s\n' "$(name_of "$m")" "$(path_of "$m")"; done
	printf ')\n'
} >"$work/with-replace/go.mod"
(cd "$work/with-replace" && GOWORK=off go mod tidy >/dev/null 2>&1) || { (cd "$work/with-replace" && GOWORK=off go mod tidy); exit 1; }
out=$(cd "$work/with-replace" && GOWORK=off go run . 2>&1) || { echo "$out"; exit 1; }
check_first "$out"
echo "own module (replace lines): $(printf '%s\n' "$out" | grep -m 1 notes/)"

# 3. Every other program of the README and docs/ builds in the recipe's
#    module; the plain index program also runs.
for f in "$work"/blocks/*.go; do
	n=$(basename "$f" .go)
	[ "$f" = "$first" ] && continue
	mkdir -p "$mod/samples/$n"
	cp "$f" "$mod/samples/$n/main.go"
done
# The samples import more of Folio than the first program: the recipe's
# script adds what they need.
(cd "$mod" && GOWORK= "$repo/scripts/work-use.sh" >/dev/null)
for f in "$work"/blocks/*.go; do
	n=$(basename "$f" .go)
	[ "$f" = "$first" ] && continue
	if grep -q '^//go:build js && wasm' "$f"; then
		(cd "$mod" && GOWORK= GOOS=js GOARCH=wasm go build -o /dev/null "./samples/$n") || { echo "program $n of the README or docs/ (js/wasm) does not build"; exit 1; }
	else
		(cd "$mod" && GOWORK= go build -o /dev/null "./samples/$n") || { echo "program $n of the README or docs/ does not build"; exit 1; }
	fi
done
echo "README and docs programs: $(ls "$work"/blocks | wc -l) build"
plain=$(grep -l 'folio.NewLocalIndex("my-index"' "$work"/blocks/*.go | head -n 1)
[ -n "$plain" ] || { echo "no plain index program (folio.NewLocalIndex(\"my-index\", …)) in the README or docs/"; exit 1; }
out=$(cd "$mod" && GOWORK= go run "./samples/$(basename "$plain" .go)" 2>&1) || { echo "$out"; exit 1; }
case "$out" in
*" a map[category:news year:2024]"*) echo "README plain index program: $out" ;;
*) echo "the README's plain index program printed:"; echo "$out"; exit 1 ;;
esac
