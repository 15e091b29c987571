#!/usr/bin/env bash
# check-notice.sh: NOTICE reproduces the NOTICE file of every third-party
# module the folio command links, in its default build and with the
# objectstorage tag, as the Apache License asks: each such module's path is
# named in NOTICE, and each line of its NOTICE is in NOTICE.
set -euo pipefail
cd "$(dirname "$0")/.."
notice=$(cat NOTICE)
status=0
for tags in "" objectstorage; do
	while IFS=$'\t' read -r mod dir; do
		for f in "$dir"/NOTICE*; do
			[ -f "$f" ] || continue
			if ! grep -qF "$mod" <<<"$notice"; then
				echo "NOTICE does not name $mod, whose $(basename "$f") the folio command${tags:+ (tag $tags)} ships"
				status=1
			fi
			while IFS= read -r line; do
				line=$(echo "$line" | sed 's/^ *//')
				[ -z "$line" ] && continue
				if ! grep -qF -- "$line" <<<"$notice"; then
					echo "NOTICE lacks \"$line\" of $mod's $(basename "$f")"
					status=1
				fi
			done <"$f"
		done
	done < <(cd cmd/folio && go list -tags "$tags" -deps -f '{{with .Module}}{{if not .Main}}{{.Path}}	{{.Dir}}{{end}}{{end}}' . | grep -v '^github.com/foliovec/folio' | sort -u)
done
[ "$status" = 0 ] && echo "NOTICE: every linked module's NOTICE reproduced"
exit "$status"
