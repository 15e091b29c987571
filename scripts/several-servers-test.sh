#!/bin/sh
# several-servers-test.sh WEED: the several-servers test at length
# (FOLIO_SEVERAL_SERVERS_ROUNDS, 60) on the in-process fake S3 server, then
# on SeaweedFS, a real one (scripts/with-seaweedfs.sh). Only the summary
# lines are shown, the whole output when a test fails; the exit status is
# the tests'.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
run() {
	log=$(mktemp)
	status=0
	(cd "$root/cmd/folio" && FOLIO_SEVERAL_SERVERS_ROUNDS=${FOLIO_SEVERAL_SERVERS_ROUNDS:-60} \
		go test -count=1 -run '^TestSeveralServersOverABucket$' -v . >"$log" 2>&1) || status=$?
	if [ $status -eq 0 ]; then
		grep -E '^\s*(---|ok)|commits seen|bucket s3' "$log" || true
	else
		cat "$log"
	fi
	rm -f "$log"
	return $status
}
if [ "${1:-}" = --run ]; then
	run
	exit
fi
echo "==> on the in-process fake"
run
echo "==> on SeaweedFS"
"$root/scripts/with-seaweedfs.sh" "$1" "$0" --run
