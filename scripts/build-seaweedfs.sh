#!/bin/sh
# build-seaweedfs.sh VERSION OUT: builds SeaweedFS's weed command (an
# S3-compatible server, Apache-2.0) from its Go module at VERSION into OUT.
# Its go.mod has replace lines, so `go install …@VERSION` refuses it: the
# module is downloaded and built inside a writable copy. About 4 minutes
# and a 230 MB binary.
set -eu
version=$1
case $2 in /*) out=$2 ;; *) out=$(pwd)/$2 ;; esac
src=$(GOFLAGS=-mod=mod GOWORK=off go mod download -json "github.com/seaweedfs/seaweedfs@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$src" ] || { echo "build-seaweedfs: no module directory for $version" >&2; exit 1; }
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
cp -R "$src/." "$work/"
chmod -R u+w "$work"
mkdir -p "$(dirname "$out")"
(cd "$work" && GOWORK=off GOFLAGS=-mod=mod go build -trimpath -ldflags=-s -o "$out.tmp" ./weed)
mv "$out.tmp" "$out"
echo "==> $out"
