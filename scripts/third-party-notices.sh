#!/usr/bin/env bash
# third-party-notices.sh MODULE_DIR [GOOS GOARCH] [EXTRA_FILE...]
#
# Prints the third-party notices of what a Go program built from MODULE_DIR
# (for GOOS/GOARCH, default the host's) ships: the licence of Go itself
# (its standard library and runtime, and wasm_exec.js), then, for every
# module outside Folio that the program's packages come from, its licence
# file and, where it has one, its NOTICE file, as the Apache License asks.
# Each EXTRA_FILE (a file of notices for something else shipped beside the
# program) is appended as it is. `make js-package` writes it into the npm
# tarball as THIRD_PARTY_NOTICES; scripts/check-notice.sh checks NOTICE
# against the NOTICE files it finds.
set -euo pipefail
dir=$1
goos=${2:-$(go env GOOS)}
goarch=${3:-$(go env GOARCH)}
shift $(( $# < 3 ? $# : 3 ))
cd "$dir"
echo "Third-party notices"
echo "==================="
echo
echo "This program is built from Folio (Apache License 2.0, see LICENSE and NOTICE) and the"
echo "software below, each under its own licence, reproduced here."
goroot=$(go env GOROOT)
echo
echo "-------------------------------------------------------------------------------"
echo "Go $(go env GOVERSION | sed 's/^go//'): the standard library and runtime (and wasm_exec.js)"
echo "-------------------------------------------------------------------------------"
echo
cat "$goroot/LICENSE"
GOOS=$goos GOARCH=$goarch go list -deps -f '{{with .Module}}{{if not .Main}}{{.Path}}@{{.Version}}	{{.Dir}}{{end}}{{end}}' . |
	grep -v '^github.com/foliovec/folio' | sort -u |
	while IFS=$'\t' read -r mod moddir; do
		[ -n "$mod" ] || continue
		echo
		echo "-------------------------------------------------------------------------------"
		echo "$mod"
		echo "-------------------------------------------------------------------------------"
		found=
		for f in "$moddir"/LICENSE* "$moddir"/LICENCE* "$moddir"/COPYING* "$moddir"/NOTICE*; do
			[ -f "$f" ] || continue
			echo
			cat "$f"
			found=1
		done
		if [ -z "$found" ]; then
			echo "no licence file found in $moddir" >&2
			exit 1
		fi
	done
for extra in "$@"; do
	echo
	cat "$extra"
done
