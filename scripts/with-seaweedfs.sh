#!/bin/sh
# with-seaweedfs.sh WEED COMMAND...: runs COMMAND with SeaweedFS's S3
# server starting on 127.0.0.1 (a master, a volume server, a filer and the
# S3 gateway, all in a temporary folder), FOLIO_S3_ENDPOINT naming it (the
# command waits for it to answer); stops it and removes the folder after.
# SEAWEEDFS_PORT (18333) is the S3 port; the other three are below it.
set -eu
weed=$1
shift
port=${SEAWEEDFS_PORT:-18333}
data=$(mktemp -d)
"$weed" server -dir="$data" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
	-master.port=$((port - 3)) -volume.port=$((port - 2)) -filer.port=$((port - 1)) \
	-s3 -s3.port="$port" -volume.max=0 >"$data/weed.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$data"' EXIT INT TERM
sleep 1
if ! kill -0 $pid 2>/dev/null; then
	echo "with-seaweedfs: the S3 server did not start; its log:" >&2
	tail -20 "$data/weed.log" >&2
	exit 1
fi
echo "==> SeaweedFS starting, S3 at http://127.0.0.1:$port"
FOLIO_S3_ENDPOINT=http://127.0.0.1:$port "$@"
